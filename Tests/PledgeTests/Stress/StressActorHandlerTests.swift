import Dispatch
import Pledge
import Testing

/// An actor counting what its handlers saw.
private actor Tally {
    var count = 0
    var sum = 0

    /// Attaches a handler written here to each promise.
    func attach(to promises: [Promise<Int>]) -> Promise<Void> {
        when(
            fulfilled: promises.map { promise in
                promise.map { value -> Int in
                    self.count += 1
                    return value
                }.done { self.sum += $0 }
            })
    }
}

/// Thousands of promises resolved at once, from many threads, into handlers written in an actor:
/// every handler runs exactly once, isolated to the actor (ThreadSanitizer watches the state).
@Suite struct StressActorHandlerTests {
    @Test func concurrentResolutionIntoActorHandlersCountsExactly() async throws {
        let size = 4_000
        let tally = Tally()
        let pairs = (0..<size).map { _ in Promise<Int>.pending() }
        let all = await tally.attach(to: pairs.map(\.promise))
        let resolvers = pairs.map(\.resolver)
        DispatchQueue.global().async {
            DispatchQueue.concurrentPerform(iterations: size) { resolvers[$0].fulfill($0) }
        }
        try await all.async()
        #expect(await tally.count == size)
        #expect(await tally.sum == size * (size - 1) / 2)
    }
}
