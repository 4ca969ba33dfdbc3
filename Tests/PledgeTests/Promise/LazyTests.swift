import Foundation
import Pledge
import Synchronization
import Testing

/// `Promise.lazy` and `Guarantee.lazy`: the body runs once, on the first attachment's thread.
@Suite struct LazyTests {
    /// Counts the runs of a lazy body and remembers the thread of the last one.
    final class BodyLog: Sendable {
        private let count = AtomicCounter()
        private let lastThread = Locked<pthread_t?>(nil)

        var runs: Int { count.value }
        var thread: pthread_t? { lastThread.value }

        func ran() {
            count.increment()
            lastThread.value = pthread_self()
        }

        /// Whether the body ran once, on the calling thread.
        var ranOnceHere: Bool {
            guard runs == 1, let thread else { return false }
            return pthread_equal(thread, pthread_self()) != 0
        }
    }

    /// A lazy promise whose body logs its run and fulfils with `value` at once.
    static func lazyValue(_ value: Int = 7, _ log: BodyLog) -> Promise<Int> {
        Promise.lazy { seal in
            log.ran()
            seal.fulfill(value)
        }
    }

    // MARK: not starting

    @Test func readingTheStateDoesNotStartTheBody() {
        let log = BodyLog()
        let promise = Self.lazyValue(7, log)
        let guaranteeLog = BodyLog()
        let guarantee = Guarantee<Int>.lazy { resolve in
            guaranteeLog.ran()
            resolve(1)
        }

        _ = (promise.isPending, promise.isResolved, promise.value, promise.error, promise.result)
        _ = (promise.description, promise.debugDescription, String(reflecting: promise))
        _ = (guarantee.isPending, guarantee.value, guarantee.result, guarantee.description)

        #expect(log.runs == 0 && guaranteeLog.runs == 0)
        #expect(promise.isPending && guarantee.isPending)
    }

    // MARK: starting

    @Test func theFirstAttachmentRunsTheBodyOnceOnItsThreadRightAfterItsHandler() {
        let log = BodyLog()
        let promise = Self.lazyValue(7, log)
        let seen = Locked<[Int]>([])

        promise.pipe { result in
            let value = (try? result.get()) ?? -1
            seen.withLock { $0.append(value) }
        }
        // The body fulfilled synchronously: the handler attached first has run already.
        #expect(log.ranOnceHere)
        #expect(seen.value == [7])

        promise.done(on: nil) { _ in seen.withLock { $0.append(8) } }.cauterize()
        #expect(log.runs == 1)
        #expect(seen.value == [7, 8])
    }

    /// The ways a lazy promise gets its first handler.
    enum Attachment: String, CaseIterable, Sendable {
        case map, done, pipe, `catch`, get, recover, ensure, when, whenTuple, race, thenFollowingIt
    }

