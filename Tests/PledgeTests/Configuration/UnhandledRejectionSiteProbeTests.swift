import Dispatch
import Foundation
import Pledge
import Testing

extension ConfigurationTests {
    /// The debug `CreationSite` of a reported rejection: the user's line, never Pledge's own.
    @Suite struct UnhandledRejectionSiteProbeTests {
        static let file = "PledgeTests/UnhandledRejectionSiteProbeTests.swift"

        /// Guards: every documented creation point names the caller's line.
        @Test(.debugBuildsOnly) func documentedCreationPointsNameTheCallersLine() throws {
            #if DEBUG
                try LogCapture.capture { log in
                    let line = #line
                    do {
                        _ = Promise<Int>(error: TestError.numbered(9_301))
                        _ = Promise<Int> { $0.reject(TestError.numbered(9_302)) }
                        let (pending, resolver) = Promise<Int>.pending()
                        _ = pending.map(on: nil) { $0 }.then(on: nil) { Promise.value($0) }
                        resolver.reject(TestError.numbered(9_303))
                        _ = Promise<Int>.lazy { $0.reject(TestError.numbered(9_304)) }.map(on: nil) { $0 }
                        let (guarantee, resolve) = Guarantee<Int>.pending()
                        _ = guarantee.map(on: nil) { _ -> Int in throw TestError.numbered(9_305) }
                        resolve(1)
                        _ = Guarantee.value(1).map(on: nil) { _ -> Int in throw TestError.numbered(9_306) }
                    }
                    for (offset, number) in [(2, 9_301), (3, 9_302), (4, 9_303), (7, 9_304), (8, 9_305)] {
                        let sites = log.rejectionSites(number)
                        try #require(sites.count == 1, "\(number)")
                        #expect(sites[0] == CreationSite(fileID: Self.file, line: line + offset), "\(number)")
                    }
                    // A guarantee made by `value` has no site: nil, not a wrong one.
                    #expect(log.rejectionSites(9_306) == [nil])
                }
            #endif
        }

        /// `firstly` is inlinable, and its `Promise(error:)` takes Pledge's own file and line.
        @Test(.debugBuildsOnly) func firstlyThatThrowsNamesTheCallersLine() throws {
            #if DEBUG
                try LogCapture.capture { log in
                    let line = #line + 1
                    do { _ = firstly { () throws -> Promise<Int> in throw TestError.numbered(9_310) } }
                    let sites = log.rejectionSites(9_310)
                    try #require(sites.count == 1)
                    // `firstly` takes no `file:line:`: its own rejection has no site, rather
                    // than one inside Pledge.
                    _ = line
                    #expect(sites[0] == nil)
                }
            #endif
        }

        /// `delay` and `timeout` results carry the site of their chain; `retry` starts a new one,
        /// at the line that called it.
        @Test(.debugBuildsOnly) func aChainThroughDelayTimeoutOrRetryNamesTheCallersLine() {
            #if DEBUG
                LogCapture.capture { log in
                    let line = #line + 2
                    do {
                        let (a, resolveA) = Promise<Int>.pending()
                        _ = a.delay(seconds: 0).map(on: nil) { _ -> Int in throw TestError.numbered(9_311) }
                        _ = a.timeout(seconds: 30).map(on: nil) { _ -> Int in throw TestError.numbered(9_312) }
                        _ = retry(attempts: 1) { a }.map(on: nil) { _ -> Int in throw TestError.numbered(9_313) }
                        resolveA.fulfill(1)
                    }
                    for number in [9_311, 9_312] {
                        #expect(log.rejections(number, within: 60) == 1)
                        let site = log.rejectionSites(number).first ?? nil
                        #expect(site?.fileID == Self.file, "\(number): \(String(describing: site))")
                        #expect(site?.line == line, "\(number)")
                    }
                    // `retry` makes a new chain, which begins where `retry` was called.
                    #expect(log.rejections(9_313, within: 60) == 1)
                    #expect(log.rejectionSites(9_313) == [CreationSite(fileID: Self.file, line: line + 3)])
                }
            #endif
        }

