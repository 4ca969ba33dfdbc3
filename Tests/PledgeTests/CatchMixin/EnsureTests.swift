import Dispatch
import Pledge
import Testing

@Suite struct EnsureTests {
    @Test func ensureRunsWhenFulfilledAndPassesTheValueOn() {
        let ran = AtomicFlag()

        let ensured = Promise.value(1).ensure(on: nil) { ran.set() }

        #expect(ran.isSet)
        #expect(ensured.value == 1)
    }

    @Test func ensureRunsWhenRejectedAndPassesTheErrorOn() {
        let ran = AtomicFlag()

        let ensured = Promise<Int>(error: TestError.boom).ensure(on: nil) { ran.set() }

        #expect(ran.isSet)
        #expect(ensured.error as? TestError == .boom)
    }

    @Test func ensureRunsBeforeTheChainContinues() {
        let order = Recorder<String>()
        let (promise, resolver) = Promise<Int>.pending()

        let finished =
            promise
            .ensure(on: nil) { order.append("ensure") }
            .done(on: nil) { _ in order.append("done") }
        resolver.fulfill(1)

        #expect(order.all == ["ensure", "done"])
        #expect(finished.isFulfilled)
    }

    @Test func ensureRunsOnTheGivenQueueAndDispatchesEvenWhenAlreadyResolved() {
        let queue = TestQueues.serial("ensure.target")
        queue.suspend()
        let onQueue = Locked<Bool?>(nil)

        let ensured = Promise<Int>(error: TestError.boom).ensure(on: queue) { onQueue.value = TestQueues.isOn(queue) }

        #expect(ensured.isPending)
        queue.resume()
        #expect(ensured.settledError() as? TestError == .boom)
        #expect(onQueue.value == true)
    }

    @Test func ensureThenWaitsForTheGuaranteeItsBodyReturns() {
        let (cleanup, finishCleanup) = Guarantee<Void>.pending()
        let (promise, resolver) = Promise<Int>.pending()
        let ran = AtomicFlag()

        let ensured = promise.ensureThen(on: nil) {
            ran.set()
            return cleanup
        }
        resolver.fulfill(1)

        #expect(ran.isSet)
        #expect(ensured.isPending)
        finishCleanup(())
        #expect(ensured.value == 1)
    }

    @Test func ensureThenPassesARejectionOnOnceTheGuaranteeResolves() {
        let (cleanup, finishCleanup) = Guarantee<Void>.pending()

        let ensured = Promise<Int>(error: TestError.boom).ensureThen(on: nil) { cleanup }

        #expect(ensured.isPending)
        finishCleanup(())
        #expect(ensured.error as? TestError == .boom)
    }

    @Test func ensureThenRunsOnTheGivenQueue() {
        let queue = TestQueues.serial("ensureThen.target")
        queue.suspend()
        let onQueue = Locked<Bool?>(nil)

        let ensured = Promise.value(2).ensureThen(on: queue) {
            onQueue.value = TestQueues.isOn(queue)
            return Guarantee()
        }

        #expect(ensured.isPending)
        queue.resume()
        #expect(ensured.settledValue() == 2)
        #expect(onQueue.value == true)
    }
}
