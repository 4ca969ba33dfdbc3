import Dispatch
import Pledge
import PledgeTesting
import Synchronization
import Testing

struct Flaky: Error {}

/// `TestClock`: time moves when the test moves it, and what comes due runs before `advance`
/// returns.
@Suite(.pledgeScope) struct TestClockTests {
    @Test func afterFiresWhenTheClockReachesItsDeadlineAndNotBefore() {
        let clock = TestClock()
        let fired = after(for: .seconds(10), clock: clock)
        clock.advance(by: .seconds(9))
        #expect(fired.isPending)
        clock.advance(by: .seconds(1))
        #expect(fired.isResolved)
        #expect(clock.now == TestClock.Instant(offset: .seconds(10)))
    }

    @Test func timersRunInDeadlineOrderEachAtItsOwnInstant() {
        let clock = TestClock()
        let order = Mutex<[String]>([])
        for (name, seconds) in [("c", 3), ("a", 1), ("b", 2), ("a2", 1)] {
            after(for: .seconds(seconds), clock: clock).done(on: nil) { _ in
                order.withLock { $0.append("\(name)@\(clock.now.offset)") }
            }
        }
        clock.advance(by: .seconds(5))
        #expect(order.withLock { $0 } == ["a@1.0 seconds", "a2@1.0 seconds", "b@2.0 seconds", "c@3.0 seconds"])
    }

    @Test func aTimeoutOnTheClockRejectsAtItsDeadline() async {
        let clock = TestClock()
        let (slow, _) = Promise<Int>.pending()
        let timed = slow.timeout(for: .seconds(2), clock: clock)
        clock.advance(by: .seconds(2))
        await #expect(throws: PMKError.timedOut) { try await timed.async() }
        #expect(slow.isCancelled)
        #expect(clock.scheduledCount == 0)
    }

    @Test func aTimeoutWhosePromiseSettledUnschedulesItsTimer() async throws {
        let clock = TestClock()
        let timed = Promise.value(1).map(on: nil) { $0 }.timeout(for: .seconds(2), clock: clock)
        #expect(try await timed.async() == 1)
        #expect(clock.scheduledCount == 0)
    }

    @Test func retryWaitsForItsBackoffOnTheClock() async throws {
        let clock = TestClock()
        let attempts = Atomic<Int>(0)
        let result = retry(attempts: 3, backoff: .constant(.seconds(1)), clock: clock) { () -> Promise<Int> in
            attempts.add(1, ordering: .relaxed).newValue < 3 ? Promise(error: Flaky()) : .value(7)
        }
        for attempt in 1...2 {
            // The attempt has failed (its handlers run on the default queue) and the backoff is set.
            #expect(await waitUntilIdle())
            let made = attempts.load(ordering: .relaxed)
            #expect(made == attempt)
            #expect(clock.nextDeadline == TestClock.Instant(offset: .seconds(attempt)))
            clock.advance(by: .seconds(1))
        }
        #expect(try await result.async() == 7)
        let made = attempts.load(ordering: .relaxed)
        #expect(made == 3)
    }

    @Test func withTimeoutOnTheClockGivesUpAtTheDeadline() async {
        let clock = TestClock()
        let started = Guarantee<Void>.pending()
        let call = Task {
            try await withTimeout(.seconds(5), clock: clock) {
                started.resolve(())
                try await Task.sleep(for: .seconds(3600))
            }
        }
        await started.guarantee.async()
        await waitForTimer(on: clock)
        clock.advance(by: .seconds(5))
        await #expect(throws: PMKError.timedOut) { try await call.value }
    }

    @Test func delayOnTheClockHoldsTheValueUntilTheDeadline() {
        let clock = TestClock()
        let promise = Promise.value(1).delay(for: .seconds(3), clock: clock)
        let guarantee = Guarantee.value(2).delay(for: .seconds(3), clock: clock)
        clock.advance(by: .seconds(2))
        #expect(promise.isPending && guarantee.isPending)
        clock.advance(by: .seconds(1))
        #expect(promise.value == 1 && guarantee.value == 2)
    }

    @Test func withRetryOnTheClockWaitsItsBackoff() async throws {
        let clock = TestClock()
        let attempts = Atomic<Int>(0)
        let call = Task {
            try await withRetry(attempts: 2, backoff: .constant(.seconds(10)), clock: clock) {
                guard attempts.add(1, ordering: .relaxed).newValue > 1 else { throw Flaky() }
                return "second"
            }
        }
        await waitForTimer(on: clock)
        #expect(clock.nextDeadline == TestClock.Instant(offset: .seconds(10)))
        clock.advance(by: .seconds(10))
        #expect(try await call.value == "second")
    }

    @Test func aSleepOnTheClockEndsWhenAnAdvanceReachesIt() async throws {
        let clock = TestClock()
        let sleeper = Task { try await clock.sleep(for: .seconds(1)) }
        await waitForTimer(on: clock)
        clock.advance(by: .seconds(1))
        try await sleeper.value
        #expect(clock.scheduledCount == 0)
    }

    @Test func aCancelledSleepThrowsAtOnce() async {
        let clock = TestClock()
        let sleeper = Task { try await clock.sleep(for: .seconds(1)) }
        await waitForTimer(on: clock)
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.scheduledCount == 0)
    }

    @Test func runAllRunsWhatIsScheduledMeanwhileToo() {
        let clock = TestClock()
        let last = after(for: .seconds(1), clock: clock).then(on: nil) { after(for: .seconds(1), clock: clock) }
        clock.runAll()
        #expect(last.isResolved)
        #expect(clock.now.offset == .seconds(2))
    }

    @Test func theClockNeverGoesBack() {
        let clock = TestClock()
        clock.advance(by: .seconds(2))
        clock.advance(to: TestClock.Instant(offset: .seconds(1)))
        clock.advance(by: .seconds(-5))
        #expect(clock.now.offset == .seconds(2))
    }

    /// Suspends until something is scheduled on `clock`: a task's sleep is scheduled when the task
    /// gets that far.
    private func waitForTimer(on clock: TestClock) async {
        while clock.scheduledCount == 0 { await Task.yield() }
    }
}
