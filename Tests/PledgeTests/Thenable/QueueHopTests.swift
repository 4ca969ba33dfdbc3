import Dispatch
import Foundation
import Pledge
import Testing

/// How a chain moves between queues: each handler given a queue runs in a block of its own on
/// that queue, dispatched once its input is ready, as in PromiseKit; a queued handler never runs
/// inline, not even when the block that resolved its input runs on its queue.
@Suite struct QueueHopTests {
    /// Waits for `semaphore`, for at most the tests' generous timeout.
    private func waited(_ semaphore: DispatchSemaphore) -> Bool {
        semaphore.wait(timeout: .testTimeout) == .success
    }

    @Test func eachHandlerOfAChainOnOneQueueRunsInABlockOfItsOwn() {
        let queue = TestQueues.serial("hops.same")
        let events = Recorder<String>()
        let finished = DispatchSemaphore(value: 0)
        let (first, resolver) = Promise<Int>.pending()

        var promise = first.map(on: queue) { value -> Int in
            events.append("step 1")
            // Queued behind the block that runs now: it shows where that block ends.
            queue.async { events.append("other block") }
            return value + 1
        }
        for step in 2...20 {
            promise = promise.map(on: queue) { value -> Int in
                events.append("step \(step)")
                return value + 1
            }
        }
        promise.done(on: queue) { value in
            events.append("done \(value)")
            finished.signal()
        }.ignoreErrors()
        resolver.fulfill(0)

        #expect(waited(finished))
        // Step 2 is dispatched as step 1 returns, behind the block step 1 queued.
        let expected = ["step 1", "other block"] + (2...20).map { "step \($0)" } + ["done 20"]
        #expect(events.all == expected)
    }

    @Test func everyHandlerOfAChainRunsOnItsQueue() {
        let queue = TestQueues.serial("hops.on-queue")
        let onQueue = Recorder<Bool>()
        let finished = DispatchSemaphore(value: 0)

        var promise = Promise.value(0)
        for _ in 0..<40 {
            promise = promise.map(on: queue) { value -> Int in
                onQueue.append(TestQueues.isOn(queue))
                return value + 1
            }
        }
        promise.done(on: queue) { _ in finished.signal() }.ignoreErrors()

        #expect(waited(finished))
        #expect(onQueue.all == Array(repeating: true, count: 40))
    }

    @Test func aHandlerForAnotherQueueIsDispatchedToIt() {
        let first = TestQueues.serial("hops.first")
        let second = TestQueues.serial("hops.second")
        let seen = Recorder<String>()
        let finished = DispatchSemaphore(value: 0)

        Promise.value(1).map(on: first) { value -> Int in
            seen.append(TestQueues.isOn(first) ? "map on first" : "map elsewhere")
            return value
        }.done(on: second) { _ in
            seen.append(TestQueues.isOn(second) && !TestQueues.isOn(first) ? "done on second" : "done elsewhere")
            finished.signal()
        }.ignoreErrors()

        #expect(waited(finished))
        #expect(seen.all == ["map on first", "done on second"])
    }

    @Test func resolvingAPromiseInsideAHandlerDoesNotRunItsQueuedHandlersInThatCall() {
        let queue = TestQueues.serial("hops.nested-resolve")
        let events = Recorder<String>()
        let finished = DispatchSemaphore(value: 0)
        let (inner, innerResolver) = Promise<Int>.pending()
        inner.done(on: queue) { _ in
            events.append("inner handler")
            finished.signal()
        }.ignoreErrors()

        Promise.value(1).done(on: queue) { value in
            innerResolver.fulfill(value)
            events.append("fulfil returned")
        }.ignoreErrors()

        #expect(waited(finished))
        #expect(events.all == ["fulfil returned", "inner handler"])
    }

    @Test func resolvingInsideASyncBlockOnAnotherQueueDoesNotRunTheHandlerThere() {
        let queue = TestQueues.serial("hops.outer")
        let lock = TestQueues.serial("hops.sync")
        let events = Recorder<String>()
        let finished = DispatchSemaphore(value: 0)
        let (inner, innerResolver) = Promise<Int>.pending()
        inner.done(on: queue) { _ in
            events.append(TestQueues.isOn(lock) ? "handler inside the sync block" : "handler on its queue only")
            finished.signal()
        }.ignoreErrors()

        Promise.value(1).done(on: queue) { value in
            lock.sync {
                innerResolver.fulfill(value)
                events.append("sync block returned")
            }
        }.ignoreErrors()

        #expect(waited(finished))
        #expect(events.all == ["sync block returned", "handler on its queue only"])
    }

