import Dispatch
import Pledge
import Testing

extension TimeTests {
    @Suite struct DelayTests {
        @Test(arguments: [0.02, 0.05])
        func theValueNeverArrivesEarly(seconds: Double) throws {
            let earliest = timeNow() + UInt64(seconds * 1_000_000_000)

            let settled = try #require(Promise.value("late").delay(seconds: seconds).timedResult())

            #expect(settled.result.successValue == "late")
            #expect(settled.at >= earliest)
        }

        @Test func anIntervalDelaysLikeSeconds() throws {
            let earliest = timeNow() + timeNanoseconds(.milliseconds(30))

            let settled = try #require(Promise.value(1).delay(.milliseconds(30)).timedResult())

            #expect(settled.result.successValue == 1)
            #expect(settled.at >= earliest)
        }

        @Test func theWaitStartsWhenThePromiseIsFulfilled() throws {
            // Given a delay attached well before its promise is fulfilled
            let (head, resolver) = Promise<Int>.pending()
            let delayed = head.delay(.milliseconds(40))
            timeLetTimersRun(milliseconds: 60)
            #expect(delayed.isPending)

            // When the promise is fulfilled
            let fulfilledAt = timeNow()
            resolver.fulfill(9)

            // Then the whole wait still comes after that
            let settled = try #require(delayed.timedResult())
            #expect(settled.result.successValue == 9)
            #expect(settled.at >= fulfilledAt + timeNanoseconds(.milliseconds(40)))
        }

        @Test func aRejectionPassesAtOnce() {
            #expect(Promise<Int>(error: TestError.boom).delay(seconds: 3_600).error as? TestError == .boom)

            let (head, resolver) = Promise<Int>.pending()
            let delayed = head.delay(.seconds(3_600))
            resolver.reject(TestError.other)

            // Inline, on the rejecting thread: settled before `reject` returned.
            #expect(delayed.error as? TestError == .other)
        }

        @Test(arguments: [0, -1, -Double.infinity])
        func zeroOrNegativeSecondsDeliverPromptly(seconds: Double) {
            #expect(Promise.value(4).delay(seconds: seconds).settledValue() == 4)
        }

        @Test func aNegativeIntervalDeliversPromptly() {
            #expect(Promise.value(4).delay(.milliseconds(-10)).settledValue() == 4)
        }

        @Test func aGuaranteeDelaysIntoAGuaranteeNeverEarly() throws {
            let earliest = timeNow() + timeNanoseconds(.milliseconds(20))

            let delayed = Guarantee.value("g").delay(.milliseconds(20))
            let settled = try #require(delayed.timedResult())

            #expect(comboStaticType(delayed) == "Guarantee<String>")
            #expect(comboStaticType(Guarantee.value(1).delay(seconds: 0.01)) == "Guarantee<Int>")
            #expect(settled.result.successValue == "g")
            #expect(settled.at >= earliest)
        }

        @Test func aGuaranteeCanStillAskForThePromiseForm() {
            let delayed: Promise<Int> = Guarantee.value(2).delay(seconds: 0.01)

            #expect(delayed.settledValue() == 2)
        }

        @Test func cancellingWhileHoldingTheValueRejectsItAndTheValueNeverArrives() {
            let delayed = Promise.value(1).delay(.milliseconds(20))

            delayed.cancel()

            #expect(delayed.isCancelled)
            timeLetTimersRun(milliseconds: 60)
            #expect(delayed.isCancelled)
        }

        @Test func cancellingWhileThePromiseIsPendingIgnoresItsLaterValue() {
            let (head, resolver) = Promise<Int>.pending()
            let delayed = head.delay(seconds: 0.01)

            delayed.cancel()
            resolver.fulfill(1)

            #expect(delayed.isCancelled)
            timeLetTimersRun(milliseconds: 40)
            #expect(delayed.isCancelled)
        }

        @Test
        func cancellingWhileThePromiseIsPendingCancelsAPromiseNothingElseDependsOn() {
            let (head, _) = Promise<Int>.pending()

            head.delay(seconds: 3_600).cancel()

            #expect(head.isCancelled)
        }
    }
}

extension Result {
    /// The value of a success; `nil` for a failure.
    var successValue: Success? {
        guard case .success(let value) = self else { return nil }
        return value
    }
}
