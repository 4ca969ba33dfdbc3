import Dispatch
import Pledge
import Testing

/// Pledge must not keep closures or promises alive longer than needed: a box drops its handlers
/// once it has run them, and nothing in a chain points back up the chain.
///
/// Weak references are taken in helper functions, so that no strong local outlives the part of
/// the test that needs it.
@Suite struct LifetimeTests {
    @Test func handlerClosuresAreReleasedOnceAnInlineChainResolves() {
        let counter = LifetimeCounter()
        let (head, resolver) = Promise<Int>.pending()
        let tail = buildChain(from: head, capturing: counter, on: nil)
        #expect(counter.alive == 5)

        resolver.fulfill(0)

        #expect(tail.value == 5)
        #expect(counter.alive == 0)
    }

    @Test func handlerClosuresAreReleasedOnceAChainOnAQueueResolves() {
        let counter = LifetimeCounter()
        let queue = TestQueues.serial("lifetime.queue")
        let (head, resolver) = Promise<Int>.pending()
        let tail = buildChain(from: head, capturing: counter, on: queue)

        resolver.fulfill(0)

        #expect(tail.settledValue() == 5)
        queue.drain()  // the dispatched block is released after it returns
        #expect(counter.alive == 0)
    }

    @Test func aPromiseReleasesItsHandlersOnceResolvedEvenWhileItIsStillHeld() {
        let counter = LifetimeCounter()
        let (promise, resolver) = Promise<Int>.pending()
        attachThreeHandlers(to: promise, capturing: counter)
        #expect(counter.alive == 3)

        resolver.fulfill(1)

        #expect(counter.alive == 0)
        #expect(promise.value == 1)
    }

    @Test(arguments: [false, true])
    func everyOperatorsClosureIsReleasedOnceItHasRunEvenWhileItsOwnPromiseIsHeld(onQueue: Bool) {
        // An operator keeps its closure in the box of the promise it returns until the input
        // resolves; holding that promise must not keep the closure (and its captures) alive
        // after it has run.
        let counter = LifetimeCounter()
        let queue: DispatchQueue? = onQueue ? TestQueues.serial("lifetime.held") : nil
        let (head, resolver) = Promise<Int>.pending()
        let held = holdEveryOperator(after: head, capturing: counter, on: queue)
        #expect(counter.alive == held.promises.count)

        resolver.fulfill(1)

        #expect((try? held.last.settledResult()?.get()) != nil)
        queue?.drain()
        #expect(counter.alive == 0)
        withExtendedLifetime(held) {}
    }

    @Test func theClosuresOfOperatorsOnAnAbandonedPromiseAreReleasedEvenWhileTheirPromisesAreHeld() {
        // Several operators on one promise (so its handlers are kept in a list); the promise and
        // its resolver go away unresolved while the operators' promises are still held.
        let counter = LifetimeCounter()
        let held: [AnyObject]
        do {
            let (head, resolver) = Promise<Int>.pending()
            let (t1, t2, t3, t4) = (
                LifetimeTracker(counter), LifetimeTracker(counter), LifetimeTracker(counter),
                LifetimeTracker(counter)
            )
            held = [
                head.map(on: nil) {
                    t1.touch()
                    return $0
                },
                head.then(on: nil) { value -> Promise<Int> in
                    t2.touch()
                    return .value(value)
                },
                head.done(on: nil) { _ in t3.touch() },
                head.recover(on: nil) { _ -> Promise<Int> in
                    t4.touch()
                    return .value(0)
                },
            ]
            #expect(counter.alive == 4)
            _ = resolver
        }

        #expect(counter.alive == 0)
        withExtendedLifetime(held) {}
    }

    @Test func anOperatorOnAForeignThenableThatIsFreedUnresolvedReleasesItsClosure() {
        // The closure captures an object that holds the operator's own promise. A thenable
        // outside Pledge cannot tell the operator it will never call it, so the closure must go
        // with the thenable's handler, or that cycle would never be broken.
        let counter = LifetimeCounter()
        do {
            let foreign = ForeignThenable<Int>()
            let owner = PromiseOwner(LifetimeTracker(counter))
            owner.promise = foreign.map(on: nil) { value in
                owner.tracker.touch()
                return value
            }
            #expect(counter.alive == 1)
        }

        #expect(counter.alive == 0)
    }