    @Test func handlersOfOnePromiseOnOneQueueStillRunInAttachmentOrder() {
        let queue = TestQueues.serial("hops.order")
        let events = Recorder<Int>()
        let finished = DispatchSemaphore(value: 0)
        let (source, resolver) = Promise<Int>.pending()
        let shared = source.map(on: queue) { $0 }
        for index in 0..<5 {
            shared.done(on: queue) { _ in
                events.append(index)
                if index == 4 { finished.signal() }
            }.ignoreErrors()
        }
        resolver.fulfill(1)

        #expect(waited(finished))
        #expect(events.all == [0, 1, 2, 3, 4])
    }

    @Test(arguments: [false, true])
    func aHandlerAttachedAfterResolutionRunsAfterTheEarlierOnesOnTheSameQueue(resolvedInABlock: Bool) {
        let queue = TestQueues.serial("hops.late")
        let events = Recorder<String>()
        let finished = DispatchSemaphore(value: 0)
        let (pending, resolver) = Promise<Int>.pending()
        let source = resolvedInABlock ? pending.map(on: queue) { $0 } : pending
        // The first handler's cascade attaches a late handler to `source`, which is resolved
        // by then, while the earlier `done(on: queue)` below has yet to run.
        source.map(on: nil) { $0 }.done(on: nil) { _ in
            source.done(on: queue) { _ in
                events.append("late")
                finished.signal()
            }.ignoreErrors()
        }.ignoreErrors()
        source.done(on: queue) { _ in events.append("early") }.ignoreErrors()
        resolver.fulfill(1)

        #expect(waited(finished))
        #expect(events.all == ["early", "late"])
    }

    @Test func siblingHandlersOnAConcurrentQueueStillRunConcurrently() {
        let queue = TestQueues.concurrent("hops.siblings")
        let siblingStarted = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let outcome = Recorder<String>()
        // Resolved inside a block on `queue`: each handler gets a block of its own, so the first
        // does not wait for its sibling forever.
        let (base, resolver) = resolvedInABlock(on: queue)
        base.done(on: queue) { _ in
            let sawSibling = siblingStarted.wait(timeout: .testTimeout) == .success
            outcome.append(sawSibling ? "saw its sibling" : "timed out")
            finished.signal()
        }.ignoreErrors()
        base.done(on: queue) { _ in siblingStarted.signal() }.ignoreErrors()
        resolver.fulfill(1)

        #expect(finished.wait(timeout: .testTimeout + 10) == .success)
        #expect(outcome.all == ["saw its sibling"])
    }

    /// Both handlers are dispatched as the promise resolves, so on a concurrent queue the first
    /// starts without waiting for the block that resolved the promise to end.
    @Test func theFirstOfTwoHandlersOnAConcurrentQueueStartsBeforeTheBlockEnds() {
        let queue = TestQueues.concurrent("hops.first-of-two")
        let firstStarted = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let outcome = Recorder<String>()
        let (base, resolver) = resolvedInABlock(on: queue)
        base.done(on: queue) { _ in firstStarted.signal() }.ignoreErrors()
        base.done(on: queue) { _ in }.ignoreErrors()
        // Runs in the block, after both were dispatched: the block ends only once the first
        // handler has started, or the wait times out.
        base.done(on: nil) { _ in
            outcome.append(firstStarted.wait(timeout: .testTimeout) == .success ? "first started" : "timed out")
            finished.signal()
        }.ignoreErrors()
        resolver.fulfill(1)

        #expect(finished.wait(timeout: .testTimeout + 10) == .success)
        #expect(outcome.all == ["first started"])
    }

    /// Once a promise resolved inside a block has dispatched its handler for the block's queue,
    /// it is resolved for everything else: a handler attached to it inside that handler, or later
    /// in the same block, runs at once, so code there that waits for such a handler does not
    /// hang.
    @Test(arguments: [false, true])
    func aHandlerAttachedAfterTheQueuedOneRunsAtOnce(fromTheQueuedHandler fromTheTail: Bool) {
        let queue = TestQueues.serial("hops.tail-resolved")
        let events = Recorder<String>()
        let finished = DispatchSemaphore(value: 0)
        let (base, resolver) = resolvedInABlock(on: queue)
        @Sendable func attachAndWait() {
            let ran = DispatchSemaphore(value: 0)
            base.map(on: nil) { $0 * 2 }.done(on: nil) { _ in ran.signal() }.ignoreErrors()
            // Bounded, so that a regression fails instead of hanging the suite.
            events.append(ran.wait(timeout: .testTimeout) == .success ? "ran" : "stuck")
            finished.signal()
        }
        base.done(on: queue) { _ in
            if fromTheTail { attachAndWait() }
        }.ignoreErrors()
        if !fromTheTail {
            // A later step of the same block: the cascade of an `on: nil` handler.
            base.map(on: nil) { $0 }.done(on: nil) { _ in attachAndWait() }.ignoreErrors()
        }
        resolver.fulfill(1)

        #expect(finished.wait(timeout: .testTimeout + 10) == .success)
        #expect(events.all == ["ran"])
    }

