import Dispatch
import Foundation
import Pledge
import Synchronization
import Testing

/// `Promise.cancel()`, `Resolver.onCancel` and how a cancellation travels up a chain.
@Suite struct CancelTests {
    // MARK: cancel() and isCancelled

    @Test func cancellingAPendingPromiseRejectsItWithCancelled() {
        let (promise, _) = Promise<Int>.pending()

        promise.cancel()

        #expect(promise.isCancelled)
        #expect(promise.error as? PMKError == .cancelled)
    }

    @Test func cancellingAResolvedPromiseLeavesItAsItIs() {
        let fulfilled = Promise.value(1)
        let (rejected, resolver) = Promise<Int>.pending()
        resolver.reject(TestError.boom)

        fulfilled.cancel()
        rejected.cancel()

        #expect(fulfilled.value == 1)
        #expect(rejected.error as? TestError == .boom)
        #expect(!fulfilled.isCancelled && !rejected.isCancelled)
    }

    @Test func cancellingTwiceIsHarmlessAndLaterResolutionsAreIgnored() {
        let (promise, resolver) = Promise<Int>.pending()
        let hooks = Atomic<Int>(0)
        resolver.onCancel { hooks.add(1, ordering: .relaxed) }

        promise.cancel()
        promise.cancel()
        resolver.fulfill(1)
        resolver.reject(TestError.boom)

        #expect(promise.isCancelled)
        #expect(resolver.isCancelled)
        #expect(hooks.load(ordering: .relaxed) == 1)
    }

    @Test func aPromiseRejectedWithACancellationErrorCountsAsCancelled() {
        #expect(Promise<Int>(error: CancellationError()).isCancelled)
        #expect(!Promise<Int>(error: TestError.boom).isCancelled)
    }

    @Test func inlineHandlersLearnOfTheCancellationBeforeCancelReturns() {
        let (promise, _) = Promise<Int>.pending()
        let caught = Locked<Error?>(nil)
        promise.catch(on: nil, policy: .allErrors) { error in caught.withLock { $0 = error } }
        let ranAfter = Locked(false)
        promise.done(on: nil) { _ in ranAfter.withLock { $0 = true } }.catch(on: nil, policy: .allErrors) { _ in }

        promise.cancel()

        #expect(caught.withLock { $0 } as? PMKError == .cancelled)
        #expect(!ranAfter.withLock { $0 })
    }

    @Test func theDefaultCatchPolicySkipsTheCancellation() {
        let (promise, _) = Promise<Int>.pending()
        let caught = Locked(false)
        promise.catch(on: nil) { _ in caught.withLock { $0 = true } }

        promise.cancel()

        #expect(!caught.withLock { $0 })
    }

    // MARK: onCancel

    @Test func onCancelRunsOnceOnTheCancellingThreadBeforeCancelReturns() {
        let (promise, resolver) = Promise<Int>.pending()
        let runs = Locked<[pthread_t]>([])
        resolver.onCancel { runs.withLock { $0.append(pthread_self()) } }

        let cancelled = onAThreadOfItsOwn {
            promise.cancel()
            // Before `cancel()` returned, on this thread.
            let seen = runs.withLock { $0 }
            #expect(seen.count == 1)
            #expect(seen.first.map { pthread_equal($0, pthread_self()) != 0 } == true)
        }

        #expect(cancelled)
        #expect(runs.withLock { $0.count } == 1)
    }

    @Test func onCancelBodiesRunInTheOrderTheyWereRegistered() {
        let (promise, resolver) = Promise<Int>.pending()
        let order = Locked<[Int]>([])
        for index in 0..<5 { resolver.onCancel { order.withLock { $0.append(index) } } }

        promise.cancel()

        #expect(order.withLock { $0 } == [0, 1, 2, 3, 4])
    }

    @Test func onCancelOnACancelledPromiseRunsAtOnce() {
        let (promise, resolver) = Promise<Int>.pending()
        promise.cancel()
        let ran = Locked(false)

        resolver.onCancel { ran.withLock { $0 = true } }

        #expect(ran.withLock { $0 })
    }

