import Pledge
import Testing

@Suite struct CatchPolicyTests {
    @Test func pmkErrorCancelledIsACancellation() {
        let error: Error = PMKError.cancelled

        #expect(error.isCancelled)
    }

    @Test func swiftConcurrencysCancellationErrorIsACancellation() {
        let error: Error = CancellationError()

        #expect(error.isCancelled)
    }

    @Test func aCancellableErrorIsACancellationWhenItSaysSo() {
        let cancelled: Error = TestCancellableError(isCancelled: true)
        let failed: Error = TestCancellableError(isCancelled: false)

        #expect(cancelled.isCancelled)
        #expect(!failed.isCancelled)
    }

    /// Compiles because every `Error` has an `isCancelled`; before `CancellableError` had a
    /// default of its own, that one stood in and called itself until the stack overflowed.
    struct ForgetfulCancellableError: CancellableError {}

    @Test func aCancellableErrorThatLeavesOutIsCancelledIsAFailure() {
        let error: Error = ForgetfulCancellableError()

        #expect(!error.isCancelled)
        #expect(!ForgetfulCancellableError().isCancelled)
    }

    @Test func catchUnderTheDefaultPolicyReceivesACancellableErrorThatLeavesOutIsCancelled() {
        let caught = AtomicFlag()

        Promise<Int>(error: ForgetfulCancellableError()).catch(on: nil) { _ in caught.set() }

        #expect(caught.isSet)
    }

    @Test func anyOtherErrorIsNotACancellation() {
        let error: Error = TestError.boom

        #expect(!error.isCancelled)
    }

    static let errors: [any Error & Sendable] = [
        PMKError.cancelled, CancellationError(), TestCancellableError(isCancelled: true),
        TestCancellableError(isCancelled: false), TestError.boom, PMKError.badInput,
    ]

    @Test(arguments: errors)
    func allErrorsHandsEveryErrorToCatchAndRecover(error: any Error & Sendable) {
        let caught = AtomicFlag()

        Promise<Int>(error: error).catch(on: nil, policy: .allErrors) { _ in caught.set() }
        let recovered = Promise<Int>(error: error).recover(on: nil, policy: .allErrors) { _ in Promise.value(1) }

        #expect(caught.isSet)
        #expect(recovered.value == 1)
    }

    @Test(arguments: errors)
    func allErrorsExceptCancellationHandsOnlyNonCancellationsToCatchAndRecover(error: any Error & Sendable) {
        let caught = AtomicFlag()

        Promise<Int>(error: error).catch(on: nil, policy: .allErrorsExceptCancellation) { _ in caught.set() }
        let recovered = Promise<Int>(error: error).recover(on: nil, policy: .allErrorsExceptCancellation) { _ in
            Promise.value(1)
        }

        #expect(caught.isSet == !error.isCancelled)
        #expect(recovered.isFulfilled == !error.isCancelled)
        #expect(recovered.error?.isCancelled ?? false == error.isCancelled)
    }
}
