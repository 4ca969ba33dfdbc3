import Dispatch
import Pledge
import Testing

@Suite struct FinalizerTests {
    @Test func finallyRunsAfterCatchWhenTheChainIsRejected() {
        let order = Recorder<String>()

        Promise<Int>(error: TestError.boom)
            .catch(on: nil, policy: .allErrors) { _ in order.append("catch") }
            .finally(on: nil) { order.append("finally") }

        #expect(order.all == ["catch", "finally"])
    }

    @Test func finallyRunsWhenTheChainIsFulfilledAndCatchDoesNot() {
        let order = Recorder<String>()

        Promise.value(1)
            .catch(on: nil, policy: .allErrors) { _ in order.append("catch") }
            .finally(on: nil) { order.append("finally") }

        #expect(order.all == ["finally"])
    }

    @Test func finallyRunsWhenCatchSkipsACancellation() {
        let order = Recorder<String>()

        Promise<Int>(error: PMKError.cancelled)
            .catch(on: nil, policy: .allErrorsExceptCancellation) { _ in order.append("catch") }
            .finally(on: nil) { order.append("finally") }

        #expect(order.all == ["finally"])
    }

    @Test func finallyWaitsForACatchOnAnotherQueue() {
        let catchQueue = TestQueues.serial("finally.catch")
        let finallyQueue = TestQueues.serial("finally.finally")
        let order = Recorder<String>()
        let done = DispatchSemaphore(value: 0)

        Promise<Int>(error: TestError.boom)
            .catch(on: catchQueue, policy: .allErrors) { _ in order.append("catch") }
            .finally(on: finallyQueue) {
                order.append(TestQueues.isOn(finallyQueue) ? "finally on its queue" : "finally elsewhere")
                done.signal()
            }

        #expect(done.wait(timeout: .testTimeout) == .success)
        #expect(order.all == ["catch", "finally on its queue"])
    }

    @Test func finallyOnAQueueDispatchesEvenWhenTheChainHasEnded() {
        let queue = TestQueues.serial("finally.zalgo")
        let ran = AtomicFlag()
        let done = DispatchSemaphore(value: 0)

        let ranWhileAttaching = queue.sync {
            Promise.value(1).catch(on: nil, policy: .allErrors) { _ in }.finally(on: queue) {
                ran.set()
                done.signal()
            }
            return ran.isSet
        }

        #expect(!ranWhileAttaching)
        #expect(done.wait(timeout: .testTimeout) == .success)
    }

    @Test func finallyAfterAPendingChainWaitsForIt() {
        let (promise, resolver) = Promise<Int>.pending()
        let ran = AtomicFlag()

        promise.catch(on: nil, policy: .allErrors) { _ in }.finally(on: nil) { ran.set() }

        #expect(!ran.isSet)
        resolver.reject(TestError.boom)
        #expect(ran.isSet)
    }

    @Test func finallyAfterCauterizeRuns() {
        let ran = AtomicFlag()

        Promise.value(1).cauterize().finally(on: nil) { ran.set() }

        #expect(ran.isSet)
    }
}
