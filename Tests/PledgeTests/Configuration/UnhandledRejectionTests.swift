import Dispatch
import Pledge
import Testing

extension ConfigurationTests {
    /// `LogEvent.unhandledRejection`: logged once for a rejection no handler saw, never for one a
    /// handler or a state read saw, never for a cancellation. These tests capture the log
    /// handler, so they live in the serialized suite; everything runs inline (`on: nil`) and
    /// counts only events the test's own code logged.
    @Suite struct UnhandledRejectionTests {
        @Test func aRejectedPromiseNobodyLooksAtIsReportedWithItsError() throws {
            try LogCapture.capture { log in
                do {
                    _ = Promise<Int>(error: TestError.numbered(1))
                }
                let events = log.eventsFromThisTest(ofKind: .unhandledRejection)
                try #require(events.count == 1)
                guard case .unhandledRejection(let error, _) = events[0] else { return }
                #expect(error as? TestError == .numbered(1))
            }
        }

        @Test func aPendingPromiseRejectedWithNoHandlerIsReportedWhenReleased() {
            LogCapture.capture { log in
                do {
                    let (promise, resolver) = Promise<Int>.pending()
                    resolver.reject(TestError.boom)
                    #expect(log.eventsFromThisTest(ofKind: .unhandledRejection).isEmpty)
                    withExtendedLifetime(promise) {}
                }
                #expect(log.eventsFromThisTest(ofKind: .unhandledRejection).count == 1)
            }
        }

        @Test func aChainWithoutCatchIsReportedOnceAtItsEnd() {
            LogCapture.capture { log in
                do {
                    let (promise, resolver) = Promise<Int>.pending()
                    _ = promise.map(on: nil) { $0 + 1 }.done(on: nil) { _ in }
                    resolver.reject(TestError.boom)
                }
                #expect(log.eventsFromThisTest(ofKind: .unhandledRejection).count == 1)
            }
        }

        @Test func aThrowingHandlerAtTheEndOfAChainIsReported() {
            LogCapture.capture { log in
                do {
                    _ = Promise.value(1).done(on: nil) { _ in throw TestError.other }
                }
                #expect(log.eventsFromThisTest(ofKind: .unhandledRejection).count == 1)
            }
        }

        @Test func catchRecoverCauterizeWaitAndPipeSeeTheError() {
            LogCapture.capture { log in
                do {
                    Promise<Int>(error: TestError.boom).catch(on: nil) { _ in }
                    _ = Promise<Int>(error: TestError.boom).recover(on: nil) { _ in Guarantee.value(0) }
                    Promise<Int>(error: TestError.boom).cauterize()
                    _ = try? Promise<Int>(error: TestError.boom).wait()
                    Promise<Int>(error: TestError.boom).pipe { _ in }
                    let (promise, resolver) = Promise<Int>.pending()
                    resolver.reject(TestError.boom)
                    promise.catch(on: nil) { _ in }
                }
                #expect(log.eventsFromThisTest(ofKind: .unhandledRejection).isEmpty)
                #expect(log.eventsFromThisTest(ofKind: .cauterized).count == 1)
            }
        }

        @Test func readingTheStateSeesTheError() {
            LogCapture.capture { log in
                do {
                    #expect(Promise<Int>(error: TestError.boom).error != nil)
                    #expect(Promise<Int>(error: TestError.boom).isRejected)
                    let (promise, resolver) = Promise<Int>.pending()
                    resolver.reject(TestError.boom)
                    #expect(promise.result != nil)
                }
                #expect(log.eventsFromThisTest(ofKind: .unhandledRejection).isEmpty)
            }
        }

        @Test func printingOrDumpingAPromiseDoesNotSeeTheError() {
            LogCapture.capture { log in
                do {
                    let printed = Promise<Int>(error: TestError.numbered(71))
                    #expect("\(printed)" == "Promise(\(TestError.numbered(71)))")
                    let debugPrinted = Promise<Int>(error: TestError.numbered(72))
                    #expect(String(reflecting: debugPrinted).hasPrefix("Promise<Int>.rejected("))
                    let dumped = Promise<Int>(error: TestError.numbered(73))
                    var dump = ""
                    Swift.dump(dumped, to: &dump)
                    #expect(dump.contains("numbered(73)"))
                }
                #expect(log.rejections(71, within: 60) == 1)
                #expect(log.rejections(72, within: 60) == 1)
                #expect(log.rejections(73, within: 60) == 1)
            }
        }

        @Test func cancellationsAndFulfilledPromisesAreNeverReported() {
            LogCapture.capture { log in
                do {
                    let (cancelled, resolver) = Promise<Int>.pending()
                    cancelled.cancel()
                    withExtendedLifetime(resolver) {}
                    _ = Promise<Int>(error: PMKError.cancelled)
                    _ = Promise<Int>(error: CancellationError())
                    _ = Promise<Int>(error: TestCancellableError(isCancelled: true))
                    _ = Promise.value(3).map(on: nil) { $0 * 2 }
                    let (fulfilled, fulfil) = Promise<Int>.pending()
                    fulfil.fulfill(1)
                    withExtendedLifetime(fulfilled) {}
                    let (chain, reject) = Promise<Int>.pending()
                    _ = chain.map(on: nil) { $0 }
                    chain.cancel()
                    withExtendedLifetime(reject) {}
                }
                #expect(log.eventsFromThisTest(ofKind: .unhandledRejection).isEmpty)
            }
        }

