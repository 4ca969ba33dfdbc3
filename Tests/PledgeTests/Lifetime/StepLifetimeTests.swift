import Dispatch
import Pledge
import Synchronization
import Testing

/// The trampoline's steps hold their boxes without the compiler counting them, and hand counts
/// on: a step that may wait holds a count that running it gives back; a queued handler's hop
/// holds the count its handler was given on its box, and a hop that becomes a block's tail hands
/// it to the tail, together with the count of the firing box it waited on. Every value here is a
/// tracker, so a count never given back (a step dropped unrun, a count handed on and also kept)
/// leaves a tracker alive, and a count given back twice is a use after free, which crashes or
/// which AddressSanitizer reports.
@Suite struct StepLifetimeTests {
    /// An error that keeps a tracker alive, for the rejected paths.
    struct TrackedError: Error {
        let tracker: LifetimeTracker
    }

    /// Waits for `group`, for at most the tests' generous timeout.
    private func waited(_ group: DispatchGroup) -> Bool {
        group.wait(timeout: .testTimeout) == .success
    }

    /// Runs `rounds` rounds, each on a gate promise that `body` builds on, with the round's index
    /// and `group` (which `body` enters for every handler it waits for); then fulfils the gate
    /// with a tracker, drops everything, and waits for `group` and `queue` (see
    /// ``finished(_:on:)``), expecting both to finish in time.
    private func rounds(
        _ rounds: Int, on queue: DispatchQueue, counter: LifetimeCounter,
        _ body: (_ gate: Promise<LifetimeTracker>, _ round: Int, _ group: DispatchGroup) -> Void
    ) {
        let group = DispatchGroup()
        for round in 0..<rounds {
            do {
                let (gate, resolver) = Promise<LifetimeTracker>.pending()
                body(gate, round, group)
                resolver.fulfill(LifetimeTracker(counter))
            }
            #expect(finished(group, on: queue))
        }
    }

    /// Waits for `group`, then for the blocks already queued on `queue` and for the blocks those
    /// queue in turn, so that every box the test made has been run or dropped.
    ///
    /// - Returns: whether `group` emptied in time.
    private func finished(_ group: DispatchGroup, on queue: DispatchQueue) -> Bool {
        let emptied = waited(group)
        queue.sync(flags: .barrier) {}
        queue.sync(flags: .barrier) {}
        return emptied
    }

    @Test func queuedHandlersOnASettledPromiseWhosePromisesAreDroppedAtOnce() {
        let counter = LifetimeCounter()
        let queue = TestQueues.serial("steps.settled")
        let group = DispatchGroup()
        do {
            let promise = Promise.value(LifetimeTracker(counter))
            for _ in 0..<50 {
                _ = promise.map(on: queue) { $0 }
                _ = promise.get(on: queue) { _ in }
            }
            group.enter()
            promise.done(on: queue) { _ in group.leave() }.ignoreErrors()
        }
        #expect(waited(group))
        queue.drain()
        #expect(counter.alive == 0)
    }

    /// Hops that become a block's tail, tails dispatched early by a sibling for the same queue,
    /// hops with flags (always dispatched), `then` and `on: nil` mixed in.
    @Test(arguments: [false, true])
    func queuedHandlersFiredInsideABlockOnTheirQueue(concurrentQueue: Bool) {
        let counter = LifetimeCounter()
        let queue = concurrentQueue ? TestQueues.concurrent("steps.block") : TestQueues.serial("steps.block")
        let group = DispatchGroup()
        do {
            let (gate, resolver) = Promise<LifetimeTracker>.pending()
            let inBlock = gate.map(on: queue) { $0 }
            for index in 0..<20 {
                group.enter()
                var promise = inBlock.map(on: queue) { $0 }
                if index % 3 == 0 { promise = promise.map(on: queue, flags: .barrier) { $0 } }
                if index % 4 == 0 { promise = promise.map(on: nil) { $0 } }
                promise = promise.then(on: queue) { Promise.value($0) }
                promise = promise.then(on: queue) { value in inBlock.map(on: queue) { _ in value } }
                promise.done(on: queue) { _ in group.leave() }.ignoreErrors()
            }
            resolver.fulfill(LifetimeTracker(counter))
        }
        #expect(finished(group, on: queue))
        #expect(counter.alive == 0)
    }