    @Test(arguments: Attachment.allCases)
    func eachKindOfAttachmentStartsTheBody(_ attachment: Attachment) {
        let log = BodyLog()
        let lazy = Self.lazyValue(7, log)
        let got = Locked<Int?>(nil)

        switch attachment {
        case .map: lazy.map(on: nil) { got.value = $0 }.cauterize()
        case .done: lazy.done(on: nil) { got.value = $0 }.cauterize()
        case .pipe: lazy.pipe { got.value = try? $0.get() }
        case .catch: lazy.catch(on: nil) { _ in }
        case .get: lazy.get(on: nil) { got.value = $0 }.cauterize()
        case .recover: lazy.recover(on: nil) { _ in Promise.value(0) }.done(on: nil) { got.value = $0 }.cauterize()
        case .ensure: lazy.ensure(on: nil) {}.done(on: nil) { got.value = $0 }.cauterize()
        case .when: when(fulfilled: [lazy]).done(on: nil) { got.value = $0[0] }.cauterize()
        case .whenTuple: when(fulfilled: lazy, Promise.value(1)).done(on: nil) { got.value = $0.0 }.cauterize()
        case .race:
            let (never, resolver) = Promise<Int>.pending()
            race(lazy, never).done(on: nil) { got.value = $0 }.cauterize()
            resolver.fulfill(0)
        case .thenFollowingIt:
            Promise.value(1).then(on: nil) { _ in lazy }.done(on: nil) { got.value = $0 }.cauterize()
        }

        #expect(log.ranOnceHere)
        #expect(lazy.value == 7)
        if attachment != .catch { #expect(got.value == 7) }
    }

    @Test func waitOnAnotherThreadStartsTheBodyOnThatThread() {
        let log = BodyLog()
        let lazy = Self.lazyValue(7, log)
        let onWaiter = AtomicFlag()
        let waited = Locked<Int?>(nil)

        let finished = RendezvousThreads.run(count: 1, timeout: 30) { _ in
            waited.value = try? lazy.wait()
            if log.ranOnceHere { onWaiter.set() }
        }

        #expect(finished)
        #expect(waited.value == 7)
        #expect(onWaiter.isSet)
    }

    @Test func awaitingStartsTheBody() async throws {
        let log = BodyLog()
        let lazy = Self.lazyValue(7, log)
        #expect(log.runs == 0)

        let value = try await lazy.async()

        #expect(value == 7)
        #expect(log.runs == 1)
    }

    @Test func aBodyThatResolvesLaterResolvesThePromise() {
        let stored = Locked<Resolver<Int>?>(nil)
        let lazy = Promise<Int>.lazy { stored.value = $0 }
        let got = Locked<Int?>(nil)

        lazy.done(on: nil) { got.value = $0 }.cauterize()
        #expect(lazy.isPending)
        stored.value?.fulfill(3)

        #expect(got.value == 3)
    }

    // MARK: errors and cancellation

    @Test func aThrowingBodyRejectsThePromise() {
        let lazy = Promise<Int>.lazy { _ in throw TestError.boom }

        #expect(lazy.isPending)
        lazy.catch(on: nil) { _ in }

        #expect(lazy.error as? TestError == .boom)
    }

    @Test func aBodyThatThrowsAfterFulfillingKeepsTheValue() {
        let lazy = Promise<Int>.lazy { seal in
            seal.fulfill(1)
            throw TestError.boom
        }

        lazy.cauterize()

        #expect(lazy.value == 1)
    }

    @Test func cancellingBeforeTheStartNeverRunsTheBodyAndReleasesIt() {
        let log = BodyLog()
        let counter = LifetimeCounter()
        let lazy: Promise<Int> = {
            let tracker = LifetimeTracker(counter)
            return Promise.lazy { seal in
                tracker.touch()
                log.ran()
                seal.fulfill(1)
            }
        }()
        #expect(counter.alive == 1)

        lazy.cancel()
        #expect(counter.alive == 0)
        let outcome = Locked<Bool?>(nil)
        lazy.pipe { result in
            if case .failure(let error) = result {
                outcome.value = error as? PMKError == .cancelled
            } else {
                outcome.value = false
            }
        }
        _ = try? lazy.wait()

        #expect(log.runs == 0)
        #expect(lazy.isCancelled)
        #expect(outcome.value == true)
    }

    @Test func aThenCancelledBeforeItsClosureReturnsTheLazyPromiseNeverStartsIt() {
        let log = BodyLog()
        let lazy = Self.lazyValue(7, log)
        let (head, resolver) = Promise<Int>.pending()
        let follower = head.then(on: nil) { _ in lazy }

        follower.cancel()
        resolver.fulfill(1)

        #expect(log.runs == 0)
        #expect(follower.isCancelled)
    }

    @Test func cancellingAfterTheStartDoesNotRunTheBodyAgain() {
        let stored = Locked<Resolver<Int>?>(nil)
        let log = BodyLog()
        let lazy = Promise<Int>.lazy { seal in
            log.ran()
            stored.value = seal
        }
        lazy.cauterize()

        lazy.cancel()
        stored.value?.fulfill(1)
        lazy.cauterize()

        #expect(log.runs == 1)
        #expect(lazy.isCancelled)
    }

    @Test func aLazyPromiseNothingAttachesToIsFreedWithItsBodyUnrun() {
        let log = BodyLog()
        let counter = LifetimeCounter()
        do {
            let tracker = LifetimeTracker(counter)
            let lazy = Promise<Int>.lazy { seal in
                tracker.touch()
                log.ran()
                seal.fulfill(1)
            }
            #expect(lazy.isPending)
        }

        #expect(counter.alive == 0)
        #expect(log.runs == 0)
    }

    // MARK: Guarantee.lazy

    @Test func aLazyGuaranteeStartsOnItsFirstAttachmentOnItsThread() {
        let log = BodyLog()
        let guarantee = Guarantee<Int>.lazy { resolve in
            log.ran()
            resolve(5)
        }
        let got = Locked<[Int]>([])
        #expect(log.runs == 0)

        guarantee.done(on: nil) { value in got.withLock { $0.append(value) } }
        guarantee.map(on: nil) { $0 + 1 }.done(on: nil) { value in got.withLock { $0.append(value) } }

        #expect(log.ranOnceHere)
        #expect(got.value == [5, 6])
    }

    @Test func aLazyGuaranteeStartsOnWaitOnAnotherThread() {
        let log = BodyLog()
        let guarantee = Guarantee<Int>.lazy { resolve in
            log.ran()
            resolve(5)
        }
        let onWaiter = AtomicFlag()
        let waited = Locked<Int?>(nil)

        let finished = RendezvousThreads.run(count: 1, timeout: 30) { _ in
            waited.value = guarantee.wait()
            if log.ranOnceHere { onWaiter.set() }
        }

        #expect(finished)
        #expect(waited.value == 5)
        #expect(onWaiter.isSet)
    }

    @Test func aLazyGuaranteeStartsWhenAwaited() async {
        let log = BodyLog()
        let guarantee = Guarantee<Int>.lazy { resolve in
            log.ran()
            resolve(5)
        }

        let value = await guarantee.async()

        #expect(value == 5)
        #expect(log.runs == 1)
    }

    @Test func aLazyGuaranteeNothingAttachesToIsFreedWithItsBodyUnrun() {
        let log = BodyLog()
        let counter = LifetimeCounter()
        do {
            let tracker = LifetimeTracker(counter)
            let guarantee = Guarantee<Int>.lazy { resolve in
                tracker.touch()
                log.ran()
                resolve(1)
            }
            #expect(guarantee.isPending)
        }

        #expect(counter.alive == 0)
        #expect(log.runs == 0)
    }
}

extension ConfigurationTests {
    /// What lazy promises and guarantees log; here because capturing the log replaces a
    /// process-wide handler (see ``ConfigurationTests``).
    @Suite struct LazyLogTests {
        @Test func aLazyPromiseNothingAttachesToLogsNothing() {
            LogCapture.capture { log in
                do {
                    let promise = Promise<Int>.lazy { $0.fulfill(1) }
                    let guarantee = Guarantee<Int>.lazy { $0(1) }
                    #expect(promise.isPending && guarantee.isPending)
                }

                #expect(log.eventsFromThisTest(ofKind: .pendingPromiseDeallocated).isEmpty)
                #expect(log.eventsFromThisTest(ofKind: .pendingGuaranteeDeallocated).isEmpty)
            }
        }

