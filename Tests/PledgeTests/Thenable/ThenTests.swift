import Dispatch
import Pledge
import Testing

@Suite struct ThenTests {
    @Test func thenResolvesAsThePromiseItsBodyReturns() {
        let (inner, innerResolver) = Promise<String>.pending()

        let chained = Promise.value(1).then(on: nil) { _ in inner }

        #expect(chained.isPending)
        innerResolver.fulfill("done")
        #expect(chained.value == "done")
    }

    @Test func thenPassesTheValueToItsBody() {
        let chained = Promise.value(20).then(on: nil) { Promise.value($0 + 1) }

        #expect(chained.value == 21)
    }

    @Test func thenRejectsWhenThePromiseItsBodyReturnsRejects() {
        let chained = Promise.value(1).then(on: nil) { _ in Promise<Int>(error: TestError.boom) }

        #expect(chained.error as? TestError == .boom)
    }

    @Test func thenRejectsWithTheErrorItsBodyThrows() {
        let chained = Promise.value(1).then(on: nil) { _ -> Promise<Int> in throw TestError.boom }

        #expect(chained.error as? TestError == .boom)
    }

    @Test func thenContinuesWithAGuaranteeAndYieldsAPromise() {
        let chained = Promise.value(2).then(on: nil) { Guarantee.value($0 * 3) }

        #expect(type(of: chained) == Promise<Int>.self)
        #expect(chained.value == 6)
    }

    @Test func thenContinuesWithAThenableFromOutsidePledge() {
        let foreign = ForeignThenable<Int>()

        let chained = Promise.value(1).then(on: nil) { _ in foreign }

        #expect(chained.isPending)
        foreign.resolve(.success(42))
        #expect(chained.value == 42)
    }

    @Test func thenReturningItsOwnResultPromiseRejectsWithReturnedSelf() {
        let (promise, resolver) = Promise<Int>.pending()
        let own = Locked<Promise<Int>?>(nil)

        let chained = promise.then(on: nil) { _ in own.value! }
        own.value = chained
        resolver.fulfill(1)

        #expect(chained.error as? PMKError == .returnedSelf)
        own.value = nil
    }

    @Test func aRejectionSkipsThenWithoutDispatching() async {
        let queue = TestQueues.serial("then.suspended")
        queue.suspend()

        await confirmation(expectedCount: 0) { bodyRan in
            let chained = Promise<Int>(error: TestError.boom).then(on: queue) { value -> Promise<Int> in
                bodyRan()
                return Promise.value(value)
            }
            // The queue is suspended: had the rejection been dispatched, it would not be here yet.
            #expect(chained.error as? TestError == .boom)
            queue.resume()
            queue.drain()
        }
    }

    @Test func aLaterRejectionSkipsThenWithoutDispatching() {
        let queue = TestQueues.serial("then.suspended-later")
        let (promise, resolver) = Promise<Int>.pending()
        let chained = promise.then(on: queue) { Promise.value($0) }
        queue.suspend()

        resolver.reject(TestError.boom)

        #expect(chained.error as? TestError == .boom)
        queue.resume()
    }

    @Test func thenRunsItsBodyOnTheGivenQueue() {
        let queue = TestQueues.serial("then.target")

        let chained = Promise.value(1).then(on: queue) { _ in Promise.value(TestQueues.isOn(queue)) }

        #expect(chained.settledValue() == true)
    }

    @Test func thenOnAQueueDispatchesEvenWhenAlreadyFulfilled() {
        // Attaching from the handler queue itself: a dispatched body cannot start before the
        // attaching block ends, so `ran` must still be unset when it is checked.
        let queue = TestQueues.serial("then.zalgo")
        let ran = AtomicFlag()
        let done = DispatchSemaphore(value: 0)

        let ranWhileAttaching = queue.sync {
            _ = Promise.value(1).then(on: queue) { value -> Promise<Int> in
                ran.set()
                done.signal()
                return Promise.value(value)
            }
            return ran.isSet
        }

        #expect(!ranWhileAttaching)
        #expect(done.wait(timeout: .testTimeout) == .success)
        #expect(ran.isSet)
    }

    @Test func thenOnNilRunsInlineWhenAlreadyFulfilled() {
        let ran = AtomicFlag()

        let chained = Promise.value(1).then(on: nil) { value -> Promise<Int> in
            ran.set()
            return Promise.value(value)
        }

        #expect(ran.isSet)
        #expect(chained.value == 1)
    }

    @Test func thenOnNilRunsOnTheThreadThatFulfils() {
        let resolving = TestQueues.serial("then.resolving")
        let (promise, resolver) = Promise<Int>.pending()

        let chained = promise.then(on: nil) { _ in Promise.value(TestQueues.isOn(resolving)) }
        resolving.async { resolver.fulfill(1) }

        #expect(chained.settledValue() == true)
    }

    @Test func thenWaitsForAnInnerPromiseResolvedOnAnotherQueue() {
        let other = TestQueues.serial("then.inner")

        let chained = Promise.value(1).then(on: nil) { value in
            Promise<Int> { seal in other.async { seal.fulfill(value + 1) } }
        }

        #expect(chained.settledValue() == 2)
    }
}
