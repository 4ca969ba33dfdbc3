import Dispatch
import Pledge
import Synchronization
import Testing

/// Eight threads dispatch to one ``RateLimitedDispatcher`` at once while its timer and its
/// bodies update the window: every body starts exactly once, and no sooner than the window
/// allows. Meant to run under ThreadSanitizer and AddressSanitizer.
@Suite("Stress — RateLimitedDispatcher under many producers")
struct StressRateLimitedDispatcherTests {
    static let producers = 8

    @Test("many producers: every body starts once, and the run takes at least its lower bound")
    func manyProducersEveryBodyStartsOnce() {
        let perProducer = RendezvousScale.scaled(250, minimum: 25)
        let bodies = perProducer * Self.producers
        let limit = 50
        let dispatcher = RateLimitedDispatcher(
            maxDispatches: limit, perInterval: .milliseconds(5), queue: TestQueues.concurrent("rate.stress"))
        let runs = RendezvousCounters(count: bodies)
        let lastStart = Atomic<UInt64>(0)
        let done = CompletionCount(expecting: bodies)
        let start = RendezvousBarrier(parties: Self.producers)
        let before = DispatchTime.now().uptimeNanoseconds

        let finished = RendezvousThreads.run(count: Self.producers) { producer in
            start.arriveAndWait()
            for offset in 0..<perProducer {
                let index = producer * perProducer + offset
                dispatcher.dispatch {
                    lastStart.max(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
                    runs.add(1, at: index)
                    done.complete()
                }
            }
        }

        #expect(finished, "the producers did not finish in time")
        #expect(done.wait(), "only \(done.completed) of \(bodies) bodies ran in time")
        #expect(runs.indices(notEqualTo: 1).isEmpty, "bodies that did not start exactly once")
        // `limit` starts per window: the last body cannot start before that many full windows.
        let fullWindows = UInt64((bodies - 1) / limit)
        #expect(lastStart.load(ordering: .relaxed) - before >= fullWindows * 5_000_000)
    }
}
