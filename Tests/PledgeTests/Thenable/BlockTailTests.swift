import Dispatch
import Pledge
import Testing

/// A box resolved by a handler on a queue (the second link of a chain on one queue, in a block of
/// its own) fires its handlers in that block. These pin down what that must keep: every handler,
/// in attachment order, including one attached while the box fires, and the handler's closure
/// released before them.
@Suite struct BlockTailTests {
    /// A promise resolved by a block's tail: the second link of a chain of two `map(on: queue)`,
    /// whose first link runs in a block of its own once `resolver` is fulfilled.
    private func resolvedByATail(on queue: DispatchQueue, _ body: @escaping @Sendable (Int) throws -> Int)
        -> (Promise<Int>, Resolver<Int>)
    {
        let (gate, resolver) = Promise<Int>.pending()
        return (gate.map(on: queue) { $0 }.map(on: queue, body), resolver)
    }

    @Test func aBoxResolvedByATailRunsEveryHandlerInOrderWithOneAttachedWhileItFires() {
        let queue = TestQueues.serial("tail.order")
        let events = Recorder<String>()
        let finished = DispatchSemaphore(value: 0)
        let (promise, resolver) = resolvedByATail(on: queue) { $0 + 1 }
        promise.done(on: nil) { value in
            events.append("first \(value)")
            // Attached while the box fires, on the firing thread: it waits for the others.
            promise.done(on: nil) { value in
                events.append("third \(value)")
                finished.signal()
            }.ignoreErrors()
        }.ignoreErrors()
        promise.done(on: nil) { value in events.append("second \(value)") }.ignoreErrors()
        resolver.fulfill(1)

        #expect(finished.wait(timeout: .testTimeout) == .success)
        #expect(events.all == ["first 2", "second 2", "third 2"])
    }

    @Test func aTailReleasesItsClosureBeforeItsBoxsHandlersRun() {
        let queue = TestQueues.serial("tail.release")
        let counter = LifetimeCounter()
        let aliveInHandler = Recorder<Int>()
        let finished = DispatchSemaphore(value: 0)
        let (promise, resolver): (Promise<Int>, Resolver<Int>) = {
            let tracker = LifetimeTracker(counter)
            return resolvedByATail(on: queue) { value in
                tracker.touch()
                return value + 1
            }
        }()
        promise.done(on: nil) { _ in
            aliveInHandler.append(counter.alive)
            finished.signal()
        }.ignoreErrors()
        resolver.fulfill(1)

        #expect(finished.wait(timeout: .testTimeout) == .success)
        #expect(aliveInHandler.all == [0])
    }

    @Test func aBoxResolvedByATailWithNoHandlersKeepsItsValueForLaterOnes() {
        let queue = TestQueues.serial("tail.none")
        let finished = DispatchSemaphore(value: 0)
        let (promise, resolver) = resolvedByATail(on: queue) { $0 + 1 }
        resolver.fulfill(1)
        // The first link's block queues the second link's before it ends, so the second has
        // ended once a second empty block has run.
        queue.sync {}
        queue.sync {}
        #expect(promise.value == 2)

        let seen = Recorder<Int>()
        promise.done(on: nil) { value in
            seen.append(value)
            finished.signal()
        }.ignoreErrors()
        #expect(finished.wait(timeout: .testTimeout) == .success)
        #expect(seen.all == [2])
    }

    @Test func aTailThatThrowsRejectsItsBoxAndRunsItsHandlers() {
        let queue = TestQueues.serial("tail.throw")
        let caught = Recorder<String>()
        let finished = DispatchSemaphore(value: 0)
        let (promise, resolver) = resolvedByATail(on: queue) { _ in throw TailError.failed }
        promise.catch(on: nil) { error in
            caught.append("\(error)")
            finished.signal()
        }
        resolver.fulfill(1)

        #expect(finished.wait(timeout: .testTimeout) == .success)
        #expect(caught.all == ["failed"])
    }

    private enum TailError: Error {
        case failed
    }
}