        /// `Promise(task:)`, `DispatchQueue.async(.promise)` and the combinators record the
        /// caller's site (see CombinatorSiteTests.swift for every combinator).
        @Test(.debugBuildsOnly) func promisesMadeByTaskQueueOrCombinatorsHaveTheCallersSite() {
            #if DEBUG
                LogCapture.capture { log in
                    let (a, resolveA) = Promise<Int>.pending()
                    do {
                        _ = DispatchQueue.global().async(.promise) { () throws -> Int in throw TestError.numbered(9_320)
                        }
                        _ = Promise<Int>(task: { 1 }).map(on: nil) { _ -> Int in throw TestError.numbered(9_321) }
                        _ = race(a, a).map(on: nil) { _ -> Int in throw TestError.numbered(9_322) }
                        _ = when(fulfilled: [a]).map(on: nil) { _ -> Int in throw TestError.numbered(9_323) }
                        resolveA.fulfill(1)
                    }
                    for number in [9_320, 9_321, 9_322, 9_323] {
                        #expect(log.rejections(number, within: 60) == 1, "\(number)")
                        #expect(log.rejectionSites(number).first??.fileID == Self.file, "\(number)")
                    }
                }
            #endif
        }
    }

    /// Races, re-entrancy and double reports.
    @Suite struct UnhandledRejectionRaceProbeTests {
        /// Rejecting races cancelling, with no handler: never reported, whichever wins (a
        /// cancellation is not reported, and `cancel()` after the rejection counts as seeing it).
        @Test func rejectRacingCancelIsNeverReported() {
            LogCapture.capture { log in
                let rounds = 2_000
                let rejectedWins = AtomicCounter()
                for _ in 0..<rounds {
                    let (promise, resolver) = Promise<Int>.pending()
                    let start = DispatchSemaphore(value: 0)
                    let group = DispatchGroup()
                    DispatchQueue.global().async(group: group) {
                        start.wait()
                        promise.cancel()
                    }
                    start.signal()
                    resolver.reject(TestError.numbered(9_401))
                    #expect(group.wait(timeout: .testTimeout) == .success)
                    if !resolver.isCancelled { rejectedWins.increment() }
                }
                #expect(rejectedWins.value <= rounds)
                #expect(log.rejections(9_401, expecting: 0) == 0)
            }
        }

        /// Reading the state from several threads while the promise is rejected: seen, never
        /// reported, and the reads see one consistent value.
        @Test func stateReadsRacingTheRejectionSeeIt() {
            LogCapture.capture { log in
                let rounds = 1_000
                let misses = AtomicCounter()
                for _ in 0..<rounds {
                    let (promise, resolver) = Promise<Int>.pending()
                    let start = DispatchSemaphore(value: 0)
                    let group = DispatchGroup()
                    for _ in 0..<2 {
                        DispatchQueue.global().async(group: group) {
                            start.wait()
                            while promise.isPending {}
                            if !promise.isRejected { misses.increment() }
                        }
                    }
                    for _ in 0..<2 { start.signal() }
                    resolver.reject(TestError.numbered(9_402))
                    #expect(group.wait(timeout: .testTimeout) == .success)
                }
                #expect(misses.value == 0)
                #expect(log.rejections(9_402) == 0)
            }
        }

        /// Many threads attach to and read one promise born rejected, and drop it: no report.
        @Test func manyThreadsAttachingToABornRejectedPromiseReportNothing() {
            LogCapture.capture { log in
                let handled = AtomicCounter()
                for _ in 0..<500 {
                    let promise = Promise<Int>(error: TestError.numbered(9_403))
                    DispatchQueue.concurrentPerform(iterations: 4) { index in
                        if index % 2 == 0 {
                            promise.catch(on: nil) { _ in handled.increment() }
                        } else {
                            _ = promise.map(on: nil) { $0 }.recover(on: nil) { _ in Guarantee.value(0) }
                            handled.increment()
                        }
                    }
                }
                #expect(handled.value == 2_000)
                #expect(log.rejections(9_403) == 0)
            }
        }

