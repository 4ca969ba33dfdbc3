import Dispatch
import Pledge
import Testing

@Suite struct WaitTests {
    @Test func waitReturnsTheValueOfAFulfilledPromise() throws {
        #expect(try Promise.value(3).wait() == 3)
    }

    @Test func waitThrowsTheErrorOfARejectedPromise() {
        #expect(throws: TestError.boom) { try Promise<Int>(error: TestError.boom).wait() }
    }

    @Test func waitBlocksUntilAnotherThreadFulfils() throws {
        let queue = TestQueues.serial("wait.fulfil")
        let (promise, resolver) = Promise<Int>.pending()

        queue.async { resolver.fulfill(11) }

        #expect(try promise.wait() == 11)
    }

    @Test func waitBlocksUntilAnotherThreadRejects() {
        let queue = TestQueues.serial("wait.reject")
        let (promise, resolver) = Promise<Int>.pending()

        queue.async { resolver.reject(TestError.other) }

        #expect(throws: TestError.other) { try promise.wait() }
    }

    @Test func waitWaitsForAChainOnAnExplicitQueue() throws {
        let queue = TestQueues.serial("wait.chain")

        let chained = Promise.value(1).map(on: queue) { $0 + 1 }.then(on: queue) { Promise.value($0 * 10) }

        #expect(try chained.wait() == 20)
    }

    @Test func guaranteeWaitReturnsTheValue() {
        let queue = TestQueues.serial("wait.guarantee")
        let (guarantee, resolve) = Guarantee<String>.pending()

        queue.async { resolve("g") }

        #expect(guarantee.wait() == "g")
        #expect(Guarantee.value(2).wait() == 2)
    }
}

extension ConfigurationTests {
    /// `wait()` reports waits that may hang through `conf.logHandler`.
    @Suite struct WaitLogTests {
        @Test func waitOnTheDefaultHandlerQueueWhilePendingLogsWaitOnHandlerQueue() {
            LogCapture.capture { log in
                // Given a wait blocking the default handler queue on a pending promise,
                let (promise, resolver) = Promise<Int>.pending()
                let waited = Locked<Int?>(nil)
                let finished = DispatchSemaphore(value: 0)
                PMKConfiguration.defaultQueue.async {
                    waited.value = try? promise.wait()
                    finished.signal()
                }

                // then the wait is reported,
                #expect(log.waitForEvent(ofKind: .waitOnHandlerQueue))

                // and it still ends once the promise is fulfilled from elsewhere.
                resolver.fulfill(5)
                #expect(finished.wait(timeout: .testTimeout) == .success)
                #expect(waited.value == 5)
                #expect(log.events(ofKind: .waitOnHandlerQueue).count == 1)
            }
        }

        @Test func guaranteeWaitOnTheDefaultHandlerQueueWhilePendingLogsWaitOnHandlerQueue() {
            LogCapture.capture { log in
                let (guarantee, resolve) = Guarantee<Int>.pending()
                let finished = DispatchSemaphore(value: 0)
                PMKConfiguration.defaultQueue.async {
                    _ = guarantee.wait()
                    finished.signal()
                }

                #expect(log.waitForEvent(ofKind: .waitOnHandlerQueue))
                resolve(1)
                #expect(finished.wait(timeout: .testTimeout) == .success)
            }
        }

        @Test func waitOnTheDefaultHandlerQueueForAResolvedPromiseLogsNothing() {
            LogCapture.capture { log in
                let waited = PMKConfiguration.defaultQueue.sync { try? Promise.value(2).wait() }

                #expect(waited == 2)
                #expect(log.events(ofKind: .waitOnHandlerQueue).isEmpty)
            }
        }

        @Test func waitOnAnotherQueueLogsNothing() {
            LogCapture.capture { log in
                let queue = TestQueues.serial("wait.unconfigured")
                let (promise, resolver) = Promise<Int>.pending()
                let finished = DispatchSemaphore(value: 0)
                queue.async {
                    _ = try? promise.wait()
                    finished.signal()
                }

                resolver.fulfill(1)
                #expect(finished.wait(timeout: .testTimeout) == .success)
                #expect(log.events(ofKind: .waitOnHandlerQueue).isEmpty)
                #expect(log.events(ofKind: .waitOnMainThread).isEmpty)
            }
        }

        @Test func waitOnTheMainThreadWithTheDefaultQueuesLogsNothing() {
            // A command-line tool's main thread: the default queues never need it.
            LogCapture.capture { log in
                let (promise, resolver) = Promise<Int>.pending()
                let waited = Locked<Int?>(nil)
                let started = DispatchSemaphore(value: 0)
                let finished = DispatchSemaphore(value: 0)
                DispatchQueue.main.async {
                    dispatchPrecondition(condition: .onQueue(.main))
                    started.signal()
                    waited.value = try? promise.wait()
                    finished.signal()
                }

                #expect(started.wait(timeout: .testTimeout) == .success)
                resolver.fulfill(4)
                #expect(finished.wait(timeout: .testTimeout) == .success)
                #expect(waited.value == 4)
                #expect(log.events(ofKind: .waitOnMainThread).isEmpty)
                #expect(log.events(ofKind: .waitOnHandlerQueue).isEmpty)
            }
        }

        @Test func waitOnTheMainThreadWhenAQueueIsMainLogsWaitOnMainThreadAndStillWaits() {
            // Swift Testing's entry point drains the main queue (it runs `dispatchMain()`), so a
            // block sent there runs on the main thread.
            let saved = conf.Q
            conf.Q = (map: .main, return: .global())
            defer { conf.Q = saved }
            LogCapture.capture { log in
                let (promise, resolver) = Promise<Int>.pending()
                let waited = Locked<Int?>(nil)
                let finished = DispatchSemaphore(value: 0)
                DispatchQueue.main.async {
                    waited.value = try? promise.wait()
                    finished.signal()
                }

                #expect(log.waitForEvent(ofKind: .waitOnMainThread))
                resolver.fulfill(3)
                #expect(finished.wait(timeout: .testTimeout) == .success)
                #expect(waited.value == 3)
            }
        }
    }
}
