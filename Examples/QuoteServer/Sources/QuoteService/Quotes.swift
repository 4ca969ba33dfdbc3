import Foundation
import Hummingbird
import Logging
import Pledge
import PledgeFoundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The quote route: asks the backend through a Pledge chain, and answers with what it said.
///
/// Each attempt gets 250 ms (`timeout(for:)`) and is traced as a span of its own; a failed one is
/// retried up to three times in all, after the backend's `Retry-After` when it sent one, after
/// 20 ms otherwise (`retry(decide:)`). The chain is bridged to the async handler with `async()`,
/// and its last step logs, with the request's id, on whichever thread the backend answered.
public struct Quotes: Sendable {
    /// One call of the backend for a symbol.
    let fetch: @Sendable (String) -> Promise<Data>
    let logger: Logger

    /// The route over any backend call.
    public init(logger: Logger, fetch: @escaping @Sendable (String) -> Promise<Data>) {
        self.logger = logger
        self.fetch = fetch
    }

    /// The route over the HTTP backend at `backend`.
    public init(backend: URL, logger: Logger) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 128
        let session = URLSession(configuration: configuration)
        self.init(logger: logger) { symbol in
            session.dataTask(.promise, with: backend.appendingPathComponent("quote/\(symbol)")).validate()
                .map(on: nil) { $0.data }
        }
    }

    public func quote(_ symbol: String) -> Promise<Data> {
        let fetch = fetch
        let logger = logger
        return retry(attempts: 3, backoff: .constant(Duration.milliseconds(20)), decide: Self.honourRetryAfter) {
            traced("GET /quote/\(symbol)") { fetch(symbol) }.timeout(for: .milliseconds(250))
        }.get(on: nil) { data in
            logger.debug("backend answered", metadata: ["bytes": "\(data.count)"])
        }
    }

    /// Retries every failure but a cancellation, after the backend's `Retry-After` when it sent one.
    static let honourRetryAfter: @Sendable (any Error, Int) -> RetryDecision = { error, _ in
        if error.isCancelled { return .stop }
        if let wait = (error as? PMKHTTPError)?.retryAfter { return .retry(after: wait) }
        return .retry
    }

    public func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/quote/:symbol") { request, context -> Response in
            let symbol = context.parameters.get("symbol") ?? "?"
            return await handlingRequest(id: requestID(request, context), name: "GET /quote") {
                do {
                    let data = try await quote(symbol).async()
                    return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: data)))
                } catch {
                    return Response(status: .badGateway)
                }
            }
        }
        return router
    }
}

/// The request's id, as Hummingbird numbers requests.
func requestID(_ request: Request, _ context: BasicRequestContext) -> String {
    context.id
}
