import Dispatch
import Pledge
import Testing

@Suite struct RecoverTests {
    // MARK: recover returning a thenable, giving a Promise

    @Test func recoverContinuesWithThePromiseItsBodyReturns() {
        let (inner, innerResolver) = Promise<Int>.pending()

        let recovered = Promise<Int>(error: TestError.boom).recover(on: nil, policy: .allErrors) { _ in inner }

        #expect(recovered.isPending)
        innerResolver.fulfill(5)
        #expect(recovered.value == 5)
    }

    @Test func recoverGivesItsBodyTheError() {
        let recovered = Promise<Int>(error: TestError.numbered(3)).recover(on: nil, policy: .allErrors) { error in
            guard case TestError.numbered(let number)? = error as? TestError else { throw error }
            return Promise.value(number)
        }

        #expect(recovered.value == 3)
    }

    @Test func recoverRejectsWithTheErrorItsBodyThrows() {
        let recovered = Promise<Int>(error: TestError.boom).recover(on: nil, policy: .allErrors) { _ -> Promise<Int> in
            throw TestError.other
        }

        #expect(recovered.error as? TestError == .other)
    }

    @Test func recoverPassesAFulfilmentOnWithoutDispatching() async {
        let queue = TestQueues.serial("recover.suspended")
        queue.suspend()

        await confirmation(expectedCount: 0) { bodyRan in
            let recovered = Promise.value(1).recover(on: queue, policy: .allErrors) { _ -> Promise<Int> in
                bodyRan()
                return Promise.value(2)
            }
            #expect(recovered.value == 1)
            queue.resume()
            queue.drain()
        }
    }

    @Test func recoverRunsOnTheGivenQueueAndDispatchesEvenWhenAlreadyRejected() {
        let queue = TestQueues.serial("recover.target")
        queue.suspend()

        let recovered = Promise<Bool>(error: TestError.boom).recover(on: queue, policy: .allErrors) { _ in
            Promise.value(TestQueues.isOn(queue))
        }

        #expect(recovered.isPending)
        queue.resume()
        #expect(recovered.settledValue() == true)
    }

    @Test func recoverWithThePolicyThatSkipsCancellationsLetsThemPass() async {
        await confirmation(expectedCount: 0) { bodyRan in
            let recovered = Promise<Int>(error: PMKError.cancelled)
                .recover(on: nil, policy: .allErrorsExceptCancellation) { _ -> Promise<Int> in
                    bodyRan()
                    return Promise.value(1)
                }
            #expect(recovered.error as? PMKError == .cancelled)
        }
    }

    @Test func recoverWithAllErrorsRecoversFromCancellations() {
        let recovered = Promise<Int>(error: CancellationError()).recover(on: nil, policy: .allErrors) { _ in
            Promise.value(1)
        }

        #expect(recovered.value == 1)
    }

    @Test func recoverReturningItsOwnResultPromiseRejectsWithReturnedSelf() {
        let (promise, resolver) = Promise<Int>.pending()
        let own = Locked<Promise<Int>?>(nil)

        let recovered = promise.recover(on: nil, policy: .allErrors) { _ in own.value! }
        own.value = recovered
        resolver.reject(TestError.boom)

        #expect(recovered.error as? PMKError == .returnedSelf)
        own.value = nil
    }

    @Test func recoverCanContinueWithAThenableFromOutsidePledge() {
        let foreign = ForeignThenable<Int>()

        let recovered = Promise<Int>(error: TestError.boom).recover(on: nil, policy: .allErrors) { _ in foreign }
        foreign.resolve(.success(8))

        #expect(recovered.value == 8)
    }

    // MARK: recover returning a Guarantee, giving a Guarantee

    @Test func recoverWithAGuaranteeYieldsAGuarantee() {
        let recovered = Promise<Int>(error: TestError.boom).recover(on: nil) { _ in Guarantee.value(4) }

        #expect(type(of: recovered) == Guarantee<Int>.self)
        #expect(recovered.value == 4)
    }

