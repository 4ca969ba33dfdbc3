import Dispatch
import Pledge
import Testing

extension ConfigurationTests {
    /// The limited dispatchers' `badInput` log events; here because capturing the log replaces
    /// a process-wide handler (see ``ConfigurationTests``).
    @Suite struct DispatchLogTests {
        @Test(arguments: [0, -5, Int.min])
        func aConcurrencyLimitBelowOneIsLogged(limit: Int) {
            LogCapture.capture { log in
                _ = ConcurrencyLimitedDispatcher(limit: limit)
                #expect(log.eventsFromThisTest(ofKind: .badInput).count == 1)
            }
        }

        @Test(arguments: [0, -5, Int.min])
        func aRateLimitBelowOneIsLogged(maxDispatches: Int) {
            LogCapture.capture { log in
                _ = RateLimitedDispatcher(maxDispatches: maxDispatches, perInterval: .seconds(1))
                #expect(log.eventsFromThisTest(ofKind: .badInput).count == 1)
            }
        }

        @Test func validLimitsAndEveryIntervalAreNotLogged() {
            LogCapture.capture { log in
                _ = ConcurrencyLimitedDispatcher(limit: 1)
                for interval in [DispatchTimeInterval.never, .seconds(0), .milliseconds(-1), .seconds(Int.max)] {
                    _ = RateLimitedDispatcher(maxDispatches: 1, perInterval: interval)
                }
                #expect(log.eventsFromThisTest(ofKind: .badInput).isEmpty)
            }
        }
    }
}