    @Test(arguments: [true, false])
    func onCancelNeverRunsWhenThePromiseWasResolvedFirst(fulfil: Bool) {
        let (promise, resolver) = Promise<Int>.pending()
        let ran = Locked(0)
        resolver.onCancel { ran.withLock { $0 += 1 } }

        if fulfil { resolver.fulfill(1) } else { resolver.reject(TestError.boom) }
        promise.cancel()
        resolver.onCancel { ran.withLock { $0 += 1 } }

        #expect(ran.withLock { $0 } == 0)
        #expect(!promise.isCancelled)
        #expect(!resolver.isCancelled)
    }

    @Test func onCancelReleasesItsBodyWhenThePromiseIsFulfilled() {
        let counter = LifetimeCounter()
        let (_, resolver) = Promise<Int>.pending()
        do {
            let tracker = LifetimeTracker(counter)
            resolver.onCancel { tracker.touch() }
        }
        #expect(counter.alive == 1)

        resolver.fulfill(1)

        #expect(counter.alive == 0)
    }

    @Test func onCancelMayCallIntoPledgeWithoutDeadlocking() {
        let (promise, resolver) = Promise<Int>.pending()
        let seen = Locked<Bool?>(nil)
        resolver.onCancel {
            // Reads and attaches to the promise being cancelled, from inside its hook.
            seen.withLock { $0 = promise.isCancelled }
            promise.catch(on: nil, policy: .allErrors) { _ in }
        }

        promise.cancel()

        #expect(seen.withLock { $0 } == true)
    }

    // MARK: Propagation up a chain

    @Test func cancellingTheEndOfAChainCancelsItBackToTheProducer() {
        let (head, resolver) = Promise<Int>.pending()
        let hooks = Atomic<Int>(0)
        resolver.onCancel { hooks.add(1, ordering: .relaxed) }
        let closures = Atomic<Int>(0)
        let middle = head.map(on: nil) { value -> Int in
            closures.add(1, ordering: .relaxed)
            return value
        }
        let end = middle.then(on: nil) { value -> Promise<Int> in
            closures.add(1, ordering: .relaxed)
            return .value(value)
        }

        end.cancel()

        #expect(end.isCancelled && middle.isCancelled && head.isCancelled)
        #expect(hooks.load(ordering: .relaxed) == 1)
        resolver.fulfill(1)
        #expect(closures.load(ordering: .relaxed) == 0)
    }

    @Test func cancellationTravelsThroughEveryKindOfOperator() {
        typealias Link = @Sendable (Promise<Int>) -> Promise<Int>
        let links: [(String, Link)] = [
            ("map", { $0.map(on: nil) { $0 } }),
            ("compactMap", { $0.compactMap(on: nil) { $0 } }),
            ("then", { $0.then(on: nil) { Promise.value($0) } }),
            ("get", { $0.get(on: nil) { _ in } }),
            ("tap", { $0.tap(on: nil) { _ in } }),
            ("recover", { $0.recover(on: nil) { _ in Promise.value(0) } }),
            ("ensure", { $0.ensure(on: nil) {} }),
            ("ensureThen", { $0.ensureThen(on: nil) { Guarantee.value(()) } }),
            ("map on a queue", { $0.map(on: .global()) { $0 } }),
            ("map with flags", { $0.map(on: .global(), flags: .barrier) { $0 } }),
        ]
        for (name, link) in links {
            let (head, resolver) = Promise<Int>.pending()
            let hooks = Atomic<Int>(0)
            resolver.onCancel { hooks.add(1, ordering: .relaxed) }

            let end = link(head)
            end.cancel()

            #expect(head.isCancelled, "\(name)")
            #expect(end.isCancelled, "\(name)")
            #expect(hooks.load(ordering: .relaxed) == 1, "\(name)")
        }
    }

    @Test func cancellingAThenCancelsThePromiseItFollows() {
        let (inner, innerResolver) = Promise<Int>.pending()
        let hooks = Atomic<Int>(0)
        innerResolver.onCancel { hooks.add(1, ordering: .relaxed) }
        let (outer, outerResolver) = Promise<Int>.pending()
        let followed = outer.then(on: nil) { _ in inner }
        outerResolver.fulfill(1)
        #expect(outer.isFulfilled)

        followed.cancel()

        #expect(inner.isCancelled)
        #expect(hooks.load(ordering: .relaxed) == 1)
    }

