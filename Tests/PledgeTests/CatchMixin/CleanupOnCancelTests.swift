import Dispatch
import Pledge
import Testing

/// `ensure`, `ensureThen` and `finally` run their closure exactly once however the chain ends,
/// cancellation included: cancelled before the input settles, while the operator's block waits
/// on its queue, from the finalizer, by propagation from a dependent, after the input's resolver
/// was dropped.
@Suite struct CleanupOnCancelTests {
    @Test func ensureCancelledBeforeItsInputSettlesRunsItsClosureOnce() {
        let runs = AtomicCounter()
        let (promise, resolver) = Promise<Int>.pending()

        let ensured = promise.ensure(on: nil) { _ = runs.increment() }
        ensured.cancel()

        #expect(runs.value == 1)
        #expect(ensured.isCancelled)
        #expect(promise.isCancelled)
        resolver.fulfill(1)
        #expect(runs.value == 1)
    }

    @Test func ensureCancelledFromTheFinalizerRunsItsClosureOnceOnItsQueue() {
        let queue = TestQueues.serial("cleanup.finalizer")
        let ran = CompletionCount(expecting: 1)
        let onQueue = Locked<Bool?>(nil)
        let (promise, _) = Promise<Int>.pending()

        let finalizer =
            promise
            .ensure(on: queue) {
                onQueue.value = TestQueues.isOn(queue)
                ran.complete()
            }
            .done(on: nil) { _ in }
            .catch(on: nil) { _ in }
        finalizer.cancel()

        #expect(ran.wait())
        queue.drain()
        #expect(ran.completed == 1)
        #expect(onQueue.value == true)
        #expect(promise.isCancelled)
    }

    @Test func ensureCancelledWhileItsBlockWaitsOnTheQueueStillRunsIt() {
        let queue = TestQueues.serial("cleanup.queued")
        queue.suspend()
        let runs = AtomicCounter()
        let (promise, resolver) = Promise<Int>.pending()

        let ensured = promise.ensure(on: queue) { _ = runs.increment() }
        resolver.fulfill(1)
        ensured.cancel()
        #expect(runs.value == 0)
        queue.resume()
        queue.drain()

        #expect(runs.value == 1)
        #expect(ensured.isCancelled)
    }

    @Test func ensureWithdrawnFromAnInputOthersDependOnRunsAtOnceAndNotAgain() {
        let runs = AtomicCounter()
        let (promise, resolver) = Promise<Int>.pending()
        let other = promise.map(on: nil) { $0 + 1 }

        let ensured = promise.ensure(on: nil) { _ = runs.increment() }.map(on: nil) { $0 * 2 }
        ensured.cancel()
        #expect(runs.value == 1)
        #expect(promise.isPending)
        resolver.fulfill(1)

        #expect(other.value == 2)
        #expect(runs.value == 1)
    }

    @Test func ensureOfAnInputWhoseResolverWasDroppedRunsOnceItIsCancelled() {
        let runs = AtomicCounter()
        var resolver: Resolver<Int>?
        let promise = Promise<Int> { resolver = $0 }
        let ensured = promise.ensure(on: nil) { _ = runs.increment() }

        resolver = nil
        #expect(runs.value == 0)
        ensured.cancel()

        #expect(runs.value == 1)
        #expect(ensured.isCancelled)
        withExtendedLifetime(resolver) {}
    }

    @Test func ensureThenCancelledBeforeItsInputSettlesRunsItsClosureOnce() {
        let runs = AtomicCounter()
        let (promise, resolver) = Promise<Int>.pending()
        let (cleanup, _) = Guarantee<Void>.pending()

        let ensured = promise.ensureThen(on: nil) {
            _ = runs.increment()
            return cleanup
        }
        ensured.cancel()

        #expect(runs.value == 1)
        #expect(ensured.isCancelled)
        resolver.fulfill(1)
        #expect(runs.value == 1)
    }

    @Test func finallyRunsOnceWhenTheChainIsCancelledFromItsFinalizer() {
        let ran = CompletionCount(expecting: 1)
        let (promise, _) = Promise<Int>.pending()

        let finalizer = promise.done(on: nil) { _ in }.catch(on: nil) { _ in }
        finalizer.finally(on: nil) { ran.complete() }
        finalizer.cancel()

        #expect(ran.completed == 1)
        #expect(promise.isCancelled)
    }

    @Test func ensureThroughADispatcherRunsThereWhenCancelled() {
        let dispatcher = ManualDispatcher()
        let runs = AtomicCounter()
        let (promise, _) = Promise<Int>.pending()

        let ensured = promise.ensure(on: dispatcher) { _ = runs.increment() }
        ensured.cancel()
        #expect(runs.value == 0)
        dispatcher.runAll()

        #expect(runs.value == 1)
    }

    @Test func aChainThatNeverEndsRunsNoCleanupAndFreesIt() {
        let counter = LifetimeCounter()
        let runs = AtomicCounter()
        do {
            let tracker = LifetimeTracker(counter)
            let (promise, _) = Promise<Int>.pending()
            _ = promise.ensure(on: nil) {
                tracker.touch()
                _ = runs.increment()
            }
        }

        #expect(runs.value == 0)
        #expect(counter.alive == 0)
    }

    /// Cancelling races the input's fulfilment from another thread: the closure runs exactly
    /// once in every round, whichever wins.
    @Test func cancellingWhileTheInputIsFulfilledRunsTheClosureExactlyOnce() {
        let rounds = 2_000
        let queue = TestQueues.concurrent("cleanup.race")
        let finished = CompletionCount(expecting: rounds)
        let runs = (0..<rounds).map { _ in AtomicCounter() }
        for round in 0..<rounds {
            let (promise, resolver) = Promise<Int>.pending()
            let ensured = promise.ensure(on: round.isMultiple(of: 2) ? nil : queue) {
                _ = runs[round].increment()
                finished.complete()
            }
            let start = DispatchSemaphore(value: 0)
            queue.async {
                start.wait()
                resolver.fulfill(round)
            }
            start.signal()
            ensured.cancel()
        }

        #expect(finished.wait())
        queue.sync(flags: .barrier) {}
        #expect(runs.allSatisfy { $0.value == 1 })
    }
}