    /// A chain of queued steps whose promises nobody holds: each step runs as the tail of the
    /// block its input fired in, and reads that input after the input's firing has ended, kept
    /// alive only by the count the firing handed to the tail. Each value names its step, so a
    /// tail reading a box freed too early would see the wrong value (or crash).
    @Test(arguments: [false, true])
    func tailsReadTheirInputAfterItsFiringEnded(concurrentQueue: Bool) {
        struct Step: Sendable {
            let index: Int
            let tracker: LifetimeTracker
        }
        let counter = LifetimeCounter()
        let queue = concurrentQueue ? TestQueues.concurrent("steps.tails") : TestQueues.serial("steps.tails")
        let finished = DispatchSemaphore(value: 0)
        let wrongInputs = Atomic<Int>(0)
        let last = Atomic<Int>(-1)
        do {
            let (gate, resolver) = Promise<Step>.pending()
            var promise = gate
            for expected in 0..<100 {
                promise = promise.map(on: queue) { input in
                    if input.index != expected { wrongInputs.add(1, ordering: .relaxed) }
                    return Step(index: expected + 1, tracker: LifetimeTracker(counter))
                }
            }
            promise.done(on: nil) { step in
                last.store(step.index, ordering: .relaxed)
                finished.signal()
            }.ignoreErrors()
            resolver.fulfill(Step(index: 0, tracker: LifetimeTracker(counter)))
        }
        #expect(finished.wait(timeout: .testTimeout) == .success)
        queue.sync(flags: .barrier) {}
        #expect(wrongInputs.load(ordering: .relaxed) == 0)
        #expect(last.load(ordering: .relaxed) == 100)
        #expect(counter.alive == 0)
    }

    /// The first queued handler of a box firing in a block becomes the block's tail, keeping the
    /// firing's count; a handler for the same queue, attached to the box while it still fires
    /// (by an inline handler, so in a later batch), dispatches that tail early, and the firing
    /// keeps its count after all.
    @Test(arguments: [false, true])
    func aHandlerAttachedWhileTheBoxFiresDispatchesTheTailEarly(withFlags: Bool) {
        let counter = LifetimeCounter()
        let queue = TestQueues.serial("steps.early")
        let ran = Atomic<Int>(0)
        rounds(50, on: queue, counter: counter) { gate, _, group in
            let inBlock = gate.map(on: queue) { $0 }
            group.enter()
            inBlock.map(on: queue) { $0 }.done(on: nil) { _ in
                ran.add(1, ordering: .relaxed)
                group.leave()
            }.ignoreErrors()
            group.enter()
            inBlock.done(on: nil) { _ in
                group.enter()
                let late =
                    withFlags ? inBlock.map(on: queue, flags: .barrier) { $0 } : inBlock.map(on: queue) { $0 }
                late.done(on: nil) { _ in
                    ran.add(1, ordering: .relaxed)
                    group.leave()
                }.ignoreErrors()
                group.leave()
            }.ignoreErrors()
        }
        #expect(ran.load(ordering: .relaxed) == 100)
        #expect(counter.alive == 0)
    }

