import Dispatch
import Pledge
import Synchronization
import Testing

/// Eight threads dispatch thousands of bodies to one ``ConcurrencyLimitedDispatcher`` at once:
/// the bodies really overlap up to the limit and never beyond it, and each runs exactly once.
/// Meant to run under ThreadSanitizer and AddressSanitizer.
@Suite("Stress — ConcurrencyLimitedDispatcher under many producers")
struct StressConcurrencyLimitedDispatcherTests {
    static let producers = 8

    /// How many bodies run at once, and the most that ever did.
    final class Occupancy: Sendable {
        private let current = Atomic<Int>(0)
        private let highest = Atomic<Int>(0)
        private let starts = Atomic<Int>(0)

        /// Records a start; returns how many bodies started before this one.
        func enter() -> Int {
            let now = current.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue
            highest.max(now, ordering: .acquiringAndReleasing)
            return starts.wrappingAdd(1, ordering: .acquiringAndReleasing).oldValue
        }

        func leave() {
            current.wrappingSubtract(1, ordering: .acquiringAndReleasing)
        }

        var peak: Int { highest.load(ordering: .acquiring) }
    }

    @Test(
        "the peak number of running bodies is exactly the limit, and every body runs once",
        .serialized, arguments: [1, 2, 4])
    func peakConcurrencyIsExactlyTheLimit(limit: Int) {
        let total = RendezvousScale.scaled(10_000, minimum: 800)
        let perProducer = total / Self.producers
        let bodies = perProducer * Self.producers
        let dispatcher = ConcurrencyLimitedDispatcher(limit: limit, queue: TestQueues.concurrent("limited"))
        let occupancy = Occupancy()
        let runs = RendezvousCounters(count: bodies)
        let done = CompletionCount(expecting: bodies)
        // The first `limit` bodies to start wait for each other, so `limit` of them surely run
        // at the same time: the peak cannot fall short of the limit by luck. They sleep rather
        // than spin, so that the queue's thread pool grows to give every one of them a thread.
        let firstStarters = BlockingRendezvous(parties: limit)
        let start = RendezvousBarrier(parties: Self.producers)

        let finished = RendezvousThreads.run(count: Self.producers) { producer in
            start.arriveAndWait()
            for offset in 0..<perProducer {
                let index = producer * perProducer + offset
                dispatcher.dispatch {
                    let startedBefore = occupancy.enter()
                    if startedBefore < limit { firstStarters.arriveAndWait() }
                    runs.add(1, at: index)
                    occupancy.leave()
                    done.complete()
                }
            }
        }

        #expect(finished, "the producers did not finish in time")
        #expect(done.wait(), "only \(done.completed) of \(bodies) bodies ran in time")
        #expect(occupancy.peak == limit)
        #expect(runs.indices(notEqualTo: 1).isEmpty, "bodies that did not run exactly once")
    }
}
