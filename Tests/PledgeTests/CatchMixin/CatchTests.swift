import Dispatch
import Pledge
import Testing

@Suite struct CatchTests {
    @Test func catchReceivesTheError() {
        let caught = Locked<TestError?>(nil)

        Promise<Int>(error: TestError.boom).catch(on: nil, policy: .allErrors) { caught.value = $0 as? TestError }

        #expect(caught.value == .boom)
    }

    @Test func catchReceivesAnErrorThrownAnywhereEarlierInTheChain() {
        let caught = Locked<TestError?>(nil)

        Promise.value(1)
            .map(on: nil) { $0 + 1 }
            .map(on: nil) { _ -> Int in throw TestError.other }
            .map(on: nil) { $0 + 1 }
            .done(on: nil) { _ in }
            .catch(on: nil, policy: .allErrors) { caught.value = $0 as? TestError }

        #expect(caught.value == .other)
    }

    @Test func catchIsNotCalledWhenThePromiseIsFulfilled() async {
        await confirmation(expectedCount: 0) { caught in
            _ = Promise.value(1).catch(on: nil, policy: .allErrors) { _ in caught() }
        }
    }

    @Test func catchRunsOnTheGivenQueueAndDispatchesEvenWhenAlreadyRejected() {
        let queue = TestQueues.serial("catch.target")
        queue.suspend()
        let onQueue = Locked<Bool?>(nil)
        let done = DispatchSemaphore(value: 0)

        Promise<Int>(error: TestError.boom).catch(on: queue, policy: .allErrors) { _ in
            onQueue.value = TestQueues.isOn(queue)
            done.signal()
        }

        #expect(onQueue.value == nil)
        queue.resume()
        #expect(done.wait(timeout: .testTimeout) == .success)
        #expect(onQueue.value == true)
    }

    @Test func catchOnAFulfilledPromiseDispatchesNothing() {
        // Nothing to catch: the finalizer completes at once, even with the queue suspended.
        let queue = TestQueues.serial("catch.fulfilled")
        queue.suspend()
        defer { queue.resume() }
        let finallyRan = AtomicFlag()

        Promise.value(1).catch(on: queue, policy: .allErrors) { _ in }.finally(on: nil) { finallyRan.set() }

        #expect(finallyRan.isSet)
    }

    @Test(arguments: [
        PMKError.cancelled as any Error & Sendable,
        CancellationError(),
        TestCancellableError(isCancelled: true),
    ])
    func catchWithThePolicyThatSkipsCancellationsIgnoresThem(cancellation: any Error & Sendable) async {
        await confirmation(expectedCount: 0) { caught in
            _ = Promise<Int>(error: cancellation).catch(on: nil, policy: .allErrorsExceptCancellation) { _ in caught() }
        }
    }

    @Test(arguments: [
        PMKError.cancelled as any Error & Sendable,
        CancellationError(),
        TestCancellableError(isCancelled: true),
    ])
    func catchWithAllErrorsReceivesCancellations(cancellation: any Error & Sendable) async {
        await confirmation { caught in
            _ = Promise<Int>(error: cancellation).catch(on: nil, policy: .allErrors) { error in
                #expect(error.isCancelled)
                caught()
            }
        }
    }

    @Test func catchWithThePolicyThatSkipsCancellationsStillReceivesOtherErrors() async {
        await confirmation(expectedCount: 2) { caught in
            Promise<Int>(error: TestError.boom).catch(on: nil, policy: .allErrorsExceptCancellation) { _ in caught() }
            Promise<Int>(error: TestCancellableError(isCancelled: false))
                .catch(on: nil, policy: .allErrorsExceptCancellation) { _ in caught() }
        }
    }
}

extension ConfigurationTests {
    /// `catch` and `recover` without a `policy:` read `conf.catchPolicy`, which only this
    /// serialized suite may rely on.
    @Suite struct DefaultCatchPolicyTests {
        @Test func catchSkipsCancellationsByDefault() async {
            await confirmation(expectedCount: 0) { caught in
                _ = Promise<Int>(error: PMKError.cancelled).catch(on: nil) { _ in caught() }
            }
        }

        @Test func catchReceivesOtherErrorsByDefault() async {
            await confirmation { caught in
                _ = Promise<Int>(error: TestError.boom).catch(on: nil) { _ in caught() }
            }
        }

        @Test func recoverLetsCancellationsPassByDefault() {
            let recovered = Promise<Int>(error: CancellationError()).recover(on: nil) { _ in Promise.value(1) }

            #expect(recovered.error is CancellationError)
        }

        @Test func voidRecoverLetsCancellationsPassByDefault() {
            let recovered = Promise<Void>(error: PMKError.cancelled).recover(on: nil) { (_: Error) throws in }

            #expect(recovered.error as? PMKError == .cancelled)
        }
    }
}