        /// Each chain end that nobody handles is reported once, not once per box of the chain.
        @Test func aLongChainIsReportedOnceAtItsEnd() {
            LogCapture.capture { log in
                do {
                    let (promise, resolver) = Promise<Int>.pending()
                    var end = promise
                    for _ in 0..<10_000 { end = end.map(on: nil) { $0 } }
                    _ = end.then(on: nil) { Promise.value($0) }.ensure(on: nil) {}
                    resolver.reject(TestError.numbered(9_404))
                }
                #expect(log.rejections(9_404, expecting: 2, within: 60) == 1)
            }
        }

        /// The log handler is user code: it may make, handle and drop promises, rejected ones
        /// among them, without a deadlock and with each of those reported once.
        @Test func theLogHandlerMayUsePledge() {
            LogCapture.capture { log in
                let inner = conf.logHandler
                conf.logHandler = { event in
                    inner(event)
                    guard case .unhandledRejection(let error, _) = event, error as? TestError == .numbered(9_405)
                    else { return }
                    Promise<Int>(error: TestError.boom).catch(on: nil) { _ in }
                    _ = Promise<Int>(error: TestError.numbered(9_406)).map(on: nil) { $0 }
                    let (pending, resolver) = Promise<Int>.pending()
                    pending.catch(on: nil) { _ in }
                    resolver.reject(TestError.boom)
                    #expect(Promise<Int>(error: TestError.boom).error != nil)
                }
                defer { conf.logHandler = inner }
                let finished = DispatchSemaphore(value: 0)
                DispatchQueue.global().async {
                    do { _ = Promise<Int>(error: TestError.numbered(9_405)) }
                    finished.signal()
                }
                #expect(finished.wait(timeout: .testTimeout) == .success)
                #expect(log.rejections(9_405, within: 60) == 1)
                #expect(log.rejections(9_406, within: 60) == 1)
            }
        }

        /// A rejected promise released while Pledge runs a handler (captured by a closure the
        /// operator drops once it has run): reported once, with no lock of Pledge held, so the
        /// log handler may attach to the very promise that is firing.
        @Test func aRejectionReleasedWhileFiringIsReportedOutsideAnyLock() {
            LogCapture.capture { log in
                let inner = conf.logHandler
                let probe = ProbeSlot<Promise<Int>>()
                let caught = AtomicCounter()
                conf.logHandler = { event in
                    inner(event)
                    guard case .unhandledRejection(let error, _) = event, error as? TestError == .numbered(9_407)
                    else { return }
                    probe.value?.catch(on: nil) { _ in caught.increment() }
                }
                defer { conf.logHandler = inner }
                let (root, rootResolver) = Promise<Int>.pending()
                probe.value = root
                do {
                    let captured = Promise<Int>(error: TestError.numbered(9_407))
                    root.map(on: nil) { _ in withExtendedLifetime(captured) { 0 } }.catch(on: nil) { _ in }
                }
                rootResolver.reject(TestError.boom)
                probe.value = nil
                #expect(log.rejections(9_407, within: 60) == 1)
                #expect(caught.value == 1)
            }
        }

        /// The same capture, released by a chain abandoned unresolved (see `Teardown`).
        @Test func aRejectionReleasedByAnAbandonedChainIsReportedOnce() {
            LogCapture.capture { log in
                do {
                    let (root, resolver) = Promise<Int>.pending()
                    let captured = Promise<Int>(error: TestError.numbered(9_408))
                    var end = root.map(on: nil) { _ in withExtendedLifetime(captured) { 0 } }
                    for _ in 0..<1_000 { end = end.map(on: nil) { $0 } }
                    withExtendedLifetime(resolver) {}
                }
                #expect(log.rejections(9_408, within: 60) == 1)
            }
        }
    }
}
