import Pledge
import Testing

@Suite struct StateTests {
    @Test func aPendingPromiseHasNoValueNorErrorAndIsNeitherFulfilledNorRejected() {
        let (promise, resolver) = Promise<Int>.pending()

        #expect(promise.value == nil)
        #expect(promise.error == nil)
        #expect(promise.result == nil)
        #expect(promise.isPending)
        #expect(!promise.isResolved)
        #expect(!promise.isFulfilled)
        #expect(!promise.isRejected)
        resolver.fulfill(0)
    }

    @Test func aFulfilledPromiseHasItsValueAndNoError() {
        let promise = Promise.value(8)

        #expect(promise.value == 8)
        #expect(promise.error == nil)
        #expect(!promise.isPending)
        #expect(promise.isResolved)
        #expect(promise.isFulfilled)
        #expect(!promise.isRejected)
    }

    @Test func aRejectedPromiseHasItsErrorAndNoValue() {
        let promise = Promise<Int>(error: TestError.boom)

        #expect(promise.value == nil)
        #expect(promise.error as? TestError == .boom)
        #expect(!promise.isPending)
        #expect(promise.isResolved)
        #expect(!promise.isFulfilled)
        #expect(promise.isRejected)
    }

    @Test func statePropertiesFollowAPromiseAsItResolves() {
        let (promise, resolver) = Promise<String>.pending()
        #expect(promise.isPending)

        resolver.fulfill("now")

        #expect(promise.isFulfilled)
        #expect(promise.value == "now")
    }

    @Test func aGuaranteeIsPendingUntilItHasItsValueAndThenFulfilled() {
        let (guarantee, resolve) = Guarantee<Int>.pending()
        #expect(guarantee.isPending)
        #expect(guarantee.value == nil)
        #expect(guarantee.error == nil)

        resolve(3)

        #expect(guarantee.isResolved)
        #expect(guarantee.isFulfilled)
        #expect(!guarantee.isRejected)
        #expect(guarantee.value == 3)
        #expect(guarantee.error == nil)
    }

    @Test func aFulfilledValueOfOptionalTypeIsStillAValue() {
        let promise = Promise<Int?>.value(nil)

        #expect(promise.isFulfilled)
        #expect(promise.value == .some(nil))
    }
}
