import Dispatch
import Pledge
import Testing

@Suite struct AfterTests {
    /// When `guarantee` resolved, in uptime nanoseconds, or `nil` if it did not within the timeout.
    private func resolutionTime(of guarantee: Guarantee<Void>) -> UInt64? {
        let resolvedAt = Locked<UInt64?>(nil)
        let recorded = guarantee.done(on: nil) {
            resolvedAt.withLock { $0 = DispatchTime.now().uptimeNanoseconds }
        }
        guard recorded.comboResult() != nil else { return nil }
        return resolvedAt.withLock { $0 }
    }

    @Test(arguments: [0.02, 0.05, 0.1])
    func afterSecondsNeverResolvesEarly(seconds: Double) throws {
        let earliest = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1_000_000_000)

        let resolvedAt = try #require(resolutionTime(of: after(seconds: seconds)))

        // Late is fine (a loaded machine); early never is.
        #expect(resolvedAt >= earliest)
    }

    @Test(arguments: [DispatchTimeInterval.milliseconds(30), .microseconds(20_000), .nanoseconds(10_000_000)])
    func afterAnIntervalNeverResolvesEarly(interval: DispatchTimeInterval) throws {
        let earliest = (DispatchTime.now() + interval).uptimeNanoseconds

        let resolvedAt = try #require(resolutionTime(of: after(interval)))

        #expect(resolvedAt >= earliest)
    }

    @Test(arguments: [0, -1, -1_000])
    func zeroOrNegativeSecondsResolvePromptly(seconds: Double) {
        #expect(after(seconds: seconds).comboResult() != nil)
    }

    @Test func zeroOrNegativeIntervalsResolvePromptly() {
        #expect(after(.seconds(0)).comboResult() != nil)
        #expect(after(.milliseconds(-5)).comboResult() != nil)
    }

    @Test func theGuaranteeResolvesOnAGlobalQueueNotTheCallersThread() {
        let key = DispatchSpecificKey<Int>()
        let queue = DispatchQueue(label: "after.caller")
        queue.setSpecific(key: key, value: 1)
        let sawCallerQueue = Locked<Bool?>(nil)

        // The delay only gives the attachment below time to happen while the guarantee is still
        // pending: with `seconds: 0` the timer could fire first, and then `on: nil` rightly runs
        // the handler at once, on the caller's queue.
        let done = queue.sync {
            after(seconds: 0.2).done(on: nil) {
                sawCallerQueue.withLock { $0 = DispatchQueue.getSpecific(key: key) != nil }
            }
        }

        #expect(done.comboResult() != nil)
        #expect(sawCallerQueue.withLock { $0 } == false)
    }

    @Test func aTimerDroppedByARaceStillFires() {
        // The losing timer is not referenced by anyone but its own timer; it must still fire
        // (nothing is left pending, so nothing can be reported as deallocated while pending).
        let fired = DispatchSemaphore(value: 0)
        let winner = race(
            Guarantee.value("now"),
            after(seconds: 0.01).map(on: nil) { _ -> String in
                fired.signal()
                return "later"
            })

        #expect(winner.value == "now")
        #expect(fired.wait(timeout: .now() + comboTimeout) == .success)
    }
}

extension ConfigurationTests {
    @Suite struct AfterLogTests {
        /// NaN used to leave the guarantee pending for good, silently.
        @Test func notANumberOfSecondsResolvesPromptlyAndLogsBadInput() {
            LogCapture.capture { log in
                #expect(after(seconds: .nan).comboResult() != nil)
                #expect(log.eventsFromThisTest(ofKind: .badInput).count == 1)
            }
        }

        @Test func aNumberOfSecondsLogsNothing() {
            LogCapture.capture { log in
                #expect(after(seconds: 0).comboResult() != nil)
                #expect(log.eventsFromThisTest(ofKind: .badInput).isEmpty)
            }
        }
    }
}