    @Test func aCatchFinalizerCancelsThePromiseItsCatchWasAttachedTo() {
        let (promise, resolver) = Promise<Int>.pending()
        let hooks = Atomic<Int>(0)
        resolver.onCancel { hooks.add(1, ordering: .relaxed) }
        let caught = Locked(false)
        let finalizer = promise.done(on: nil) { _ in }.catch(on: nil) { _ in caught.withLock { $0 = true } }

        finalizer.cancel()

        #expect(promise.isCancelled)
        #expect(hooks.load(ordering: .relaxed) == 1)
        // The default policy does not hand the cancellation to `catch`.
        #expect(!caught.withLock { $0 })
    }

    @Test func aPromiseAnotherOperatorDependsOnKeepsGoing() {
        let (head, resolver) = Promise<Int>.pending()
        let hooks = Atomic<Int>(0)
        resolver.onCancel { hooks.add(1, ordering: .relaxed) }
        let first = head.map(on: nil) { $0 + 1 }
        let second = head.map(on: nil) { $0 + 2 }

        first.cancel()
        #expect(head.isPending)
        #expect(hooks.load(ordering: .relaxed) == 0)

        resolver.fulfill(1)
        #expect(first.isCancelled)
        #expect(second.value == 3)
    }

    @Test func thePromiseIsCancelledOnceItsLastDependentIs() {
        let (head, resolver) = Promise<Int>.pending()
        let hooks = Atomic<Int>(0)
        resolver.onCancel { hooks.add(1, ordering: .relaxed) }
        let dependents = (0..<3).map { _ in head.map(on: nil) { $0 } }

        dependents[0].cancel()
        dependents[2].cancel()
        #expect(head.isPending)
        dependents[1].cancel()

        #expect(head.isCancelled)
        #expect(hooks.load(ordering: .relaxed) == 1)
    }

    @Test func aPipeOrAWaitKeepsThePromiseGoing() {
        let (head, resolver) = Promise<Int>.pending()
        let piped = Locked<Int?>(nil)
        head.pipe { result in piped.withLock { $0 = try? result.get() } }
        let end = head.map(on: nil) { $0 }

        end.cancel()
        #expect(head.isPending)

        resolver.fulfill(4)
        #expect(piped.withLock { $0 } == 4)
    }

    @Test func aGuaranteeStopsThePropagation() {
        let (guarantee, seal) = Guarantee<Int>.pending()
        let closures = Atomic<Int>(0)
        let promise = guarantee.then(on: nil) { value -> Promise<Int> in
            closures.add(1, ordering: .relaxed)
            return .value(value)
        }
        let bridged = Promise(guarantee).map(on: nil) { $0 }

        promise.cancel()
        bridged.cancel()

        #expect(guarantee.isPending)
        seal(5)
        #expect(guarantee.value == 5)
        #expect(promise.isCancelled && bridged.isCancelled)
        #expect(closures.load(ordering: .relaxed) == 0)
    }

    @Test func cancellingADependentOfAResolvedPromiseChangesNothingUpstream() {
        let head = Promise.value(1)
        let (gate, gateResolver) = Promise<Void>.pending()
        let end = head.then(on: nil) { value in gate.map(on: nil) { _ in value } }

        end.cancel()

        #expect(head.value == 1)
        #expect(gate.isCancelled)
        gateResolver.fulfill(())
        #expect(end.isCancelled)
    }

    // MARK: Closures never run once cancelled

    @Test func aQueuedOperatorCancelledBeforeItsBlockRunsNeverCallsItsClosure() {
        let queue = DispatchQueue(label: "cancel.queued")
        let blocker = DispatchSemaphore(value: 0)
        let blocked = DispatchSemaphore(value: 0)
        queue.async {
            blocked.signal()
            blocker.wait()
        }
        blocked.wait()
        let (head, resolver) = Promise<Int>.pending()
        let called = Atomic<Int>(0)
        let end = head.map(on: queue) { value -> Int in
            called.add(1, ordering: .relaxed)
            return value
        }
        // Its block is queued behind the blocker by now.
        resolver.fulfill(1)

        end.cancel()
        blocker.signal()
        queue.sync {}

        #expect(called.load(ordering: .relaxed) == 0)
        #expect(end.isCancelled)
        #expect(head.value == 1)
    }

