import Foundation
import Hummingbird
import Pledge
import PledgeFoundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The quote route: asks the backend through a Pledge chain, and answers with what it said.
///
/// Each attempt gets 250 ms (`timeout(for:)`); a failed one is retried up to three times in all,
/// after the backend's `Retry-After` when it sent one, after 20 ms otherwise (`retry(decide:)`).
/// The chain is bridged to the async handler with `async()`.
struct Quotes {
    let backend: URL
    let session: URLSession

    init(backend: URL) {
        self.backend = backend
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 128
        session = URLSession(configuration: configuration)
    }

    func quote(_ symbol: String) -> Promise<Data> {
        let url = backend.appendingPathComponent("quote/\(symbol)")
        let session = session
        return retry(attempts: 3, backoff: .constant(Duration.milliseconds(20)), decide: Self.honourRetryAfter) {
            session.dataTask(.promise, with: url).validate().map(on: nil) { $0.data }.timeout(for: .milliseconds(250))
        }
    }

    /// Retries every failure but a cancellation, after the backend's `Retry-After` when it sent one.
    static let honourRetryAfter: @Sendable (any Error, Int) -> RetryDecision = { error, _ in
        if error.isCancelled { return .stop }
        if let wait = (error as? PMKHTTPError)?.retryAfter { return .retry(after: wait) }
        return .retry
    }

    func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/quote/:symbol") { _, context -> Response in
            let symbol = context.parameters.get("symbol") ?? "?"
            do {
                let data = try await quote(symbol).async()
                return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: data)))
            } catch {
                return Response(status: .badGateway)
            }
        }
        return router
    }
}
