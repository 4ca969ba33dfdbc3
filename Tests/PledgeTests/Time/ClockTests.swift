import Dispatch
import Pledge
import PledgeTestSupport
import Testing

/// The time operators on a clock the test advances by hand: nothing fires before the clock
/// reaches its deadline, everything due fires once it has, and a wait whose outcome was decided
/// otherwise stops sleeping at once. No real waiting, no blocked thread in Pledge.
@Suite(.timeLimit(.minutes(1))) struct ClockTests {
    @Test func afterResolvesWhenTheClockReachesTheDeadline() async {
        let clock = ManualClock()
        let later = after(for: .seconds(5), clock: clock)
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(4))
        #expect(later.isPending)
        #expect(clock.sleeping == 1)
        clock.advance(by: .seconds(1))
        #expect(await later.outcome() != nil)
        #expect(clock.sleeping == 0)
    }

    @Test func aNegativeDurationCountsAsZero() async {
        let clock = ManualClock()
        #expect(await after(for: .seconds(-5), clock: clock).outcome() != nil)
        #expect(await Promise.value(1).delay(for: .seconds(-1), clock: clock).outcomeValue() == 1)
        #expect(await Guarantee.value(2).delay(for: .seconds(-1), clock: clock).outcomeValue() == 2)
        #expect(
            await Promise<Int>.pending().promise.timeout(for: .seconds(-3), clock: clock).outcomeError() as? PMKError
                == .timedOut)
    }

    @Test func timeoutRejectsOnlyOnceTheClockPassesTheDeadline() async {
        let clock = ManualClock()
        let (upstream, resolver) = Promise<Int>.pending()
        let limited = upstream.timeout(for: .seconds(10), clock: clock)
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(9))
        #expect(limited.isPending)
        clock.advance(by: .seconds(1))
        #expect(await limited.outcomeError() as? PMKError == .timedOut)
        #expect(upstream.isCancelled)
        resolver.fulfill(1)
    }

    @Test func aTimeoutWhosePromiseSettledStopsSleepingAtOnce() async {
        let clock = ManualClock()
        let (upstream, resolver) = Promise<Int>.pending()
        let limited = upstream.timeout(for: .seconds(10), clock: clock)
        await clock.waitForSleepers(1)
        resolver.fulfill(7)
        #expect(await limited.outcomeValue() == 7)
        await clock.waitForSleepers(0)
    }

    @Test func delayHoldsTheValueUntilTheClockMoves() async {
        let clock = ManualClock()
        let promise = Promise.value("p").delay(for: .seconds(2), clock: clock)
        let guarantee = Guarantee.value("g").delay(for: .seconds(3), clock: clock)
        await clock.waitForSleepers(2)
        clock.advance(by: .seconds(2))
        #expect(await promise.outcomeValue() == "p")
        #expect(guarantee.isPending)
        clock.advance(by: .seconds(1))
        #expect(await guarantee.outcomeValue() == "g")
    }

    @Test func aCancelledDelayStopsSleepingAtOnce() async {
        let clock = ManualClock()
        let delayed = Promise.value(1).delay(for: .seconds(60), clock: clock)
        await clock.waitForSleepers(1)
        delayed.cancel()
        await clock.waitForSleepers(0)
        #expect(await delayed.outcomeError() as? PMKError == .cancelled)
    }

    @Test func retryWaitsItsBackoffOnTheClock() async {
        let clock = ManualClock()
        let calls = Recorder<Int>()
        let result = retry(attempts: 3, backoff: .constant(Duration.seconds(10)), clock: clock) {
            () -> Promise<Int> in
            calls.append(1)
            return calls.all.count < 3 ? Promise(error: TestError.boom) : .value(calls.all.count)
        }
        await clock.waitForSleepers(1)
        #expect(calls.all.count == 1)
        clock.advance(by: .seconds(9))
        #expect(calls.all.count == 1)
        clock.advance(by: .seconds(1))
        await clock.waitForSleepers(1)
        #expect(calls.all.count == 2)
        clock.advance(by: .seconds(10))
        #expect(await result.outcomeValue() == 3)
    }

    @Test func decideSeesEachAttemptAndMayNameTheWait() async {
        let clock = ManualClock()
        let seen = Recorder<Int>()
        let calls = Recorder<Int>()
        let decide: @Sendable (any Error, Int) -> RetryDecision = { _, attempt in
            seen.append(attempt)
            return attempt == 1 ? .retry(after: .seconds(3)) : .retry(after: .seconds(-1))
        }
        let result = retry(attempts: 4, backoff: .constant(Duration.seconds(100)), clock: clock, decide: decide) {
            () -> Promise<Int> in
            calls.append(1)
            return calls.all.count < 3 ? Promise(error: TestError.boom) : .value(42)
        }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(2))
        #expect(calls.all.count == 1)
        clock.advance(by: .seconds(1))
        // The second attempt fails, and `.retry(after: -1s)` retries at once, without the clock.
        #expect(await result.outcomeValue() == 42)
        #expect(seen.all == [1, 2])
        #expect(calls.all.count == 3)
    }

    @Test func decideMayStop() async {
        let clock = ManualClock()
        let stop: @Sendable (any Error, Int) -> RetryDecision = { _, _ in .stop }
        let result = retry(attempts: 5, clock: clock, decide: stop) { () -> Promise<Int> in
            Promise(error: TestError.other)
        }
        #expect(await result.outcomeError() as? TestError == .other)
        #expect(clock.sleeping == 0)
    }

    @Test func aCancelledRetryStopsSleepingAtOnce() async {
        let clock = ManualClock()
        let calls = Recorder<Int>()
        let result = retry(attempts: 3, backoff: .constant(Duration.seconds(30)), clock: clock) {
            () -> Promise<Int> in
            calls.append(1)
            return Promise(error: TestError.boom)
        }
        await clock.waitForSleepers(1)
        result.cancel()
        await clock.waitForSleepers(0)
        clock.advance(by: .seconds(60))
        #expect(await result.outcomeError() as? PMKError == .cancelled)
        #expect(calls.all.count == 1)
    }

    @Test func withTimeoutThrowsAtTheDeadlineEvenWhenTheOperationIgnoresCancellation() async throws {
        let clock = ManualClock()
        let release = DispatchSemaphore(value: 0)
        let outcome = Task {
            try await withTimeout(.seconds(2), clock: clock) { () -> Int in
                // Ignores cancellation: blocks until the test lets it go.
                await withCheckedContinuation { continuation in
                    DispatchQueue.global().async {
                        release.wait()
                        continuation.resume()
                    }
                }
                return 1
            }
        }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(2))
        await #expect(throws: PMKError.timedOut) { try await outcome.value }
        release.signal()
    }

    @Test func withTimeoutReturnsTheOperationsResultInTime() async throws {
        let clock = ManualClock()
        #expect(try await withTimeout(.seconds(2), clock: clock) { 5 } == 5)
        await clock.waitForSleepers(0)
    }

    @Test func withRetryRetriesOnTheClock() async throws {
        let clock = ManualClock()
        let calls = Recorder<Int>()
        let outcome = Task {
            try await withRetry(attempts: 3, backoff: .constant(Duration.seconds(1)), clock: clock) { () -> Int in
                calls.append(1)
                if calls.all.count < 3 { throw TestError.boom }
                return calls.all.count
            }
        }
        for _ in 0..<2 {
            await clock.waitForSleepers(1)
            clock.advance(by: .seconds(1))
        }
        #expect(try await outcome.value == 3)
    }

    @Test func withRetryThrowsTheLastError() async {
        await #expect(throws: TestError.other) {
            try await withRetry(attempts: 2) { () -> Int in throw TestError.other }
        }
    }

    /// The Duration forms on `ContinuousClock` use Dispatch's timers, as the `seconds:` forms do.
    @Test func durationFormsOnTheContinuousClockTimeOut() async {
        let (first, second) = (Promise<Int>.pending(), Promise<Int>.pending())
        #expect(await first.promise.timeout(for: .milliseconds(1)).outcomeError() as? PMKError == .timedOut)
        #expect(
            await second.promise.timeout(for: .milliseconds(1), clock: ContinuousClock()).outcomeError() as? PMKError
                == .timedOut)
        #expect(await Promise.value(3).delay(for: .milliseconds(1)).outcomeValue() == 3)
        let delayed: Guarantee<Int> = Guarantee.value(4).delay(for: .milliseconds(1))
        #expect(await delayed.outcomeValue() == 4)
        #expect(await after(for: .milliseconds(1)).outcome() != nil)
        #expect(Backoff.constant(Duration.milliseconds(5)).delay(beforeRetry: 1) == .nanoseconds(5_000_000))
        #expect(
            Backoff.exponential(initial: Duration.seconds(1), maximum: .seconds(3)).delay(beforeRetry: 3)
                == .nanoseconds(3_000_000_000))
    }
}

extension Thenable {
    /// The result once this thenable settles, awaited without blocking a thread.
    fileprivate func outcome() async -> Result<T, Error>? {
        await withCheckedContinuation { continuation in pipe { continuation.resume(returning: $0) } }
    }

    fileprivate func outcomeValue() async -> T? {
        guard case .success(let value)? = await outcome() else { return nil }
        return value
    }

    fileprivate func outcomeError() async -> Error? {
        guard case .failure(let error)? = await outcome() else { return nil }
        return error
    }
}