    @Test func dispatchQueuePromiseCancelledBeforeItsBlockStartsNeverRunsTheBody() {
        let queue = DispatchQueue(label: "cancel.async-promise")
        let blocker = DispatchSemaphore(value: 0)
        queue.async { blocker.wait() }
        let called = Atomic<Int>(0)
        let promise = queue.async(.promise) { () throws -> Int in
            called.add(1, ordering: .relaxed)
            return 1
        }

        promise.cancel()
        blocker.signal()
        queue.sync {}

        #expect(promise.isCancelled)
        #expect(called.load(ordering: .relaxed) == 0)
    }

    // MARK: Length and stack

    enum LongChain: String, CaseIterable, Sendable {
        /// Alternate `map` and `then` links.
        case operators
        /// Each link follows the one before: `then` on a resolved promise follows at once.
        case follows
    }

    @Test(arguments: LongChain.allCases)
    func cancellingTheEndOfAMillionLinkChainRunsOnASmallStack(_ kind: LongChain) {
        let links = 1_000_000
        let hooks = Atomic<Int>(0)
        let (head, resolver) = Promise<Int>.pending()
        resolver.onCancel { hooks.add(1, ordering: .relaxed) }
        let finished = onASmallStack {
            var end = head
            for index in 0..<links {
                switch kind {
                case .operators:
                    end = index % 2 == 0 ? end.map(on: nil) { $0 } : end.then(on: nil) { Promise.value($0) }
                case .follows:
                    let previous = end
                    end = Promise.value(()).then(on: nil) { previous }
                }
            }
            end.cancel()
            #expect(end.isCancelled)
        }

        #expect(finished)
        #expect(head.isCancelled)
        #expect(hooks.load(ordering: .relaxed) == 1)
    }

    // MARK: Lifetime

    @Test func aCancelledChainReleasesItsClosuresAtOnce() {
        let counter = LifetimeCounter()
        let (head, resolver) = Promise<Int>.pending()
        var end = head
        for _ in 0..<10 {
            let tracker = LifetimeTracker(counter)
            end = end.map(on: nil) { value in
                tracker.touch()
                return value
            }
        }
        let queued: Promise<Int> = {
            let tracker = LifetimeTracker(counter)
            return end.map(on: .global()) { value in
                tracker.touch()
                return value
            }
        }()
        #expect(counter.alive == 11)

        queued.cancel()

        // Nothing is left of the closures, though the resolver and the promises are still held.
        #expect(counter.alive == 0)
        withExtendedLifetime((resolver, end, queued)) {}
    }
}

/// Cancelling the promise of a `when` or a `race` cancels its inputs that nothing else needs.
@Suite struct CancelCombinatorTests {
    private static func producers(_ count: Int) -> ([Promise<Int>], [Resolver<Int>], Locked<Int>) {
        let hooks = Locked(0)
        let pending = (0..<count).map { _ in Promise<Int>.pending() }
        for (_, resolver) in pending { resolver.onCancel { hooks.withLock { $0 += 1 } } }
        return (pending.map(\.promise), pending.map(\.resolver), hooks)
    }

    @Test func cancellingWhenFulfilledCancelsItsPendingInputs() {
        let (promises, resolvers, hooks) = Self.producers(3)
        resolvers[1].fulfill(1)
        let all = when(fulfilled: promises)

        all.cancel()

        #expect(all.isCancelled)
        #expect(promises[0].isCancelled && promises[2].isCancelled)
        #expect(promises[1].value == 1)
        #expect(hooks.withLock { $0 } == 2)
    }

    @Test func anInputSomethingElseNeedsKeepsGoing() {
        let (promises, resolvers, _) = Self.producers(2)
        let other = promises[0].map(on: nil) { $0 * 10 }
        let all = when(fulfilled: promises)

        all.cancel()

        #expect(promises[0].isPending)
        #expect(promises[1].isCancelled)
        resolvers[0].fulfill(2)
        #expect(other.value == 20)
    }

