import Foundation
import Pledge
import Testing

/// Threads attach to, and cancel, the same lazy promises at the same instant: the body runs
/// exactly once, on one of the attaching threads, or never when a cancellation came first, and
/// every handler runs exactly once. Meant to run under ThreadSanitizer and AddressSanitizer.
@Suite("Stress — first attachments of lazy promises racing")
struct StressLazyTests {
    static let threads = 16

    @Test("16 threads attach first at once: the body runs once, on one of them")
    func concurrentFirstAttachmentsRunTheBodyOnce() {
        let rounds = RendezvousScale.scaled(500, minimum: 50)
        let bodyRuns = RendezvousCounters(count: rounds)
        let bodyThreads = Locked<[Int: pthread_t]>([:])
        let handlerRuns = RendezvousCounters(count: rounds)
        let fulfilledRuns = RendezvousCounters(count: rounds)
        let lazies = (0..<rounds).map { round in
            Promise<Int>.lazy { seal in
                bodyRuns.add(1, at: round)
                bodyThreads.withLock { $0[round] = pthread_self() }
                seal.fulfill(round)
            }
        }
        let attachers = Locked<[pthread_t]>([])
        let barrier = RendezvousBarrier(parties: Self.threads)

        let finished = RendezvousThreads.run(count: Self.threads) { thread in
            attachers.withLock { $0.append(pthread_self()) }
            for round in 0..<rounds {
                let lazy = lazies[round]
                barrier.arriveAndWait()
                if thread.isMultiple(of: 2) {
                    lazy.pipe { _ in handlerRuns.add(1, at: round) }
                } else {
                    lazy.done(on: nil) { value in
                        handlerRuns.add(1, at: round)
                        if value == round { fulfilledRuns.add(1, at: round) }
                    }.cauterize()
                }
            }
        }

        #expect(finished, "the threads did not finish in time")
        let threadIDs = attachers.value
        let ranOn = bodyThreads.value
        var wrong: [Int] = []
        for round in 0..<rounds {
            let onAnAttacher = ranOn[round].map { id in threadIDs.contains { pthread_equal($0, id) != 0 } } ?? false
            let right =
                bodyRuns[round] == 1 && onAnAttacher && handlerRuns[round] == Self.threads
                && fulfilledRuns[round] == Self.threads / 2 && lazies[round].value == round
            if !right { wrong.append(round) }
        }
        #expect(wrong.isEmpty, "rounds with a wrong count: \(wrong.prefix(10))")
    }

    @Test("cancel racing the first attachment: the body runs at most once, never after the cancel won")
    func cancelRacingTheFirstAttachment() {
        let rounds = RendezvousScale.scaled(1_000, minimum: 100)
        let counter = LifetimeCounter()
        let bodyRuns = RendezvousCounters(count: rounds)
        let handlerRuns = RendezvousCounters(count: rounds)
        let lazies = (0..<rounds).map { round in
            let tracker = LifetimeTracker(counter)
            return Promise<Int>.lazy { seal in
                tracker.touch()
                bodyRuns.add(1, at: round)
                seal.fulfill(round)
            }
        }
        let barrier = RendezvousBarrier(parties: 2)

        let finished = RendezvousThreads.run(count: 2) { thread in
            for round in 0..<rounds {
                let lazy = lazies[round]
                barrier.arriveAndWait()
                if thread == 0 {
                    lazy.cancel()
                } else {
                    lazy.pipe { _ in handlerRuns.add(1, at: round) }
                }
            }
        }

        #expect(finished, "the threads did not finish in time")
        var wrong: [Int] = []
        for round in 0..<rounds {
            let cancelled = lazies[round].isCancelled
            let right =
                handlerRuns[round] == 1 && bodyRuns[round] <= 1 && (cancelled || bodyRuns[round] == 1)
            if !right { wrong.append(round) }
        }
        #expect(wrong.isEmpty, "rounds with a wrong count: \(wrong.prefix(10))")
        // Every body went: run and released, or released unrun by the cancellation.
        #expect(counter.alive == 0)
    }
}