    @Test func intermediatePromisesAreReleasedOnceTheChainResolves() {
        let (head, resolver) = Promise<Int>.pending()
        let (tail, weakLinks) = buildChainKeepingWeakLinks(from: head)
        resolver.fulfill(1)

        #expect(tail.value == 4)
        #expect(weakLinks.allSatisfy { $0.object == nil })
    }

    @Test func theHeadOfAChainIsNotKeptAliveByItsTail() {
        let weakHead: WeakPromise<Int>
        let tail: Promise<Int>
        let resolver: Resolver<Int>
        do {
            let (head, headResolver) = Promise<Int>.pending()
            weakHead = WeakPromise(head)
            tail = head.map(on: nil) { $0 + 1 }
            resolver = headResolver
        }

        #expect(weakHead.object == nil)
        resolver.fulfill(1)
        #expect(tail.value == 2)
    }

    @Test func theInnerPromiseOfThenIsReleasedOnceItResolves() {
        let weakInner = Locked<WeakPromise<Int>?>(nil)
        let (innerResolverBox, tail) = chainWithInnerPromise(recordingWeakInnerIn: weakInner)

        innerResolverBox.value?.fulfill(3)
        innerResolverBox.value = nil

        #expect(tail.value == 3)
        #expect(weakInner.value?.object == nil)
    }

    @Test func aHandlerCapturingItsOwnPromiseDoesNotLeakOnceItResolves() {
        let counter = LifetimeCounter()
        let weakPromise: WeakPromise<Int>
        let resolver: Resolver<Int>
        do {
            let (promise, promiseResolver) = Promise<Int>.pending()
            let tracker = LifetimeTracker(counter)
            // A cycle while pending: promise → box → handler → promise.
            _ = promise.done(on: nil) { _ in
                tracker.touch()
                _ = promise.value
            }
            weakPromise = WeakPromise(promise)
            resolver = promiseResolver
        }
        #expect(weakPromise.object != nil)

        resolver.fulfill(1)

        #expect(weakPromise.object == nil)
        #expect(counter.alive == 0)
    }

    @Test func releasingTheResolverOfAPendingPromiseFreesTheHandlersWaitingOnIt() {
        // The resolver and the promise go away unresolved; the handlers attached to it, and
        // everything they capture, must go with them even though the chain's tail is still held.
        // (Pledge logs `pendingPromiseDeallocated` here; `LogEventTests` checks that.)
        let counter = LifetimeCounter()
        let weakHead: WeakPromise<Int>
        let tail: Promise<Int>
        do {
            let (head, resolver) = Promise<Int>.pending()
            tail = buildChain(from: head, capturing: counter, on: nil)
            weakHead = WeakPromise(head)
            _ = resolver
        }

        #expect(weakHead.object == nil)
        #expect(counter.alive == 0)
        #expect(tail.isPending)
    }

    @Test func releasingTheResolveFunctionOfAPendingGuaranteeFreesTheHandlersWaitingOnIt() {
        let counter = LifetimeCounter()
        let tail: Guarantee<Int>
        do {
            let (guarantee, resolve) = Guarantee<Int>.pending()
            let tracker = LifetimeTracker(counter)
            tail = guarantee.map(on: nil) { value in
                tracker.touch()
                return value
            }
            _ = resolve
        }

        #expect(counter.alive == 0)
        #expect(tail.isPending)
    }

    @Test func catchAndFinallyClosuresAreReleasedOnceTheChainEnds() {
        let counter = LifetimeCounter()
        let (promise, resolver) = Promise<Int>.pending()
        do {
            let caught = LifetimeTracker(counter)
            let finalized = LifetimeTracker(counter)
            promise.catch(on: nil, policy: .allErrors) { _ in caught.touch() }
                .finally(on: nil) { finalized.touch() }
        }
        #expect(counter.alive == 2)

        resolver.reject(TestError.boom)

        #expect(counter.alive == 0)
    }

    @Test func aResolverKeptByAnAsynchronousBodyIsReleasedOnceItHasResolved() {
        let queue = TestQueues.serial("lifetime.resolver")
        let weakResolver = Locked<WeakReference<Resolver<Int>>?>(nil)

        let promise = Promise<Int> { seal in
            weakResolver.value = WeakReference(seal)
            queue.async { seal.fulfill(1) }
        }

        #expect(promise.settledValue() == 1)
        queue.drain()
        #expect(weakResolver.value?.object == nil)
    }
}