        @Test func combinatorsThatHandleTheirInputsReportNothing() {
            LogCapture.capture { log in
                let finished = DispatchSemaphore(value: 0)
                do {
                    let failing = (0..<3).map { _ in Promise<Int>(error: TestError.boom) }
                    when(fulfilled: failing).catch(on: nil) { _ in finished.signal() }
                    race(fulfilled: failing).catch(on: nil) { _ in finished.signal() }
                    race(failing).catch(on: nil) { _ in finished.signal() }
                    when(resolved: failing).done(on: nil) { _ in finished.signal() }
                    Promise<Int>(error: TestError.boom).timeout(seconds: 10).catch(on: nil) { _ in finished.signal() }
                    retry(attempts: 3, backoff: .none) { Promise<Int>(error: TestError.boom) }
                        .catch(on: nil) { _ in finished.signal() }
                }
                for _ in 0..<6 { #expect(finished.wait(timeout: .testTimeout) == .success) }
                #expect(log.events(ofKind: .unhandledRejection).isEmpty)
            }
        }

        @Test func aLoserHandedToARaceThatIsAlreadyWonCountsAsSeen() {
            LogCapture.capture { log in
                do {
                    let (loser, resolver) = Promise<Int>.pending()
                    let (fulfilledLoser, fulfilledResolver) = Promise<Int>.pending()
                    race(Promise.value(1), loser).ignoreErrors()
                    race(fulfilled: [Promise.value(1), fulfilledLoser]).ignoreErrors()
                    resolver.reject(TestError.boom)
                    fulfilledResolver.reject(TestError.boom)
                }
                #expect(log.eventsFromThisTest(ofKind: .unhandledRejection).isEmpty)
            }
        }

        @Test(.debugBuildsOnly) func theSiteIsWhereTheChainBegan() throws {
            #if DEBUG
                try LogCapture.capture { log in
                    let line = #line + 2
                    do {
                        let (promise, resolver) = Promise<Int>.pending()
                        _ = promise.map(on: nil) { $0 }.map(on: nil) { $0 }
                        resolver.reject(TestError.boom)
                        _ = Promise<Void>(error: TestError.other)
                    }
                    let sites = log.eventsFromThisTest(ofKind: .unhandledRejection).compactMap { event in
                        if case .unhandledRejection(_, let site) = event { return site }
                        return nil
                    }
                    try #require(sites.count == 2)
                    #expect(
                        sites.contains(CreationSite(fileID: "PledgeTests/UnhandledRejectionTests.swift", line: line)))
                    #expect(
                        sites.contains(
                            CreationSite(fileID: "PledgeTests/UnhandledRejectionTests.swift", line: line + 3)))
                }
            #endif
        }

        @Test func pendingDeallocatedEventsCarryTheSiteInDebugBuilds() throws {
            try LogCapture.capture { log in
                let line = #line + 2
                do {
                    _ = Promise<Int>.pending()
                    _ = Guarantee<Int>.pending()
                }
                let promise = log.eventsFromThisTest(ofKind: .pendingPromiseDeallocated)
                let guarantee = log.eventsFromThisTest(ofKind: .pendingGuaranteeDeallocated)
                try #require(promise.count == 1 && guarantee.count == 1)
                guard case .pendingPromiseDeallocated(let promiseSite) = promise[0],
                    case .pendingGuaranteeDeallocated(let guaranteeSite) = guarantee[0]
                else { return }
                #if DEBUG
                    #expect(
                        promiseSite == CreationSite(fileID: "PledgeTests/UnhandledRejectionTests.swift", line: line))
                    #expect(
                        guaranteeSite
                            == CreationSite(fileID: "PledgeTests/UnhandledRejectionTests.swift", line: line + 1))
                #else
                    #expect(promiseSite == nil && guaranteeSite == nil)
                #endif
            }
        }
    }

    /// Attaching to a rejected promise nobody has looked at yet, from several threads at once,
    /// while it is being rejected: every handler runs once, and nothing is reported.
    @Suite struct StressUnhandledRejectionTests {
        @Test func attachingWhileRejectingSeesTheError() {
            LogCapture.capture { log in
                let rounds = 2_000
                let handled = AtomicCounter()
                for _ in 0..<rounds {
                    let (promise, resolver) = Promise<Int>.pending()
                    let start = DispatchSemaphore(value: 0)
                    let group = DispatchGroup()
                    for _ in 0..<3 {
                        DispatchQueue.global().async(group: group) {
                            start.wait()
                            promise.catch(on: nil) { _ in handled.increment() }
                        }
                    }
                    for _ in 0..<3 { start.signal() }
                    resolver.reject(TestError.numbered(4_242))
                    #expect(group.wait(timeout: .testTimeout) == .success)
                }
                #expect(handled.value == rounds * 3)
                let ours = log.events(ofKind: .unhandledRejection).filter { event in
                    if case .unhandledRejection(let error, _) = event { return error as? TestError == .numbered(4_242) }
                    return false
                }
                #expect(ours.isEmpty)
            }
        }
    }
}