    /// A pending promise that a `map(on: queue)` block resolves, so that its handlers fire
    /// inside a Pledge block on `queue`, and the resolver that starts it.
    private func resolvedInABlock(on queue: DispatchQueue) -> (Promise<Int>, Resolver<Int>) {
        let (gate, resolver) = Promise<Int>.pending()
        return (gate.map(on: queue) { $0 }, resolver)
    }

    @Test(arguments: [false, true])
    func aHandlerWithFlagsKeepsItsPlaceAheadOfALaterHandler(serialQueue: Bool) {
        let queue = serialQueue ? TestQueues.serial("hops.flags") : TestQueues.concurrent("hops.flags.c")
        let events = Recorder<String>()
        let finished = DispatchSemaphore(value: 0)
        let (promise, resolver) = resolvedInABlock(on: queue)
        promise.done(on: queue, flags: serialQueue ? [] : .barrier) { _ in events.append("with flags") }.ignoreErrors()
        promise.done(on: queue) { _ in
            events.append("later")
            finished.signal()
        }.ignoreErrors()
        resolver.fulfill(1)

        #expect(waited(finished))
        queue.sync(flags: .barrier) {}
        #expect(events.all == ["with flags", "later"])
    }

    @Test(arguments: [false, true])
    func anInlineHandlerRunsAfterTheCascadesOfEarlierInlineHandlers(serialQueue: Bool) {
        let queue = serialQueue ? TestQueues.serial("hops.tail") : TestQueues.concurrent("hops.tail.c")
        let cascadeRan = DispatchSemaphore(value: 0)
        let events = Recorder<String>()
        let finished = DispatchSemaphore(value: 0)
        let (promise, resolver) = resolvedInABlock(on: queue)
        // The queued handler waits for the cascade of the `on: nil` handler attached after it,
        // which starts first: it must not run ahead of that cascade in the same block.
        promise.done(on: queue) { _ in
            events.append(cascadeRan.wait(timeout: .testTimeout) == .success ? "saw the cascade" : "timed out")
            finished.signal()
        }.ignoreErrors()
        promise.map(on: nil) { $0 }.done(on: nil) { _ in cascadeRan.signal() }.ignoreErrors()
        resolver.fulfill(1)

        #expect(finished.wait(timeout: .testTimeout + 10) == .success)
        #expect(events.all == ["saw the cascade"])
    }

    @Test func aChainDoesNotOvertakeASiblingThatItsBlockDispatched() {
        let queue = TestQueues.serial("hops.overtake")
        let events = Recorder<String>()
        let finished = DispatchSemaphore(value: 0)
        let (promise, resolver) = resolvedInABlock(on: queue)
        // Both handlers are dispatched in attachment order. The first handler's own next handler
        // must then queue behind the second, not overtake it.
        promise.map(on: queue) { value -> Int in
            events.append("first")
            return value
        }.done(on: queue) { _ in
            events.append("after first")
            finished.signal()
        }.ignoreErrors()
        promise.done(on: queue) { _ in events.append("second") }.ignoreErrors()
        resolver.fulfill(1)

        #expect(waited(finished))
        #expect(events.all == ["first", "second", "after first"])
    }

    @Test func handlersOfTwoPromisesOnAConcurrentQueueDoNotWaitForEachOther() {
        let queue = TestQueues.concurrent("hops.cousins")
        let firstRan = DispatchSemaphore(value: 0)
        let events = Recorder<String>()
        let finished = DispatchSemaphore(value: 0)
        let (promise, resolver) = resolvedInABlock(on: queue)
        let cousin = promise.map(on: nil) { $0 }
        promise.done(on: queue) { _ in firstRan.signal() }.ignoreErrors()
        cousin.done(on: queue) { _ in
            events.append(firstRan.wait(timeout: .testTimeout) == .success ? "saw the first" : "timed out")
            finished.signal()
        }.ignoreErrors()
        resolver.fulfill(1)

        #expect(finished.wait(timeout: .testTimeout + 10) == .success)
        #expect(events.all == ["saw the first"])
    }

