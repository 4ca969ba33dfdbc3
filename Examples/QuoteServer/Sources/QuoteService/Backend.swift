import Hummingbird
import Synchronization

/// The flaky backend the quote route depends on, on its own loopback port. Of every 10 requests,
/// one is answered `503 Service Unavailable` with `Retry-After: 0`, and of every 25, one stalls
/// for two seconds before answering: the failures a real dependency has. `/stats` reports what
/// it injected.
public struct Backend: Sendable {
    private let requests = Counter()
    private let injected503 = Counter()
    private let stalled = Counter()

    public init() {}

    public func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/quote/:symbol") { _, context -> Response in
            let number = requests.next()
            let symbol = context.parameters.get("symbol") ?? "?"
            if number % 10 == 3 {
                injected503.add()
                return Response(status: .serviceUnavailable, headers: [.retryAfter: "0"])
            }
            if number % 25 == 7 {
                stalled.add()
                try await Task.sleep(for: .seconds(2))
            }
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "\(symbol): \(100 + number % 7)")))
        }
        router.get("/stats") { _, _ -> String in
            "requests \(requests.value) injected503 \(injected503.value) stalled \(stalled.value)"
        }
        return router
    }
}

/// A count shared by the backend's handlers.
final class Counter: Sendable {
    private let count = Atomic<Int>(0)

    /// Adds one and returns the count before.
    func next() -> Int { count.add(1, ordering: .relaxed).oldValue }
    func add() { _ = next() }
    var value: Int { count.load(ordering: .relaxed) }
}
