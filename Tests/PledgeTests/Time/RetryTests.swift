import Dispatch
import Pledge
import Testing

extension TimeTests {
    @Suite struct RetryTests {
        /// A body that fails the first `failures` times it is called, then succeeds with the
        /// number of the attempt; it records when each call came.
        final class FlakyBody: Sendable {
            let failures: Int
            let calls = Recorder<UInt64>()

            init(failures: Int) {
                self.failures = failures
            }

            var count: Int { calls.all.count }

            func callAsFunction() -> Promise<Int> {
                calls.append(timeNow())
                let attempt = calls.all.count
                return attempt <= failures ? Promise(error: TestError.numbered(attempt)) : .value(attempt)
            }
        }

        @Test func aFirstSuccessCallsTheBodyOnce() {
            let body = FlakyBody(failures: 0)

            let result = retry { body() }

            #expect(result.settledValue() == 1)
            #expect(body.count == 1)
        }

        @Test func theFirstAttemptStartsAtOnceOnTheCallingThread() {
            let key = DispatchSpecificKey<Int>()
            let queue = DispatchQueue(label: "retry.caller")
            queue.setSpecific(key: key, value: 1)
            let firstRanHere = Locked<Bool?>(nil)
            let (pending, resolver) = Promise<Int>.pending()

            let result = queue.sync {
                retry { () -> Promise<Int> in
                    firstRanHere.withLock { $0 = $0 ?? (DispatchQueue.getSpecific(key: key) == 1) }
                    return pending
                }
            }

            #expect(firstRanHere.value == true)
            resolver.fulfill(3)
            #expect(result.settledValue() == 3)
        }

        @Test(arguments: [1, 2, 3, 5])
        func theFirstFulfilmentWins(failures: Int) {
            let body = FlakyBody(failures: failures)

            let result = retry(attempts: 10) { body() }

            #expect(result.settledValue() == failures + 1)
            #expect(body.count == failures + 1)
        }

        @Test(arguments: [1, 2, 3, 7])
        func aBodyThatAlwaysFailsIsCalledExactlyAttemptsTimesAndGivesTheLastError(attempts: Int) {
            let body = FlakyBody(failures: .max)

            let result = retry(attempts: attempts) { body() }

            #expect(result.settledError() as? TestError == .numbered(attempts))
            timeLetTimersRun(milliseconds: 20)
            #expect(body.count == attempts)
        }

        @Test func aThrowCountsAsAFailedAttempt() {
            let calls = AtomicCounter()

            let result = retry(attempts: 3) { () throws -> Promise<Int> in
                let attempt = calls.increment()
                if attempt < 3 { throw TestError.numbered(attempt) }
                return .value(attempt)
            }

            #expect(result.settledValue() == 3)
            #expect(calls.value == 3)
        }

        @Test func aThrowOnTheLastAttemptRejectsWithIt() {
            let calls = AtomicCounter()

            let result = retry(attempts: 2) { () throws -> Promise<Int> in
                throw TestError.numbered(calls.increment())
            }

            #expect(result.settledError() as? TestError == .numbered(2))
            #expect(calls.value == 2)
        }

        @Test func shouldRetryFalseStopsAtOnceWithThatError() {
            let body = FlakyBody(failures: .max)
            let asked = Recorder<TestError?>()

            let refuse: @Sendable (Error) -> Bool = { error in
                asked.append(error as? TestError)
                return false
            }

            let result = retry(attempts: 5, shouldRetry: refuse) { body() }

            #expect(result.settledError() as? TestError == .numbered(1))
            #expect(body.count == 1)
            #expect(asked.all == [.numbered(1)])
        }

        @Test func shouldRetrySeesEveryErrorButTheLast() {
            let body = FlakyBody(failures: .max)
            let asked = Recorder<TestError?>()

            let allow: @Sendable (Error) -> Bool = { error in
                asked.append(error as? TestError)
                return true
            }

            let result = retry(attempts: 3, shouldRetry: allow) { body() }

            #expect(result.settledError() as? TestError == .numbered(3))
            #expect(asked.all == [.numbered(1), .numbered(2)])
        }

        @Test func aCancellationIsNotRetriedByDefault() {
            let calls = AtomicCounter()

            let result = retry(attempts: 4) { () -> Promise<Int> in
                calls.increment()
                return Promise(error: PMKError.cancelled)
            }

            #expect(timeIsPMKError(result.settledError(), .cancelled))
            #expect(calls.value == 1)
        }

        @Test func aGuaranteeBodyIsAccepted() {
            let result = retry { Guarantee.value("fine") }

            #expect(result.settledValue() == "fine")
        }

        @Test func aRetryNeverStartsBeforeAConstantBackoffHasPassed() {
            let body = FlakyBody(failures: 2)

            let result = retry(attempts: 3, backoff: .constant(.milliseconds(20))) { body() }

            #expect(result.settledValue() == 3)
            let calls = body.calls.all
            for (earlier, later) in zip(calls, calls.dropFirst()) {
                #expect(later - earlier >= timeNanoseconds(.milliseconds(20)))
            }
        }

        @Test func aRetryNeverStartsBeforeAnExponentialBackoffHasPassed() {
            let backoff = Backoff.exponential(initial: .milliseconds(10), multiplier: 2)
            let body = FlakyBody(failures: 3)

            let result = retry(attempts: 4, backoff: backoff) { body() }

            #expect(result.settledValue() == 4)
            let calls = body.calls.all
            #expect(calls.count == 4)
            for (index, (earlier, later)) in zip(calls, calls.dropFirst()).enumerated() {
                #expect(later - earlier >= timeNanoseconds(backoff.delay(beforeRetry: index + 1)))
            }
        }

        @Test func manyAttemptsThatFailAtOnceDoNotGrowTheStack() {
            let calls = AtomicCounter()
            let finished = Locked<Bool>(false)

            let ran = onASmallStack {
                let result = retry(attempts: 2_000, shouldRetry: { _ in true }) { () -> Promise<Int> in
                    Promise(error: TestError.numbered(calls.increment()))
                }
                finished.value = result.settledError() as? TestError == .numbered(2_000)
            }

            #expect(ran)
            #expect(finished.value)
            #expect(calls.value == 2_000)
        }

        @Test func cancellingDuringABackoffRejectsTheResultAndStartsNoFurtherAttempt() {
            let body = FlakyBody(failures: .max)
            let result = retry(attempts: 5, backoff: .constant(.milliseconds(20))) { body() }
            #expect(body.count == 1)  // the first attempt failed at once; a timer now waits

            result.cancel()

            #expect(result.isCancelled)
            timeLetTimersRun(milliseconds: 60)
            #expect(body.count == 1)
        }

        @Test func cancellingDuringAnAttemptRejectsTheResultAndStartsNoFurtherAttempt() {
            let calls = AtomicCounter()
            let (attempt, resolver) = Promise<Int>.pending()
            let result = retry(attempts: 5) { () -> Promise<Int> in
                calls.increment()
                return attempt
            }

            result.cancel()
            resolver.reject(TestError.boom)

            #expect(result.isCancelled)
            timeLetTimersRun(milliseconds: 20)
            #expect(calls.value == 1)
        }

        @Test
        func cancellingTheResultCancelsTheAttemptInFlight() {
            let (attempt, _) = Promise<Int>.pending()
            let result = retry { attempt }

            result.cancel()

            #expect(attempt.isCancelled)
        }
    }
}
