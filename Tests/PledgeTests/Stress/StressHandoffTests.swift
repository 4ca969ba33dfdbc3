import Pledge
import Testing

/// One thread fulfils promise `i` while another attaches handlers to promise `i`, across a long
/// run of pre-made pending promises.
///
/// The two threads meet at a barrier every block of promises, so they stay in step and fight
/// over the same boxes; blocks alternate direction so that in some the attacher is ahead (its
/// handlers are stored and run by the fulfilling thread) and in others behind (its handlers run
/// at once, on its own thread), and in all of them the two cross somewhere in the middle.
@Suite("Stress — fulfilling and attaching overlap across many promises")
struct StressHandoffTests {
    /// What each kind of handler adds to its promise's counter: one run of each adds up to
    /// `expectedTotal`, and a missing or repeated run cannot add up to it.
    private static let pipeWeight = 1
    private static let mapWeight = 1 << 16
    private static let doneWeight = 1 << 32
    private static let expectedTotal = pipeWeight + mapWeight + doneWeight

    @Test("every handler runs exactly once, with its own promise's value")
    func everyHandlerRunsOnceWithTheRightValue() {
        let count = RendezvousScale.scaled(100_000, minimum: 2_000)
        let blockSize = 1_000
        let pending = (0..<count).map { _ in Promise<Int>.pending() }
        let promises = pending.map(\.promise)
        let resolvers = pending.map(\.resolver)
        let counters = RendezvousCounters(count: count)
        let wrongValues = RendezvousTally()
        let ranOnFulfiller = RendezvousTally()
        let ranOnAttacher = RendezvousTally()
        let barrier = RendezvousBarrier(parties: 2)

        let finished = RendezvousThreads.run(count: 2) { role in
            let isFulfiller = role == 0
            let me = stressCurrentThreadID()
            for (blockIndex, start) in stride(from: 0, to: count, by: blockSize).enumerated() {
                let block = start..<min(start + blockSize, count)
                let ordered = blockIndex.isMultiple(of: 2) ? Array(block) : block.reversed()
                barrier.arriveAndWait()
                for index in isFulfiller ? Array(block) : ordered {
                    if isFulfiller {
                        resolvers[index].fulfill(index)
                        continue
                    }
                    @Sendable func record(_ value: Int, weight: Int) {
                        if value != index { wrongValues.add() }
                        counters.add(weight, at: index)
                        if stressCurrentThreadID() == me { ranOnAttacher.add() } else { ranOnFulfiller.add() }
                    }
                    let promise = promises[index]
                    promise.pipe { result in record((try? result.get()) ?? -1, weight: Self.pipeWeight) }
                    _ = promise.map(on: nil) { record($0, weight: Self.mapWeight) }
                    _ = promise.done(on: nil) { record($0, weight: Self.doneWeight) }
                }
            }
        }

        #expect(finished, "the two threads did not finish in time")
        #expect(wrongValues.total == 0)
        let wrong = counters.indices(notEqualTo: Self.expectedTotal)
        #expect(wrong.isEmpty, "promises whose handlers did not each run once: \(wrong.map { ($0, counters[$0]) })")
        // Both paths were taken: handlers stored and run by the fulfiller, and handlers run at
        // once by the attacher. Otherwise the threads never overlapped and the test proved little.
        #expect(ranOnFulfiller.total > 0)
        #expect(ranOnAttacher.total > 0)
        #expect(ranOnFulfiller.total + ranOnAttacher.total == 3 * count)
    }
}
