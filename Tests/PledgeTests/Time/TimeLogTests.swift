import Pledge
import Testing

extension ConfigurationTests {
    /// The time operators' `badInput` log events; here because capturing the log replaces a
    /// process-wide handler (see ``ConfigurationTests``).
    @Suite struct TimeLogTests {
        @Test func aTimeoutOfNotANumberOfSecondsRejectsWithBadInputAndLogsIt() {
            LogCapture.capture { log in
                let (head, resolver) = Promise<Int>.pending()

                #expect(timeIsPMKError(head.timeout(seconds: .nan).error, .badInput))
                #expect(log.eventsFromThisTest(ofKind: .badInput).count == 1)
                resolver.fulfill(0)
            }
        }

        @Test func aDelayOfNotANumberOfSecondsRejectsWithBadInputAndLogsIt() {
            LogCapture.capture { log in
                #expect(timeIsPMKError(Promise.value(1).delay(seconds: .nan).error, .badInput))
                #expect(log.eventsFromThisTest(ofKind: .badInput).count == 1)
            }
        }

        @Test func aGuaranteesDelayOfNotANumberPassesTheValueOnAndLogsIt() {
            LogCapture.capture { log in
                #expect(Guarantee.value(1).delay(seconds: .nan).comboValue() == 1)
                #expect(log.eventsFromThisTest(ofKind: .badInput).count == 1)
            }
        }

        @Test func retryWithADecisionAndTooFewAttemptsRejectsWithBadInputAndLogsIt() {
            LogCapture.capture { log in
                let result = retry(attempts: 0, decide: { _, _ in .retry }, { Promise.value(1) })

                #expect(timeIsPMKError(result.error, .badInput))
                #expect(log.eventsFromThisTest(ofKind: .badInput).count == 1)
            }
        }

        @Test(arguments: [0, -1, Int.min])
        func retryWithFewerThanOneAttemptRejectsWithBadInputWithoutCallingTheBody(attempts: Int) {
            LogCapture.capture { log in
                let calls = AtomicCounter()

                let result = retry(attempts: attempts) { () -> Promise<Int> in
                    calls.increment()
                    return .value(1)
                }

                #expect(timeIsPMKError(result.error, .badInput))
                #expect(calls.value == 0)
                #expect(log.eventsFromThisTest(ofKind: .badInput).count == 1)
            }
        }

        @Test func validIntervalsLogNothing() {
            LogCapture.capture { log in
                #expect(Promise.value(1).timeout(seconds: 1).value == 1)
                #expect(Promise.value(1).delay(seconds: 0).comboValue() == 1)
                #expect(retry(attempts: 1) { Promise.value(1) }.value == 1)
                #expect(log.eventsFromThisTest(ofKind: .badInput).isEmpty)
            }
        }
    }
}
