import Dispatch
import Testing

// `dispatch(_:orDrop:)`, which Pledge's operators call to hear about dropped work, is internal.
@testable import Pledge

/// `invalidate()` races thousands of dispatches from eight threads: every body either runs or
/// is dropped (its drop reported), never both and never neither. Meant to run under
/// ThreadSanitizer and AddressSanitizer.
@Suite("Stress — InvalidatableQueue invalidated while threads dispatch")
struct StressInvalidatableQueueTests {
    static let producers = 8

    @Test("invalidate racing dispatch: each body runs or is dropped, exactly once")
    func invalidateRacingDispatch() {
        let total = RendezvousScale.scaled(10_000, minimum: 800)
        let perProducer = total / Self.producers
        let bodies = perProducer * Self.producers
        let dispatcher = InvalidatableQueue(queue: TestQueues.concurrent("invalidatable.stress"))
        // 1 when the body ran, 2 when it was dropped; anything else is a bug.
        let outcomes = RendezvousCounters(count: bodies)
        let done = CompletionCount(expecting: bodies)
        // The producers and the invalidating thread start together, halfway through.
        let halfway = RendezvousBarrier(parties: Self.producers + 1)

        let finished = RendezvousThreads.run(count: Self.producers + 1) { thread in
            guard thread < Self.producers else {
                halfway.arriveAndWait()
                dispatcher.invalidate()
                return
            }
            for offset in 0..<perProducer {
                if offset == perProducer / 2 { halfway.arriveAndWait() }
                let index = thread * perProducer + offset
                dispatcher.dispatch(
                    {
                        outcomes.add(1, at: index)
                        done.complete()
                    },
                    orDrop: {
                        outcomes.add(2, at: index)
                        done.complete()
                    })
            }
        }

        #expect(finished, "the threads did not finish in time")
        #expect(done.wait(), "only \(done.completed) of \(bodies) bodies ran or were dropped in time")
        let wrong = (0..<bodies).filter { outcomes[$0] != 1 && outcomes[$0] != 2 }
        #expect(wrong.isEmpty, "bodies that ran and were dropped, or neither: \(wrong.prefix(10))")
        #expect(dispatcher.isInvalidated)
    }
}
