import Dispatch
import Pledge
import Testing

extension TimeTests {
    @Suite struct TimeoutTests {
        @Test func aFulfilledPromiseWinsAtOnce() {
            let result = Promise.value(7).timeout(seconds: 10)

            #expect(result.value == 7)
        }

        @Test func aRejectionWinsAtOnceAndPassesAsIs() {
            let result = Promise<Int>(error: TestError.boom).timeout(.seconds(10))

            #expect(result.error as? TestError == .boom)
        }

        @Test func aPromiseThatSettlesInTimeGivesItsResult() {
            let (head, resolver) = Promise<String>.pending()
            let result = head.timeout(seconds: 10)
            #expect(result.isPending)

            DispatchQueue.global().async { resolver.fulfill("in time") }

            #expect(result.settledValue() == "in time")
        }

        @Test(arguments: [0.02, 0.05])
        func aPromiseThatDoesNotSettleInTimeTimesOutNeverEarly(seconds: Double) throws {
            let (head, resolver) = Promise<Int>.pending()
            let earliest = timeNow() + UInt64(seconds * 1_000_000_000)

            let settled = try #require(head.timeout(seconds: seconds).timedResult())

            #expect(timeIsPMKError(settled.result.failureError, .timedOut))
            #expect(settled.at >= earliest)
            resolver.fulfill(0)
        }

        @Test func anIntervalTimesOutLikeSeconds() throws {
            let (head, resolver) = Promise<Int>.pending()
            let earliest = timeNow() + timeNanoseconds(.milliseconds(30))

            let settled = try #require(head.timeout(.milliseconds(30)).timedResult())

            #expect(timeIsPMKError(settled.result.failureError, .timedOut))
            #expect(settled.at >= earliest)
            resolver.fulfill(0)
        }

        @Test func aSettlementAfterTheTimeoutChangesNothing() {
            let (head, resolver) = Promise<Int>.pending()
            let result = head.timeout(seconds: 0.01)
            #expect(timeIsPMKError(result.settledError(), .timedOut))

            resolver.fulfill(1)

            #expect(timeIsPMKError(result.error, .timedOut))
        }

        @Test(arguments: [-1.0, 0, -Double.greatestFiniteMagnitude])
        func zeroOrNegativeSecondsTimeOutPromptly(seconds: Double) {
            let (head, resolver) = Promise<Int>.pending()

            #expect(timeIsPMKError(head.timeout(seconds: seconds).settledError(), .timedOut))
            resolver.fulfill(0)
        }

        @Test func aNegativeIntervalTimesOutPromptly() {
            let (head, resolver) = Promise<Int>.pending()

            #expect(timeIsPMKError(head.timeout(.milliseconds(-5)).settledError(), .timedOut))
            resolver.fulfill(0)
        }

        @Test func aPromiseSettledAlreadyBeatsAZeroTimeout() {
            #expect(Promise.value(1).timeout(seconds: -1).value == 1)
            #expect(Promise.value(2).timeout(.seconds(0)).value == 2)
        }

        @Test func infinityNeverTimesOut() {
            let (head, resolver) = Promise<Int>.pending()
            let bySeconds = head.timeout(seconds: .infinity)
            let byInterval = head.timeout(.never)
            let tooLong = head.timeout(seconds: 1e300)

            timeLetTimersRun(milliseconds: 50)
            #expect(bySeconds.isPending)
            #expect(byInterval.isPending)
            #expect(tooLong.isPending)

            resolver.fulfill(5)
            #expect(bySeconds.value == 5)
            #expect(byInterval.value == 5)
            #expect(tooLong.value == 5)
        }

        @Test func aGuaranteeTimesOutIntoAPromise() {
            let (guarantee, resolve) = Guarantee<Int>.pending()

            let late = guarantee.timeout(seconds: 0.01)
            #expect(comboStaticType(late) == "Promise<Int>")
            #expect(timeIsPMKError(late.settledError(), .timedOut))

            let prompt = Guarantee.value(3).timeout(seconds: 10)
            #expect(prompt.value == 3)
            resolve(0)
        }

        @Test func cancellingTheResultRejectsItAndIgnoresALaterSettlement() {
            let (head, resolver) = Promise<Int>.pending()
            let result = head.timeout(seconds: 3_600)

            result.cancel()

            #expect(result.isCancelled)
            resolver.fulfill(1)
            #expect(result.isCancelled)
        }

        @Test func aPromiseSomethingElseDependsOnKeepsGoingAfterATimeout() {
            let (head, resolver) = Promise<Int>.pending()
            let other = head.map(on: nil) { $0 * 2 }

            #expect(timeIsPMKError(head.timeout(seconds: 0.01).settledError(), .timedOut))

            #expect(head.isPending)
            resolver.fulfill(21)
            #expect(other.value == 42)
        }

        @Test
        func aTimeoutCancelsAPromiseNothingElseDependsOn() {
            let (head, _) = Promise<Int>.pending()

            #expect(timeIsPMKError(head.timeout(seconds: 0.01).settledError(), .timedOut))

            #expect(head.isCancelled)
        }

        @Test
        func cancellingTheResultCancelsAPromiseNothingElseDependsOn() {
            let (head, _) = Promise<Int>.pending()

            head.timeout(seconds: 3_600).cancel()

            #expect(head.isCancelled)
        }
    }
}

extension Result {
    /// The error of a failure; `nil` for a success.
    var failureError: Failure? {
        guard case .failure(let error) = self else { return nil }
        return error
    }
}