/// A weak reference, to check that an object was released.
final class WeakReference<Object: AnyObject & Sendable>: Sendable {
    weak let object: Object?

    init(_ object: Object) {
        self.object = object
    }
}

typealias WeakPromise<T: Sendable> = WeakReference<Promise<T>>

extension LifetimeTests {
    /// Appends five `map` steps that each add one and capture a tracker.
    func buildChain(from head: Promise<Int>, capturing counter: LifetimeCounter, on queue: DispatchQueue?) -> Promise<
        Int
    > {
        var tail = head
        for _ in 0..<5 {
            let tracker = LifetimeTracker(counter)
            tail = tail.map(on: queue) { value in
                tracker.touch()
                return value + 1
            }
        }
        return tail
    }

    /// Every promise `holdEveryOperator` made, and the one that resolves last.
    struct HeldOperators {
        let promises: [AnyObject]
        let last: Promise<Void>
    }

    /// Attaches one of each chaining operator to `head`, every closure capturing a tracker, and
    /// returns every promise they make.
    func holdEveryOperator(
        after head: Promise<Int>, capturing counter: LifetimeCounter, on queue: DispatchQueue?
    ) -> HeldOperators {
        func tracker() -> LifetimeTracker { LifetimeTracker(counter) }
        let (t1, t2, t3, t4, t5, t6, t7, t8, t9) = (
            tracker(), tracker(), tracker(), tracker(), tracker(), tracker(), tracker(), tracker(), tracker()
        )
        let mapped = head.map(on: queue) {
            t1.touch()
            return $0 + 1
        }
        let compact = mapped.compactMap(on: queue) { value -> Int? in
            t2.touch()
            return value
        }
        let then = compact.then(on: queue) { value -> Promise<Int> in
            t3.touch()
            return .value(value)
        }
        let got = then.get(on: queue) { _ in t4.touch() }
        let tapped = got.tap(on: queue) { _ in t5.touch() }
        let recovered = tapped.recover(on: queue) { _ -> Promise<Int> in
            t6.touch()
            return .value(0)
        }
        let ensured = recovered.ensure(on: queue) { t7.touch() }
        let ensuredThen = ensured.ensureThen(on: queue) {
            t8.touch()
            return Guarantee()
        }
        let done = ensuredThen.done(on: queue) { _ in t9.touch() }
        return HeldOperators(
            promises: [mapped, compact, then, got, tapped, recovered, ensured, ensuredThen, done], last: done)
    }

    /// Attaches three handlers of different kinds, each capturing a tracker.
    func attachThreeHandlers(to promise: Promise<Int>, capturing counter: LifetimeCounter) {
        let first = LifetimeTracker(counter)
        let second = LifetimeTracker(counter)
        let third = LifetimeTracker(counter)
        _ = promise.done(on: nil) { _ in first.touch() }
        _ = promise.tap(on: nil) { _ in second.touch() }
        promise.pipe { _ in third.touch() }
    }

    /// Builds three `map` steps after `head`, returning the tail and weak references to the
    /// promises in between.
    func buildChainKeepingWeakLinks(from head: Promise<Int>) -> (Promise<Int>, [WeakPromise<Int>]) {
        var links: [WeakPromise<Int>] = []
        var tail = head
        for _ in 0..<3 {
            tail = tail.map(on: nil) { $0 + 1 }
            links.append(WeakPromise(tail))
        }
        let last = tail.map(on: nil) { $0 }
        return (last, links)
    }

    /// Makes a chain whose `then` returns an inner pending promise, recording a weak reference
    /// to it once the body has run.
    func chainWithInnerPromise(
        recordingWeakInnerIn weakInner: Locked<WeakPromise<Int>?>
    ) -> (Locked<Resolver<Int>?>, Promise<Int>) {
        let innerResolver = Locked<Resolver<Int>?>(nil)
        let tail = Promise.value(1).then(on: nil) { _ -> Promise<Int> in
            let (inner, resolver) = Promise<Int>.pending()
            innerResolver.value = resolver
            weakInner.value = WeakPromise(inner)
            return inner
        }
        return (innerResolver, tail)
    }
}

/// Holds a tracker and a promise, for cycles through a handler's captures.
private final class PromiseOwner: @unchecked Sendable {
    // Safety: `promise` is set once, on the test's thread, before anything can read it.
    let tracker: LifetimeTracker
    var promise: Promise<Int>?

    init(_ tracker: LifetimeTracker) {
        self.tracker = tracker
    }
}
