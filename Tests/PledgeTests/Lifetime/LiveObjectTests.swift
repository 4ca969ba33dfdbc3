#if DEBUG
    import Dispatch
    import Testing

    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Musl)
        import Musl
    #elseif canImport(Darwin)
        import Darwin
    #endif

    @testable import Pledge

    /// Debug builds count the boxes a chain makes and the counted references the engine takes on
    /// them (``LiveObjectLedger``): once a chain of any kind has finished, or been dropped, both
    /// return to zero.
    @Suite struct LiveObjectTests {
        /// Runs `body` with a fresh ledger current, then waits (up to the test timeout) until
        /// every box it counted is freed and every token given back.
        ///
        /// - Returns: the boxes and tokens still live when the wait ended, and how many boxes
        ///   were counted in all (so that a test can tell it counted something).
        static func tally(_ body: () -> Void) -> (boxes: Int, tokens: Int, counted: Int) {
            let ledger = LiveObjectLedger()
            LiveObjectLedger.$current.withValue(ledger) { body() }
            let deadline = DispatchTime.testTimeout
            while ledger.liveBoxes != 0 || ledger.liveTokens != 0, DispatchTime.now() < deadline {
                sched_yield()
            }
            return (ledger.liveBoxes, ledger.liveTokens, ledger.boxesMade)
        }

        /// Checks that a tally counted boxes and that none, and no token, is left.
        static func expectAllGivenBack(
            _ live: (boxes: Int, tokens: Int, counted: Int), sourceLocation: SourceLocation = #_sourceLocation
        ) {
            #expect(live.counted > 0, "no box was counted", sourceLocation: sourceLocation)
            #expect(live.boxes == 0, "boxes left", sourceLocation: sourceLocation)
            #expect(live.tokens == 0, "tokens left", sourceLocation: sourceLocation)
        }

        @Test func anInlineChainGivesBackEverything() {
            let live = Self.tally {
                let (promise, resolver) = Promise<Int>.pending()
                let done = promise.map(on: nil) { $0 + 1 }.then(on: nil) { Promise.value($0 * 2) }
                    .done(on: nil) { _ in }
                resolver.fulfill(1)
                #expect(done.isFulfilled)
            }

            Self.expectAllGivenBack(live)
        }

        @Test func aCancelledChainGivesBackEverything() {
            let live = Self.tally {
                let queue = TestQueues.serial("live.cancelled")
                let (promise, resolver) = Promise<Int>.pending()
                resolver.onCancel {}
                let (inner, innerResolver) = Promise<Int>.pending()
                let (other, otherResolver) = Promise<Int>.pending()
                let end = promise.map(on: nil) { $0 + 1 }.then(on: nil) { _ in inner }
                    .map(on: queue) { $0 }.recover(on: nil) { _ in Promise.value(0) }
                let all = when(fulfilled: [end, other])
                all.cancel()
                #expect(promise.isCancelled && other.isCancelled)
                queue.sync {}
                // Never followed, so never cancelled: resolved here so that nothing logs.
                innerResolver.fulfill(0)
                withExtendedLifetime(otherResolver) {}
            }

            Self.expectAllGivenBack(live)
        }

        @Test func aChainOnAQueueGivesBackEverything() {
            let live = Self.tally {
                let queue = TestQueues.serial("live.queued")
                let (promise, resolver) = Promise<Int>.pending()
                var tail = promise
                for _ in 0..<40 { tail = tail.map(on: queue) { $0 + 1 } }
                let finished = tail.done(on: queue) { _ in }
                resolver.fulfill(0)
                #expect(finished.settledValue() != nil)
                #expect(tail.value == 40)
            }

            Self.expectAllGivenBack(live)
        }

        @Test func aThenFollowingAPendingPromiseGivesBackEverything() {
            let live = Self.tally {
                let (promise, resolver) = Promise<Int>.pending()
                let (inner, innerResolver) = Promise<Int>.pending()
                let followed = promise.then(on: nil) { _ in inner }.map(on: nil) { $0 + 1 }
                resolver.fulfill(1)
                innerResolver.fulfill(41)
                #expect(followed.value == 42)
            }

            Self.expectAllGivenBack(live)
        }

        @Test func aWhenAndARaceGiveBackEverything() {
            let live = Self.tally {
                let pending = (0..<10).map { _ in Promise<Int>.pending() }
                let all = when(fulfilled: pending.map(\.promise))
                let first = race(pending.map(\.promise))
                for (index, input) in pending.enumerated() { input.resolver.fulfill(index) }
                #expect(all.value == Array(0..<10))
                #expect(first.value == 0)
            }

            Self.expectAllGivenBack(live)
        }

        @Test func aChainResolvedFromAnotherThreadWhileFiringGivesBackEverything() {
            let live = Self.tally {
                let firing = BlockedFiring()
                let waiting = firing.promise.map(on: nil) { $0 }
                #expect(firing.resolve())
                // This thread runs `waiting` itself while the resolving thread is blocked.
                let helped = firing.promise.map(on: nil) { $0 + 1 }
                #expect(waiting.value == 1)
                #expect(helped.value == 2)
                firing.release()
                #expect(firing.waitUntilResolved())
            }

            Self.expectAllGivenBack(live)
        }

        /// Links deeper than the nesting limit leave their work to the running loop.
        @Test func aChainLinkedThroughResolversPastTheNestingLimitGivesBackEverything() {
            let live = Self.tally {
                let (head, resolver) = Promise<Int>.pending()
                var tail = head
                for _ in 0..<100 {
                    let (next, nextResolver) = Promise<Int>.pending()
                    tail.done(on: nil) { nextResolver.fulfill($0 + 1) }.ignoreErrors()
                    tail = next
                }
                resolver.fulfill(0)
                #expect(tail.value == 100)
            }

            Self.expectAllGivenBack(live)
        }
    }

    extension ConfigurationTests {
        /// Dropping an unresolved resolver is logged; the log is captured here.
        @Suite struct LiveObjectAbandonmentTests {
            @Test func anAbandonedPendingChainGivesBackEverything() {
                LogCapture.capture { log in
                    let live = LiveObjectTests.tally {
                        let (promise, resolver) = Promise<Int>.pending()
                        _ = promise.map(on: nil) { $0 }.then(on: nil) { Promise.value($0) }.done(on: nil) { _ in }
                        withExtendedLifetime(resolver) {}
                    }

                    LiveObjectTests.expectAllGivenBack(live)
                    #expect(log.eventsFromThisTest(ofKind: .pendingPromiseDeallocated).count == 1)
                }
            }
        }
    }
#endif
