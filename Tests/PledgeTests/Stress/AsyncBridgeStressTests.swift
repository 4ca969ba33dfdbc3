import Dispatch
import Pledge
import Testing

/// The async bridge with resolution and cancellation racing each other; meant for
/// `swift test --sanitize=thread --filter Stress`.
@Suite struct AsyncBridgeStressTests {
    @Test func fulfilmentAndCancellationRacingResumeEachWaitExactlyOnce() async {
        let rounds = 500
        let outcomes = await withTaskGroup(of: Result<Int, Error>.self) { group in
            for round in 0..<rounds {
                let (promise, resolver) = Promise<Int>.pending()
                let waiter = Task { try await promise.async() }
                // Fulfilment and cancellation come from two other threads at about the same time.
                DispatchQueue.global().async { resolver.fulfill(round) }
                DispatchQueue.global().async { waiter.cancel() }
                group.addTask { await waiter.result }
            }
            var outcomes: [Result<Int, Error>] = []
            for await outcome in group { outcomes.append(outcome) }
            return outcomes
        }

        #expect(outcomes.count == rounds)
        // Each wait ended once, either with the value or with CancellationError.
        #expect(
            outcomes.allSatisfy { outcome in
                switch outcome {
                case .success: return true
                case .failure(let error): return error is CancellationError
                }
            })
    }

    @Test func manyTasksAwaitPromisesFulfilledFromAConcurrentQueue() async throws {
        let count = 1_000
        let pending = (0..<count).map { _ in Promise<Int>.pending() }

        try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for (index, input) in pending.enumerated() {
                group.addTask { (index, try await input.promise.async()) }
            }
            DispatchQueue.global().async {
                DispatchQueue.concurrentPerform(iterations: count) { index in
                    pending[index].resolver.fulfill(index * 2)
                }
            }
            for try await (index, value) in group { #expect(value == index * 2) }
        }
    }
}
