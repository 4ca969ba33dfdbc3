#if DEBUG
    import Dispatch
    import Testing

    @testable import Pledge

    extension TimeTests {
        /// The timers of `timeout`, `delay` and `retry` hold their operator's state, and with it
        /// the result's storage, until they are released. Debug builds count that storage
        /// (``LiveObjectLedger``), so a count that returns to zero long before a timer's deadline
        /// shows that the timer let go as soon as its work was over.
        @Suite struct TimeLifetimeTests {
            @Test func aTimeoutReleasesItsTimerAtOnceWhenThePromiseWins() {
                let live = LiveObjectTests.tally {
                    let result = Promise.value(1).timeout(seconds: 3_600)
                    #expect(result.value == 1)
                }

                LiveObjectTests.expectAllGivenBack(live)
            }

            @Test func aTimeoutReleasesItsTimerWhenAPendingPromiseWins() {
                let live = LiveObjectTests.tally {
                    let (head, resolver) = Promise<Int>.pending()
                    let result = head.timeout(.seconds(3_600))
                    resolver.fulfill(2)
                    #expect(result.value == 2)
                }

                LiveObjectTests.expectAllGivenBack(live)
            }

            @Test func aTimeoutReleasesItsTimerWhenItFires() {
                let live = LiveObjectTests.tally {
                    let (head, resolver) = Promise<Int>.pending()
                    #expect(head.timeout(seconds: 0.01).settledError() != nil)
                    resolver.fulfill(0)
                }

                LiveObjectTests.expectAllGivenBack(live)
            }

            @Test func cancellingATimeoutReleasesItsTimerAtOnce() {
                let live = LiveObjectTests.tally {
                    let (head, resolver) = Promise<Int>.pending()
                    let result = head.timeout(seconds: 3_600)
                    result.cancel()
                    #expect(result.isCancelled)
                    // Whatever the cancellation did to `head`, settling it leaves only the timer
                    // that could still hold anything.
                    resolver.fulfill(0)
                }

                LiveObjectTests.expectAllGivenBack(live)
            }

            @Test func cancellingADelayReleasesItsTimerAtOnce() {
                let live = LiveObjectTests.tally {
                    let delayed = Promise.value(1).delay(seconds: 3_600)
                    delayed.cancel()
                    #expect(delayed.isCancelled)
                }

                LiveObjectTests.expectAllGivenBack(live)
            }

            @Test func cancellingARetryReleasesItsBackoffTimerAtOnce() {
                let live = LiveObjectTests.tally {
                    let result = retry(backoff: .constant(.seconds(3_600))) { () -> Promise<Int> in
                        Promise(error: TestError.boom)
                    }
                    result.cancel()
                    #expect(result.isCancelled)
                }

                LiveObjectTests.expectAllGivenBack(live)
            }
        }
    }
#endif
