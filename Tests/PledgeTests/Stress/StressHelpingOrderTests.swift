import Pledge
import Testing

/// One thread attaches several handlers to a promise and resolves it while other threads attach
/// to the same promise, so that they run their own handlers while the resolving thread runs the
/// first thread's. However the threads interleave, each of the first thread's handlers starts
/// before any later one of them has finished.
@Suite("Stress — threads helping a firing promise keep every thread's order")
struct StressHelpingOrderTests {
    static let owned = 8
    static let helpers = 4

    @Test func handlersOfTheResolvingThreadNeverStartAfterALaterOneFinished() {
        let rounds = RendezvousScale.scaled(2_000, minimum: 50)
        let pending = (0..<rounds).map { _ in Promise<Int>.pending() }
        // Per round, one bit per handler of the resolving thread that has finished.
        let finished = RendezvousCounters(count: rounds)
        let ran = RendezvousCounters(count: 1)
        let lateStarts = RendezvousTally()
        let barrier = RendezvousBarrier(parties: Self.helpers + 1)

        let done = RendezvousThreads.run(count: Self.helpers + 1) { thread in
            for round in 0..<rounds {
                let promise = pending[round].promise
                if thread == 0 {
                    for index in 0..<Self.owned {
                        promise.pipe { _ in
                            if finished[round] >> (index + 1) != 0 { lateStarts.add() }
                            ran.add(1, at: 0)
                            finished.add(1 << index, at: round)
                        }
                    }
                    barrier.arriveAndWait()
                    pending[round].resolver.fulfill(round)
                } else {
                    barrier.arriveAndWait()
                    promise.pipe { _ in ran.add(1, at: 0) }
                }
            }
        }

        #expect(done)
        #expect(ran[0] == rounds * (Self.owned + Self.helpers))
        #expect(lateStarts.total == 0)
    }
}
