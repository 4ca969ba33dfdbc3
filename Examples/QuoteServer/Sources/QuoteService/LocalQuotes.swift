import Dispatch
import Hummingbird
import NIOCore
import NIOPosix
import Pledge

/// An in-process quote book behind a callback API that answers on another thread, as the client
/// library of a cache or a database does: the backend of the three `/local` routes.
public final class QuoteBook: Sendable {
    /// Why a look-up failed.
    public enum Failure: Error {
        case unknownSymbol
    }

    private let queue = DispatchQueue(label: "quote-book", attributes: .concurrent)

    public init() {}

    /// Calls `completion` on the book's own queue with the symbol's price.
    public func lookUp(_ symbol: String, completion: @escaping @Sendable (Result<Int, Failure>) -> Void) {
        queue.async {
            guard !symbol.isEmpty else { return completion(.failure(.unknownSymbol)) }
            completion(.success(100 + symbol.utf8.reduce(0) { $0 &+ Int($1) } % 7))
        }
    }
}

/// One request's work written three ways, to measure what each costs a server: look the symbol up
/// in the ``QuoteBook`` and render the answer. `GET /local/pledge/:symbol` is a Pledge chain,
/// `/local/async/:symbol` a checked continuation and `/local/nio/:symbol` an `EventLoopPromise`,
/// each bridged to the async handler and each inside ``handlingRequest(id:name:_:)``.
public struct LocalQuotes: Sendable {
    let book: QuoteBook

    public init(book: QuoteBook) { self.book = book }

    /// The Pledge chain.
    public func pledge(_ symbol: String) async throws -> ByteBuffer {
        let book = book
        return try await Promise<Int> { seal in book.lookUp(symbol) { seal.resolve($0) } }
            .map(on: nil) { Self.render(symbol, $0) }
            .async()
    }

    /// The same with async/await.
    public func plainAsync(_ symbol: String) async throws -> ByteBuffer {
        let price = try await withCheckedThrowingContinuation { continuation in
            book.lookUp(symbol) { continuation.resume(with: $0) }
        }
        return Self.render(symbol, price)
    }

    /// The same with SwiftNIO's futures, on one of the server's event loops.
    public func nio(_ symbol: String) async throws -> ByteBuffer {
        let promise = MultiThreadedEventLoopGroup.singleton.next().makePromise(of: Int.self)
        book.lookUp(symbol) { promise.completeWith($0.mapError { $0 as any Error }) }
        return try await promise.futureResult.map { Self.render(symbol, $0) }.get()
    }

    static func render(_ symbol: String, _ price: Int) -> ByteBuffer {
        ByteBuffer(string: "\(symbol): \(price)")
    }

    /// Adds the three routes to `router`.
    public func addRoutes(to router: Router<BasicRequestContext>) {
        let ways: [(String, @Sendable (String) async throws -> ByteBuffer)] = [
            ("pledge", pledge), ("async", plainAsync), ("nio", nio),
        ]
        for (way, work) in ways {
            router.get("/local/\(way)/:symbol") { request, context -> Response in
                let symbol = context.parameters.get("symbol") ?? "?"
                return await handlingRequest(id: requestID(request, context), name: "GET /local/\(way)") {
                    guard let body = try? await work(symbol) else { return Response(status: .notFound) }
                    return Response(status: .ok, body: .init(byteBuffer: body))
                }
            }
        }
    }
}