    /// The step that runs a box's handlers takes over the count its caller held on the box
    /// rather than taking its own: the count of an `on: nil` operator's handler, of a `then`
    /// following a pending promise (`Box.forward`), of a queued chain's tail. When the box has no
    /// handlers there is no step, and the caller gives its count back. The step made by `seal`
    /// (a resolver, a guarantee, `async(.promise)`) holds none, its caller keeping the box. A
    /// count kept twice leaves a tracker alive; one given back twice is a use after free.
    @Test func stepsTakeOverTheirCallersCountsOrBorrowTheBox() {
        let counter = LifetimeCounter()
        let queue = TestQueues.serial("steps.handed")
        let values = Atomic<Int>(0)
        rounds(50, on: queue, counter: counter) { gate, _, group in
            // `on: nil` operators, whose boxes have handlers or none.
            _ = gate.map(on: nil) { $0 }
            group.enter()
            gate.map(on: nil) { $0 }.map(on: nil) { $0 }.done(on: nil) { _ in group.leave() }.ignoreErrors()
            // `then` following a promise still pending when the body returns it.
            let (inner, innerResolver) = Promise<LifetimeTracker>.pending()
            _ = gate.then(on: nil) { _ in inner }
            group.enter()
            gate.then(on: nil) { _ in inner }.map(on: nil) { $0 }.done(on: nil) { _ in group.leave() }.ignoreErrors()
            gate.done(on: nil) { _ in innerResolver.fulfill(LifetimeTracker(counter)) }.ignoreErrors()
            // Queued chains, whose tails take the counts, ending in boxes with handlers or none.
            _ = gate.map(on: queue) { $0 }.map(on: queue) { $0 }
            group.enter()
            gate.map(on: queue) { $0 }.map(on: queue) { $0 }.done(on: nil) { _ in group.leave() }.ignoreErrors()
            // Boxes sealed by `seal`: a guarantee's and `async(.promise)`'s.
            let (guarantee, resolve) = Guarantee<LifetimeTracker>.pending()
            group.enter()
            guarantee.map(on: nil) { $0 }.done(on: nil) { _ in
                values.add(1, ordering: .relaxed)
                group.leave()
            }
            gate.done(on: nil) { resolve($0) }.ignoreErrors()
            group.enter()
            queue.async(.promise) { LifetimeTracker(counter) }.map(on: nil) { $0 }.done(on: nil) { _ in
                values.add(1, ordering: .relaxed)
                group.leave()
            }
        }
        #expect(values.load(ordering: .relaxed) == 100)
        #expect(counter.alive == 0)
    }

    /// Inside a tail, which holds its input's firing count, queued handlers are attached to that
    /// input (settled by then) and to the tail's own promise, and everything is dropped.
    @Test func attachingInsideATailToTheInputItHolds() {
        let counter = LifetimeCounter()
        let queue = TestQueues.serial("steps.inside")
        rounds(50, on: queue, counter: counter) { gate, _, group in
            let inBlock = gate.map(on: queue) { $0 }
            group.enter()
            inBlock.map(on: queue) { value -> LifetimeTracker in
                group.enter()
                inBlock.map(on: queue) { $0 }.map(on: queue) { $0 }
                    .done(on: queue) { _ in group.leave() }.ignoreErrors()
                return value
            }.map(on: queue) { $0 }.done(on: queue) { _ in group.leave() }.ignoreErrors()
        }
        #expect(counter.alive == 0)
    }

    /// Six queued handlers on one box that nobody but its handlers holds (a handler list, whose
    /// targets are moved out as they run), the first becoming the tail, on a concurrent queue:
    /// half act on the result, half pass it on, for fulfilments and rejections alike.
    @Test func aListOfQueuedHandlersOnABoxNobodyHolds() {
        let counter = LifetimeCounter()
        let queue = TestQueues.concurrent("steps.list")
        rounds(50, on: queue, counter: counter) { gate, round, group in
            let inBlock = gate.map(on: queue) { value -> LifetimeTracker in
                if round.isMultiple(of: 2) { throw TrackedError(tracker: value) }
                return value
            }
            for index in 0..<6 {
                group.enter()
                let promise =
                    index.isMultiple(of: 2)
                    ? inBlock.map(on: queue) { $0 }
                    : inBlock.recover(on: queue) { _ in Promise.value(LifetimeTracker(counter)) }
                promise.ensure(on: queue) { group.leave() }.ignoreErrors()
            }
        }
        #expect(counter.alive == 0)
    }