        @Test func aLazyPromiseCancelledBeforeItStartsLogsNothing() {
            LogCapture.capture { log in
                do {
                    let promise = Promise<Int>.lazy { $0.fulfill(1) }
                    promise.cancel()
                    promise.cauterize()
                }

                #expect(log.eventsFromThisTest(ofKind: .pendingPromiseDeallocated).isEmpty)
            }
        }

        @Test func aLazyBodyThatResolvesLaterLogsNothing() {
            LogCapture.capture { log in
                let stored = Locked<Resolver<Int>?>(nil)
                do {
                    let promise = Promise<Int>.lazy { stored.value = $0 }
                    promise.cauterize()
                }
                stored.value?.fulfill(1)
                stored.value = nil

                #expect(log.eventsFromThisTest(ofKind: .pendingPromiseDeallocated).isEmpty)
            }
        }

        @Test func aLazyBodyThatDropsItsResolverLogsAsAPendingPromiseDoes() {
            LogCapture.capture { log in
                do {
                    let promise = Promise<Int>.lazy { _ in }
                    promise.cauterize()
                }

                #expect(log.eventsFromThisTest(ofKind: .pendingPromiseDeallocated).count == 1)
            }
        }
    }
}

extension LazyTests {
    /// A lazy body starts inside the attachment that needs it; a chain of lazy promises, each
    /// piping the one before in its body, starts them from the thread's run loop, so that its
    /// length does not grow the stack.
    @Test func aChainOfFiftyThousandLazyPromisesEachPipingThePreviousKeepsTheStackFlat() {
        let value = Locked<Int?>(nil)
        let finished = onASmallStack {
            var last = Promise<Int>.value(0)
            for _ in 0..<50_000 {
                let previous = last
                last = Promise.lazy { seal in previous.pipe { seal.resolve($0.map { $0 + 1 }) } }
            }
            last.pipe { value.value = try? $0.get() }
        }
        #expect(finished)
        #expect(value.value == 50_000)
    }
}
