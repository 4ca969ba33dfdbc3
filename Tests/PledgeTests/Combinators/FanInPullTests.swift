import Testing

@testable import Pledge

/// White-box tests of the fan-in behind `when(…, concurrently:)`, for states that public calls
/// reach only through a race between threads.
@Suite struct FanInPullTests {
    /// A thread becomes the owner of the iterator when a fulfilment leaves room to pull; a
    /// rejection recorded by another thread before the owner pulls must stop that pull.
    @Test func anOwnerWhoseFanInFinishedBeforeItPulledTakesNothingFromTheIterator() {
        var pulled = 0
        let iterator = AnyIterator<Promise<Int>> {
            pulled += 1
            return Promise.value(pulled)
        }
        let fanIn = FanIn<_, FanInValues<Int>>(source: iterator, limit: 2, site: (#fileID, #line))
        fanIn.withState { $0.finished = true }

        let work = fanIn.pull()
        let handedBackNoWork = work == nil
        ThreadRun.run(work, deferrable: false)

        #expect(handedBackNoWork)
        #expect(pulled == 0)
        #expect(fanIn.source == nil)
    }

    /// The same owner, with the fan-in still running, pulls up to the limit.
    @Test func anOwnerOfARunningFanInPullsUpToTheLimit() {
        var pulled = 0
        let pending = (0..<3).map { _ in Promise<Int>.pending() }
        let iterator = AnyIterator<Promise<Int>> {
            defer { pulled += 1 }
            return pulled < pending.count ? pending[pulled].promise : nil
        }
        let fanIn = FanIn<_, FanInValues<Int>>(source: iterator, limit: 2, site: (#fileID, #line))

        ThreadRun.run(fanIn.pull(), deferrable: false)

        #expect(pulled == 2)
        // Settled, so that no resolver is released unresolved (which would be logged).
        for (index, input) in pending.enumerated() { input.resolver.fulfill(index) }
        #expect((fanIn.box.isSealed(observing: false) ? (try? fanIn.box.result().get()) : nil) == [0, 1, 2])
    }
}
