import Dispatch
import Pledge
import Testing

extension TimeTests {
    @Suite struct BackoffTests {
        @Test(arguments: [1, 2, 10, Int.max])
        func noneNeverWaits(n: Int) {
            #expect(Backoff.none.delay(beforeRetry: n) == .nanoseconds(0))
        }

        @Test(arguments: [1, 2, 50, Int.max])
        func constantWaitsTheSameBeforeEveryRetry(n: Int) {
            #expect(Backoff.constant(.milliseconds(250)).delay(beforeRetry: n) == .milliseconds(250))
        }

        @Test func aNegativeConstantCountsAsZeroAndNeverStaysNever() {
            #expect(Backoff.constant(.seconds(-3)).delay(beforeRetry: 1) == .nanoseconds(0))
            #expect(Backoff.constant(.never).delay(beforeRetry: 1) == .never)
        }

        @Test func anEndlessStartStaysAtTheMaximumWhateverTheMultiplier() {
            for multiplier in [0, 0.5, 1, 2] {
                let backoff = Backoff.exponential(initial: .never, multiplier: multiplier, maximum: .seconds(30))
                #expect((1...4).map { backoff.delay(beforeRetry: $0) } == Array(repeating: .seconds(30), count: 4))
            }
        }

        @Test func exponentialGrowsByTheMultiplierUpToTheMaximum() {
            let backoff = Backoff.exponential(initial: .milliseconds(100), maximum: .seconds(1))

            let delays = (1...6).map { backoff.delay(beforeRetry: $0) }

            #expect(
                delays == [
                    .milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1),
                    .seconds(1),
                ])
        }

        @Test func exponentialUsesItsMultiplierAndDefaultsToThirtySecondsAtMost() {
            let backoff = Backoff.exponential(initial: .seconds(1), multiplier: 3)

            #expect(backoff.delay(beforeRetry: 1) == .seconds(1))
            #expect(backoff.delay(beforeRetry: 2) == .seconds(3))
            #expect(backoff.delay(beforeRetry: 3) == .seconds(9))
            #expect(backoff.delay(beforeRetry: 4) == .seconds(27))
            #expect(backoff.delay(beforeRetry: 5) == .seconds(30))
        }

        @Test(arguments: [0, -1, Int.min])
        func aRetryNumberBelowOneWaitsNothing(n: Int) {
            #expect(Backoff.none.delay(beforeRetry: n) == .nanoseconds(0))
            #expect(Backoff.constant(.seconds(5)).delay(beforeRetry: n) == .nanoseconds(0))
            #expect(Backoff.exponential(initial: .seconds(5)).delay(beforeRetry: n) == .nanoseconds(0))
            #expect(Backoff.exponential(initial: .seconds(5), jitter: true).delay(beforeRetry: n) == .nanoseconds(0))
        }

        @Test(arguments: [64, 1_000, Int.max])
        func aHugeRetryNumberDoesNotOverflowButStopsAtTheMaximum(n: Int) {
            let capped = Backoff.exponential(initial: .seconds(1), maximum: .seconds(10))
            let uncapped = Backoff.exponential(initial: .seconds(1), maximum: .never)

            #expect(capped.delay(beforeRetry: n) == .seconds(10))
            #expect(uncapped.delay(beforeRetry: n) == .never)
        }

        @Test func anInfiniteMultiplierJumpsToTheMaximum() {
            let backoff = Backoff.exponential(initial: .milliseconds(5), multiplier: .infinity, maximum: .seconds(2))

            #expect(backoff.delay(beforeRetry: 1) == .milliseconds(5))
            #expect(backoff.delay(beforeRetry: 2) == .seconds(2))
            #expect(backoff.delay(beforeRetry: Int.max) == .seconds(2))
        }

        @Test(arguments: [Double.nan, -2, -Double.infinity])
        func aMultiplierThatIsNotANumberOrIsNegativeCountsAsOne(multiplier: Double) {
            let backoff = Backoff.exponential(initial: .milliseconds(7), multiplier: multiplier)

            for n in [1, 2, 3, 1_000] {
                #expect(backoff.delay(beforeRetry: n) == .milliseconds(7))
            }
        }

        @Test func aMultiplierBelowOneShrinksTheWait() {
            let backoff = Backoff.exponential(initial: .seconds(1), multiplier: 0.5)

            #expect(backoff.delay(beforeRetry: 2) == .milliseconds(500))
            #expect(backoff.delay(beforeRetry: 3) == .milliseconds(250))
        }

        @Test func aZeroOrNegativeInitialWaitStaysZero() {
            #expect(Backoff.exponential(initial: .seconds(0)).delay(beforeRetry: 40) == .nanoseconds(0))
            #expect(Backoff.exponential(initial: .seconds(-1)).delay(beforeRetry: 40) == .nanoseconds(0))
            #expect(
                Backoff.exponential(initial: .seconds(0), multiplier: .infinity).delay(beforeRetry: 9)
                    == .nanoseconds(0))
        }

        @Test func aMaximumBelowTheInitialWaitCapsEveryWait() {
            let backoff = Backoff.exponential(initial: .seconds(5), maximum: .seconds(1))

            #expect(backoff.delay(beforeRetry: 1) == .seconds(1))
        }

        @Test func jitterDrawsEachWaitFromZeroUpToTheExponentialValue() {
            let backoff = Backoff.exponential(initial: .milliseconds(100), maximum: .milliseconds(300), jitter: true)

            for (n, bound) in [(1, 100_000_000), (2, 200_000_000), (3, 300_000_000), (50, 300_000_000)] {
                let draws = (0..<200).map { _ in timeNanoseconds(backoff.delay(beforeRetry: n)) }
                #expect(draws.allSatisfy { $0 <= UInt64(bound) }, "retry \(n)")
                #expect(Set(draws).count > 1, "retry \(n) did not vary")
            }
        }

        @Test func jitterWithNoCapAndAnEndlessWaitStaysEndless() {
            let backoff = Backoff.exponential(initial: .seconds(1), maximum: .never, jitter: true)

            #expect(backoff.delay(beforeRetry: Int.max) == .never)
        }
    }
}