    @Test func recoverWithAGuaranteeRecoversFromCancellationsToo() {
        let recovered = Promise<Int>(error: PMKError.cancelled).recover(on: nil) { _ in Guarantee.value(4) }

        #expect(recovered.value == 4)
    }

    @Test func recoverWithAGuaranteePassesAFulfilmentOn() {
        let recovered = Promise.value(1).recover(on: nil) { _ in Guarantee.value(4) }

        #expect(recovered.value == 1)
    }

    @Test func recoverWithAGuaranteeWaitsForIt() {
        let (inner, resolve) = Guarantee<Int>.pending()

        let recovered = Promise<Int>(error: TestError.boom).recover(on: nil) { _ in inner }

        #expect(recovered.isPending)
        resolve(6)
        #expect(recovered.value == 6)
    }

    @Test func recoverWithAGuaranteeRunsOnTheGivenQueueAndDispatchesEvenWhenAlreadyRejected() {
        let queue = TestQueues.serial("recover-guarantee.target")
        queue.suspend()

        let recovered = Promise<Bool>(error: TestError.boom).recover(on: queue) { _ in
            Guarantee.value(TestQueues.isOn(queue))
        }

        #expect(recovered.isPending)
        queue.resume()
        #expect(recovered.settledValue() == true)
    }

    // MARK: recover for Void promises

    @Test func voidRecoverWithANonThrowingBodyYieldsAGuarantee() {
        let ran = AtomicFlag()

        let recovered = Promise<Void>(error: TestError.boom).recover(on: nil) { _ in ran.set() }

        #expect(type(of: recovered) == Guarantee<Void>.self)
        #expect(ran.isSet)
        #expect(recovered.isFulfilled)
    }

    @Test func voidRecoverWithANonThrowingBodyHandlesCancellations() {
        let ran = AtomicFlag()

        let recovered = Promise<Void>(error: PMKError.cancelled).recover(on: nil) { _ in ran.set() }

        #expect(ran.isSet)
        #expect(recovered.isFulfilled)
    }

    @Test func voidRecoverWithAThrowingBodyYieldsAPromise() {
        let recovered = Promise<Void>(error: TestError.boom).recover(on: nil, policy: .allErrors) { error in
            guard error as? TestError == .boom else { throw error }
        }

        #expect(type(of: recovered) == Promise<Void>.self)
        #expect(recovered.isFulfilled)
    }

    @Test func voidRecoverRejectsWithTheErrorItsBodyThrows() {
        let recovered = Promise<Void>(error: TestError.boom).recover(on: nil, policy: .allErrors) { _ in
            throw TestError.other
        }

        #expect(recovered.error as? TestError == .other)
    }

    @Test func voidRecoverWithThePolicyThatSkipsCancellationsLetsThemPass() async {
        await confirmation(expectedCount: 0) { bodyRan in
            let recovered = Promise<Void>(error: PMKError.cancelled)
                .recover(on: nil, policy: .allErrorsExceptCancellation) { (_: Error) throws in bodyRan() }
            #expect(recovered.error as? PMKError == .cancelled)
        }
    }

    @Test func voidRecoverRunsOnTheGivenQueue() {
        let queue = TestQueues.serial("recover-void.target")
        let onQueue = Locked<Bool?>(nil)

        let recovered = Promise<Void>(error: TestError.boom).recover(on: queue) { _ in
            onQueue.value = TestQueues.isOn(queue)
        }

        #expect(recovered.settledResult() != nil)
        #expect(onQueue.value == true)
    }

    @Test func voidRecoverPassesAFulfilmentOn() async {
        await confirmation(expectedCount: 0) { bodyRan in
            let guaranteed = Promise<Void>().recover(on: nil) { _ in bodyRan() }
            let promised = Promise<Void>().recover(on: nil, policy: .allErrors) { (_: Error) throws in bodyRan() }
            #expect(guaranteed.isFulfilled)
            #expect(promised.isFulfilled)
        }
    }
}