    /// A rejection reaching `map(on: queue)` passes through inline, without a hop.
    @Test func rejectionsThatSkipTheHop() {
        let counter = LifetimeCounter()
        let queue = TestQueues.serial("steps.rejected")
        let group = DispatchGroup()
        do {
            let settled = Promise<Int>(error: TrackedError(tracker: LifetimeTracker(counter)))
            let (pending, resolver) = Promise<Int>.pending()
            for input in [settled, pending] {
                for _ in 0..<10 {
                    group.enter()
                    input.map(on: queue) { $0 + 1 }
                        .then(on: queue) { Promise.value($0) }
                        .map(on: queue, flags: .barrier) { $0 }
                        .catch(on: queue, policy: .allErrors) { _ in group.leave() }
                }
            }
            resolver.reject(TrackedError(tracker: LifetimeTracker(counter)))
        }
        #expect(waited(group))
        queue.drain()
        #expect(counter.alive == 0)
    }

    /// Thenables outside Pledge get their hops through `pipe(to:)`, as closures that keep their
    /// box; these call each handler twice, and one is already resolved.
    @Test func queuedHandlersOnThenablesOutsidePledge() {
        let counter = LifetimeCounter()
        let queue = TestQueues.serial("steps.foreign")
        let group = DispatchGroup()
        do {
            let pending = ForeignThenable<LifetimeTracker>(callingEachHandler: 2)
            let settled = ForeignThenable<LifetimeTracker>(callingEachHandler: 2)
            settled.resolve(.success(LifetimeTracker(counter)))
            for foreign in [pending, settled] {
                for _ in 0..<10 {
                    group.enter()
                    foreign.map(on: queue) { $0 }.then(on: queue) { _ in foreign }
                        .done(on: queue) { _ in group.leave() }.ignoreErrors()
                    group.enter()
                    when(fulfilled: [foreign.map(on: queue) { $0 }, foreign.map(on: queue) { $0 }])
                        .done(on: queue) { _ in group.leave() }.ignoreErrors()
                }
            }
            pending.resolve(.success(LifetimeTracker(counter)))
        }
        #expect(waited(group))
        queue.drain()
        #expect(counter.alive == 0)
    }

    /// Two threads attach queued handlers, and drop what they return, while the promise fires
    /// inside a block on the handlers' queue: hops become tails, tails are dispatched early.
    @Test func attachingFromTwoThreadsWhileThePromiseFiresInABlock() {
        let counter = LifetimeCounter()
        for round in 0..<100 {
            let queue =
                round.isMultiple(of: 2) ? TestQueues.serial("steps.stress") : TestQueues.concurrent("steps.stress")
            let group = DispatchGroup()
            let start = DispatchSemaphore(value: 0)
            do {
                let (gate, resolver) = Promise<LifetimeTracker>.pending()
                let inBlock = gate.map(on: queue) { $0 }
                for thread in 0..<2 {
                    group.enter()
                    DispatchQueue.global().async {
                        _ = start.wait(timeout: .testTimeout)
                        for index in 0..<20 {
                            group.enter()
                            let promise =
                                (index + thread).isMultiple(of: 3)
                                ? inBlock.map(on: queue, flags: .barrier) { $0 } : inBlock.map(on: queue) { $0 }
                            _ = promise.map(on: queue) { $0 }
                            promise.done(on: queue) { _ in group.leave() }.ignoreErrors()
                        }
                        group.leave()
                    }
                }
                resolver.fulfill(LifetimeTracker(counter))
                start.signal()
                start.signal()
            }
            #expect(finished(group, on: queue))
        }
        #expect(counter.alive == 0)
    }
}