    @Test func aHandlerAttachedFromAnotherThreadWhileThePromiseFiresRunsAfterTheEarlierOnes() {
        let queue = TestQueues.serial("hops.cross-thread")
        let events = Recorder<String>()
        let finished = DispatchSemaphore(value: 0)
        let firing = DispatchSemaphore(value: 0)
        let attached = DispatchSemaphore(value: 0)
        let (promise, resolver) = resolvedInABlock(on: queue)
        promise.done(on: queue) { _ in events.append("early") }.ignoreErrors()
        // Holds the promise in its firing phase until the other thread has attached.
        promise.done(on: nil) { _ in
            firing.signal()
            _ = attached.wait(timeout: .testTimeout)
        }.ignoreErrors()
        Thread.detachNewThread {
            _ = firing.wait(timeout: .testTimeout)
            promise.done(on: queue) { _ in
                events.append("late")
                finished.signal()
            }.ignoreErrors()
            attached.signal()
        }
        resolver.fulfill(1)

        #expect(waited(finished))
        #expect(events.all == ["early", "late"])
    }

    /// Runs a two-step chain of `map(on: queue)`, attached whole before it starts, whose first
    /// step queues another block on `queue`; records where that block ran relative to the steps.
    ///
    /// - Returns: whether the chain finished in time, and the order of `step 1`, `step 2` and
    ///   `other block` once `queue` has run everything queued so far.
    static func stepsAroundAQueuedBlock(on queue: DispatchQueue) -> (finished: Bool, events: [String]) {
        let events = Recorder<String>()
        let finished = DispatchSemaphore(value: 0)
        let (first, resolver) = Promise<Int>.pending()
        first.map(on: queue) { value -> Int in
            events.append("step 1")
            queue.async { events.append("other block") }
            return value
        }.map(on: queue) { value -> Int in
            events.append("step 2")
            return value
        }.done(on: queue) { _ in finished.signal() }.ignoreErrors()
        resolver.fulfill(0)

        let inTime = finished.wait(timeout: .testTimeout) == .success
        queue.sync {}
        return (inTime, events.all)
    }

    @Test func handlersOnTheMainQueueAreBlocksOfTheirOwn() {
        // Swift Testing's entry point drains the main queue.
        let run = Self.stepsAroundAQueuedBlock(on: DispatchQueue.main)

        #expect(run.finished)
        #expect(run.events == ["step 1", "other block", "step 2"])
    }

    @Test(arguments: [false, true])
    func handlersOnOtherSerialQueuesAreBlocksOfTheirOwn(defaultQueue: Bool) {
        let queue = defaultQueue ? PMKConfiguration.defaultQueue : TestQueues.serial("hops.own")
        let run = Self.stepsAroundAQueuedBlock(on: queue)

        #expect(run.finished)
        #expect(run.events == ["step 1", "other block", "step 2"])
    }

    @Test func queuedHopsReleaseEveryValueOfTheChain() {
        let queue = TestQueues.serial("hops.release")
        let counter = LifetimeCounter()
        let finished = DispatchSemaphore(value: 0)
        do {
            let (first, resolver) = Promise<LifetimeTracker>.pending()
            var promise = first
            for _ in 0..<40 {
                promise = promise.map(on: queue) { _ in LifetimeTracker(counter) }
            }
            promise.done(on: queue) { _ in finished.signal() }.ignoreErrors()
            resolver.fulfill(LifetimeTracker(counter))
        }

        #expect(waited(finished))
        queue.drain()
        #expect(counter.released == 41)
        #expect(counter.alive == 0)
    }

    @Test func aLongChainOnOneQueueResolvesWithoutGrowingTheStack() {
        let queue = TestQueues.serial("hops.long")
        let finished = DispatchSemaphore(value: 0)
        let steps = 100_000
        let (first, resolver) = Promise<Int>.pending()
        var promise = first
        for _ in 0..<steps {
            promise = promise.map(on: queue) { $0 + 1 }
        }
        let last = Locked(0)
        promise.done(on: nil) { value in
            last.value = value
            finished.signal()
        }.ignoreErrors()
        resolver.fulfill(0)

        #expect(waited(finished))
        #expect(last.value == steps)
    }
}