    @Test func cancellingATupleWhenCancelsItsInputsThroughTheirOperators() {
        let (numbers, numberResolver) = Promise<Int>.pending()
        let (words, wordResolver) = Promise<String>.pending()
        let hooks = Atomic<Int>(0)
        numberResolver.onCancel { hooks.add(1, ordering: .relaxed) }
        wordResolver.onCancel { hooks.add(1, ordering: .relaxed) }
        let both = when(fulfilled: numbers, words)

        both.cancel()

        #expect(numbers.isCancelled && words.isCancelled)
        #expect(hooks.load(ordering: .relaxed) == 2)
    }

    @Test func cancellingARaceCancelsEveryInput() {
        let (promises, _, hooks) = Self.producers(3)
        let first = race(promises)
        let (fulfilledPromises, _, fulfilledHooks) = Self.producers(3)
        let firstFulfilled = race(fulfilled: fulfilledPromises)

        first.cancel()
        firstFulfilled.cancel()

        #expect(promises.allSatisfy { $0.isCancelled })
        #expect(fulfilledPromises.allSatisfy { $0.isCancelled })
        #expect(hooks.withLock { $0 } == 3)
        #expect(fulfilledHooks.withLock { $0 } == 3)
    }

    @Test func aWhenOverGuaranteesIsNotCancelledThroughTheGuarantees() {
        let (guarantee, seal) = Guarantee<Int>.pending()
        let all = when(fulfilled: [Promise(guarantee)])

        all.cancel()

        #expect(guarantee.isPending)
        seal(1)
        #expect(guarantee.value == 1)
    }

    @Test func aWhenWhoseInputsAreAbandonedIsFreedAndCancellingItIsHarmless() {
        let counter = LifetimeCounter()
        var all: Promise<[Int]>? = nil
        do {
            let (promise, _) = Promise<Int>.pending()
            let tracker = LifetimeTracker(counter)
            all = when(fulfilled: [
                promise.map(on: nil) { value in
                    tracker.touch()
                    return value
                }
            ])
        }
        // The input's resolver is gone: nothing can resolve it; cancelling must not touch freed
        // memory.
        all?.cancel()
        #expect(all?.isCancelled == true)
        all = nil
        #expect(counter.alive == 0)
    }
}

extension CancelTests {
    @Test func onCancelNeverRunsWhenTheProducerRejectsWithACancellationError() {
        let (promise, resolver) = Promise<Int>.pending()
        let ran = Locked(0)
        resolver.onCancel { ran.withLock { $0 += 1 } }

        resolver.reject(CancellationError())
        resolver.onCancel { ran.withLock { $0 += 1 } }

        #expect(promise.isCancelled)
        #expect(!resolver.isCancelled)
        #expect(ran.withLock { $0 } == 0)
    }
}

extension CancelCombinatorTests {
    /// An iterator of pending promises that records what it made.
    private final class Producers: IteratorProtocol, @unchecked Sendable {
        // Safety: used by the fan-in's puller and, after the test's synchronous calls, by the
        // test itself; never at once.
        let total: Int
        var made: [(promise: Promise<Int>, resolver: Resolver<Int>)] = []
        let hooks = Locked(0)

        init(total: Int) { self.total = total }

        func next() -> Promise<Int>? {
            guard made.count < total else { return nil }
            let pending = Promise<Int>.pending()
            pending.resolver.onCancel { [hooks] in hooks.withLock { $0 += 1 } }
            made.append(pending)
            return pending.promise
        }
    }

    @Test func cancellingWhenConcurrentlyStopsPullingAndCancelsTheInputsInFlight() {
        let producers = Producers(total: 10)
        let all = when(fulfilled: producers, concurrently: 2)
        #expect(producers.made.count == 2)
        producers.made[0].resolver.fulfill(0)
        #expect(producers.made.count == 3)

        all.cancel()

        #expect(all.isCancelled)
        #expect(producers.made[1].promise.isCancelled && producers.made[2].promise.isCancelled)
        #expect(producers.hooks.withLock { $0 } == 2)
        // Nothing more is pulled, however the inputs end.
        for (_, resolver) in producers.made { resolver.fulfill(1) }
        #expect(producers.made.count == 3)
    }
}
