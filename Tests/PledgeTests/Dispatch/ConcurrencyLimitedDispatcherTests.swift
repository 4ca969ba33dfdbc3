import Dispatch
import Pledge
import Synchronization
import Testing

@Suite struct ConcurrencyLimitedDispatcherTests {
    /// Counts the bodies running at once and keeps the highest count.
    final class Occupancy: Sendable {
        private let current = Atomic<Int>(0)
        private let highest = Atomic<Int>(0)

        func enter() {
            let now = current.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue
            highest.max(now, ordering: .acquiringAndReleasing)
        }

        func leave() {
            current.wrappingSubtract(1, ordering: .acquiringAndReleasing)
        }

        var peak: Int { highest.load(ordering: .acquiring) }
    }

    @Test func runsBodiesOnItsQueue() {
        let queue = TestQueues.concurrent("limited.queue")
        let dispatcher = ConcurrencyLimitedDispatcher(limit: 3, queue: queue)
        let onQueue = Recorder<Bool>()
        let done = CompletionCount(expecting: 50)

        for _ in 0..<50 {
            dispatcher.dispatch {
                onQueue.append(TestQueues.isOn(queue))
                done.complete()
            }
        }

        #expect(done.wait())
        #expect(onQueue.all == Array(repeating: true, count: 50))
    }

    @Test func handsBodiesToTheQueueInDispatchOrder() {
        // A serial queue starts blocks in the order it gets them, so the start order shows the
        // order the dispatcher handed bodies over, whatever the limit.
        let queue = TestQueues.serial("limited.order")
        let dispatcher = ConcurrencyLimitedDispatcher(limit: 4, queue: queue)
        let order = Recorder<Int>()
        let done = CompletionCount(expecting: 300)

        for index in 0..<300 {
            dispatcher.dispatch {
                order.append(index)
                done.complete()
            }
        }

        #expect(done.wait())
        #expect(order.all == Array(0..<300))
    }

    @Test(arguments: [1, 0, -5, Int.min])
    func aLimitOfOneOrLessRunsOneBodyAtATimeInOrder(limit: Int) {
        let dispatcher = ConcurrencyLimitedDispatcher(
            limit: limit, queue: TestQueues.concurrent("limited.one"))
        let occupancy = Occupancy()
        let order = Recorder<Int>()
        let done = CompletionCount(expecting: 300)

        for index in 0..<300 {
            dispatcher.dispatch {
                occupancy.enter()
                order.append(index)
                occupancy.leave()
                done.complete()
            }
        }

        #expect(done.wait())
        #expect(occupancy.peak == 1)
        #expect(order.all == Array(0..<300))
    }

    @Test func dispatchReturnsAtOnceWhileTheLimitIsReached() {
        // Given one place, taken by a body that waits for the test
        let dispatcher = ConcurrencyLimitedDispatcher(limit: 1, queue: TestQueues.concurrent("limited.wait"))
        let release = DispatchSemaphore(value: 0)
        let firstStarted = CompletionCount(expecting: 1)
        let secondRan = AtomicFlag()
        let done = CompletionCount(expecting: 2)
        dispatcher.dispatch {
            firstStarted.complete()
            release.wait()
            done.complete()
        }
        #expect(firstStarted.wait())

        // When a second body is dispatched, the call returns without running it
        dispatcher.dispatch {
            secondRan.set()
            done.complete()
        }
        #expect(!secondRan.isSet)

        // Then it runs once the first body has returned
        release.signal()
        #expect(done.wait())
        #expect(secondRan.isSet)
    }

    @Test func bodiesDispatchedFromBodiesRun() {
        let dispatcher = ConcurrencyLimitedDispatcher(limit: 2, queue: TestQueues.concurrent("limited.nested"))
        let done = CompletionCount(expecting: 101)

        @Sendable func chain(_ remaining: Int) {
            dispatcher.dispatch {
                if remaining > 0 { chain(remaining - 1) }
                done.complete()
            }
        }
        chain(100)

        #expect(done.wait())
    }
}
