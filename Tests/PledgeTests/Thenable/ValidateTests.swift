import Dispatch
import Pledge
import Testing

@Suite struct ValidateTests {
    @Test func aValidValuePassesOn() {
        #expect(Promise.value(200).validate(on: nil) { (200..<300).contains($0) }.value == 200)
    }

    @Test func anInvalidValueRejectsWithValidationFailedDescribingIt() {
        let result = Promise.value([1, 2]).validate(on: nil) { $0.isEmpty }

        #expect(result.error as? PMKError == .validationFailed("[1, 2]", "Swift.Array<Swift.Int>"))
    }

    @Test func aThrowRejectsWithTheThrownError() {
        let result = Promise.value(1).validate(on: nil) { _ in throw TestError.boom }

        #expect(result.error as? TestError == .boom)
    }

    @Test func aRejectionSkipsTheCheck() {
        let checked = AtomicFlag()

        let result = Promise<Int>(error: TestError.other).validate(on: nil) { _ in
            checked.set()
            return true
        }

        #expect(result.error as? TestError == .other)
        #expect(!checked.isSet)
    }

    @Test func theCheckRunsOnTheGivenQueue() {
        let queue = TestQueues.serial("validate.queue")
        let ranOnQueue = Locked<Bool?>(nil)

        let result = Promise.value("x").validate(on: queue) { _ in
            ranOnQueue.value = TestQueues.isOn(queue)
            return true
        }

        #expect(result.settledValue() == "x")
        #expect(ranOnQueue.value == true)
    }

    @Test func aGuaranteeValidatesIntoAPromise() {
        let result = Guarantee.value(3).validate(on: nil) { $0 > 5 }

        #expect(comboStaticType(result) == "Promise<Int>")
        #expect(result.error as? PMKError == .validationFailed("3", "Swift.Int"))
    }
}
