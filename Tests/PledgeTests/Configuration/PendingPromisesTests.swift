import Dispatch
import Foundation
import Synchronization
import Testing

#if DEBUG
    // The registry behind `pendingPromises()` exists only in debug builds, which always allow
    // `@testable`; a release build of the tests needs no internals.
    @testable import Pledge
#else
    import Pledge
#endif

/// `pendingPromises()` and `conf.longPendingThreshold`.
///
/// Other suites make promises at the same time, so each test looks only at the entries with the
/// sites it made. Tests that set a threshold run in a child process (see ``ConfigurationTests``).
extension ConfigurationTests {
    @Suite struct PendingPromisesTests {
        /// The entries of `pendingPromises()` made at `line` of this file.
        static func pending(madeAt line: Int) -> [PendingPromise] {
            pendingPromises().filter { $0.site == CreationSite(fileID: #fileID, line: line) }
        }

        @Test(.debugBuildsOnly) func aPendingPromiseIsListedWithItsSiteAndAgeUntilItResolves() {
            let (promise, resolver) = Promise<Int>.pending()
            let line = #line - 1
            let listed = Self.pending(madeAt: line)
            #expect(listed.count == 1)
            #expect(listed.first.map { $0.age >= .zero && $0.age < .seconds(60) } == true)
            let description = listed.first?.description ?? ""
            #expect(description.hasPrefix("pending for "))
            #expect(description.hasSuffix(", made at PledgeTests/PendingPromisesTests.swift:\(line)"))

            resolver.fulfill(1)
            #expect(Self.pending(madeAt: line).isEmpty)
            #expect(promise.value == 1)
        }

        @Test(.debugBuildsOnly) func everyLinkOfAPendingChainIsListedUntilTheChainEnds() throws {
            let (promise, resolver) = Promise<Int>.pending()
            let line = #line - 1
            let chain = promise.map(on: nil) { $0 + 1 }.then(on: nil) { Promise.value($0 * 2) }.done(on: nil) { _ in }
            // The promise, and the boxes of `map`, `then` and `done`, all with the chain's site.
            #expect(Self.pending(madeAt: line).count == 4)

            resolver.fulfill(1)
            try chain.wait()
            #expect(Self.pending(madeAt: line).isEmpty)
        }

        @Test(.debugBuildsOnly) func guaranteesAndCombinatorsAreListedWithTheLineThatMadeThem() {
            let (guarantee, resolve) = Guarantee<Int>.pending()
            let guaranteeLine = #line - 1
            let (input, resolver) = Promise<Int>.pending()
            let whenAll = when(fulfilled: [input, Promise.value(2)])
            let whenLine = #line - 1
            let (other, otherResolver) = Promise<Int>.pending()
            let first = race(input, other)
            let raceLine = #line - 1
            let lazy = Promise<Int>.lazy { $0.fulfill(1) }
            let lazyLine = #line - 1

            #expect(Self.pending(madeAt: guaranteeLine).count == 1)
            #expect(Self.pending(madeAt: whenLine).count == 1)
            #expect(Self.pending(madeAt: raceLine).count == 1)
            #expect(Self.pending(madeAt: lazyLine).count == 1)  // not started: still pending

            resolve(1)
            resolver.fulfill(1)
            #expect(Self.pending(madeAt: guaranteeLine).isEmpty)
            #expect(Self.pending(madeAt: whenLine).isEmpty)
            #expect(Self.pending(madeAt: raceLine).isEmpty)
            #expect(Self.pending(madeAt: lazyLine).count == 1)
            withExtendedLifetime((guarantee, whenAll, first, lazy, otherResolver)) {}
        }

        @Test(.debugBuildsOnly) func afterAndTheAsyncInitialisersNameTheLineThatCalledThem() {
            let gate = DispatchSemaphore(value: 0)
            let timer = after(seconds: 3_600)
            let afterLine = #line - 1
            let onQueue = DispatchQueue.global().async(.promise) { gate.wait() }
            let asyncLine = #line - 1
            let fromTask = Guarantee {
                await withCheckedContinuation { continuation in
                    DispatchQueue.global().async {
                        gate.wait()
                        continuation.resume()
                    }
                }
            }
            let taskLine = #line - 8

            #expect(Self.pending(madeAt: afterLine).count == 1)
            #expect(Self.pending(madeAt: asyncLine).count == 1)
            #expect(Self.pending(madeAt: taskLine).count == 1)
            gate.signal()
            gate.signal()
            fromTask.wait()
            onQueue.wait()
            #expect(Self.pending(madeAt: asyncLine).isEmpty)
            #expect(Self.pending(madeAt: taskLine).isEmpty)
            withExtendedLifetime(timer) {}
        }

        @Test(.debugBuildsOnly) func aCancelledOrFreedPromiseIsNoLongerListed() {
            LogCapture.capture { _ in
                let (promise, _) = Promise<Int>.pending()
                let cancelledLine = #line - 1
                do {
                    let freed = Promise<Int>.pending()
                    #expect(Self.pending(madeAt: #line - 1).count == 1)
                    withExtendedLifetime(freed) {}
                }
                let freedLine = #line - 4
                #expect(Self.pending(madeAt: cancelledLine).count == 1)

                promise.cancel()
                #expect(Self.pending(madeAt: cancelledLine).isEmpty)
                #expect(Self.pending(madeAt: freedLine).isEmpty)
            }
        }

        @Test(.enabled(if: !BuildConfiguration.isDebug, "checks what release builds leave out"))
        func releaseBuildsListNothing() {
            let (promise, resolver) = Promise<Int>.pending()
            #expect(pendingPromises().isEmpty)
            resolver.fulfill(1)
            #expect(promise.value == 1)
        }

        @Test(.debugBuildsOnly) func promisesMadeAndResolvedOnManyThreadsAtOnceLeaveExactlyThePendingOnesListed() {
            #if DEBUG
                let perThread = 2_000
                let threads = 8
                let held = Mutex<[Resolver<Int>]>([])
                let lines = Mutex<Set<Int>>([])
                let done = Atomic<Bool>(false)
                let reader = DispatchSemaphore(value: 0)
                // A reader lists and scans for as long as the writers run.
                DispatchQueue.global().async {
                    while !done.load(ordering: .acquiring) {
                        _ = pendingPromises().count
                        _ = conf.pending.reportDue(at: .now)
                    }
                    reader.signal()
                }
                DispatchQueue.concurrentPerform(iterations: threads) { thread in
                    var kept: [Resolver<Int>] = []
                    for index in 0..<perThread {
                        let (promise, resolver) = Promise<Int>.pending()
                        let line = #line - 1
                        let chained = promise.map(on: nil) { $0 }
                        if index.isMultiple(of: 2) {
                            resolver.fulfill(index)
                        } else {
                            kept.append(resolver)
                        }
                        withExtendedLifetime(chained) {}
                        if index == 0 { lines.withLock { _ = $0.insert(line) } }
                    }
                    held.withLock { $0 += kept }
                }
                done.store(true, ordering: .releasing)
                #expect(reader.wait(timeout: .testTimeout) == .success)
                let line = lines.withLock { $0.first ?? 0 }
                // Every promise whose resolver is held waits, and so does the `map` its box keeps.
                #expect(Self.pending(madeAt: line).count == threads * perThread / 2 * 2)
                for resolver in held.withLock({ $0 }) { resolver.fulfill(0) }
                #expect(Self.pending(madeAt: line).isEmpty)
            #endif
        }

        @Test(.debugBuildsOnly) func noTimerExistsUntilAThresholdIsSet() {
            #if DEBUG
                // This process never sets one (see `ConfigurationTests`).
                #expect(conf.longPendingThreshold == nil)
                #expect(!conf.pending.timerState.exists)
            #endif
        }

        @Test(.debugBuildsOnly) func aPromisePendingPastTheThresholdIsReportedOnceAndAResolvedOneNever() async {
            await #expect(processExitsWith: .success) {
                #if DEBUG
                    let events = Mutex<[LogEvent]>([])
                    conf.logHandler = { event in events.withLock { $0.append(event) } }
                    conf.longPendingThreshold = .seconds(3_600)
                    #expect(conf.pending.timerState.exists)

                    // Sites given explicitly: inside an exit test, `#line` is the line of the macro.
                    let stuck = Promise<Int>.pending(file: "App/Stuck.swift", line: 1)
                    let stuckSite = CreationSite(fileID: "App/Stuck.swift", line: 1)
                    let (resolved, resolver) = Promise<Int>.pending(file: "App/Resolved.swift", line: 2)
                    let resolvedSite = CreationSite(fileID: "App/Resolved.swift", line: 2)
                    let stuckGuarantee = Guarantee<Int>.pending(file: "App/Guarantee.swift", line: 3)
                    let guaranteeSite = CreationSite(fileID: "App/Guarantee.swift", line: 3)

                    // Not due yet.
                    #expect(conf.pending.reportDue(at: .now + .seconds(3_000)).isEmpty)
                    resolver.fulfill(1)
                    let due = conf.pending.reportDue(at: .now + .seconds(3_601))
                    let sites = due.compactMap { event -> CreationSite? in
                        if case .longPending(let site, let age) = event, age >= .seconds(3_600) { site } else { nil }
                    }
                    #expect(sites.contains(stuckSite))
                    #expect(sites.contains(guaranteeSite))
                    #expect(!sites.contains(resolvedSite))
                    // Reported once: a later scan finds nothing new.
                    #expect(conf.pending.reportDue(at: .now + .seconds(7_200)).isEmpty)
                    withExtendedLifetime((stuck, resolved, stuckGuarantee)) {}
                #endif
            }
        }

        @Test(.debugBuildsOnly) func theTimerReportsAPromiseAsItReachesTheThresholdAndStopsWhenTurnedOff() async {
            await #expect(processExitsWith: .success) {
                #if DEBUG
                    let events = Mutex<[LogEvent]>([])
                    let arrived = DispatchSemaphore(value: 0)
                    conf.logHandler = { event in
                        events.withLock { $0.append(event) }
                        arrived.signal()
                    }
                    let early = Promise<Int>.pending(file: "App/Early.swift", line: 1)
                    let earlySite = CreationSite(fileID: "App/Early.swift", line: 1)
                    conf.longPendingThreshold = .milliseconds(50)
                    let (latePromise, lateResolver) = Promise<Int>.pending(file: "App/Late.swift", line: 2)
                    let lateSite = CreationSite(fileID: "App/Late.swift", line: 2)
                    let late = latePromise.map(on: nil) { $0 }
                    let (quick, resolver) = Promise<Int>.pending()
                    resolver.fulfill(1)

                    func reports(of site: CreationSite) -> [Duration] {
                        events.withLock {
                            $0.compactMap { if case .longPending(site, let age) = $0 { age } else { nil } }
                        }
                    }
                    let deadline = DispatchTime.now() + 60
                    while reports(of: lateSite).count < 2, arrived.wait(timeout: deadline) == .success {}
                    #expect(reports(of: earlySite).count == 1)
                    #expect(reports(of: lateSite).count == 2)  // the promise and its `map`
                    #expect(reports(of: lateSite).allSatisfy { $0 >= .milliseconds(50) })
                    #expect(events.withLock { $0.allSatisfy { "\($0)" == "longPending" } })

                    conf.longPendingThreshold = nil
                    #expect(!conf.pending.timerState.exists)
                    withExtendedLifetime((early, late, lateResolver, quick)) {}
                #endif
            }
        }

        @Test(.debugBuildsOnly) func promisesAlreadyPendingThatLongAreReportedAtOnce() async {
            await #expect(processExitsWith: .success) {
                #if DEBUG
                    let ages = Mutex<[Duration]>([])
                    let arrived = DispatchSemaphore(value: 0)
                    conf.logHandler = { event in
                        if case .longPending(_, let age) = event { ages.withLock { $0.append(age) } }
                        arrived.signal()
                    }
                    let (old, resolver) = Promise<Int>.pending(file: "App/Old.swift", line: 1)
                    let threshold = Duration.seconds(2)
                    // Time passing, not an ordering: wait until the promise is as old as the threshold.
                    while pendingPromises().first(where: { $0.site?.fileID == "App/Old.swift" }).map({
                        $0.age < threshold
                    }) ?? false {
                        usleep(10_000)
                    }
                    conf.longPendingThreshold = threshold
                    #expect(arrived.wait(timeout: .now() + 60) == .success)
                    // Reported by the first scan, not a threshold after the threshold was set.
                    #expect(ages.withLock { $0.count == 1 && $0[0] < threshold + .milliseconds(1_500) })
                    withExtendedLifetime((old, resolver)) {}
                #endif
            }
        }

        @Test(.debugBuildsOnly) func theTimerSleepsWhenNothingIsLeftToReport() async {
            await #expect(processExitsWith: .success) {
                #if DEBUG
                    conf.logHandler = { _ in }
                    conf.longPendingThreshold = .seconds(3_600)
                    let first = Promise<Int>.pending()
                    // Everything pending is reported: nothing is left to wake for.
                    _ = conf.pending.reportDue(at: .now + .seconds(7_200))
                    #expect(!conf.pending.timerState.isSet)
                    // A new promise sets the timer again.
                    let second = Promise<Int>.pending()
                    #expect(conf.pending.timerState.isSet)
                    withExtendedLifetime((first, second)) {}
                #endif
            }
        }

        @Test(.debugBuildsOnly) func thresholdsSetFromManyThreadsAtOnceLeaveTheValueAndTheTimerInStep() async {
            await #expect(processExitsWith: .success) {
                #if DEBUG
                    for _ in 0..<300 {
                        DispatchQueue.concurrentPerform(iterations: 4) { index in
                            conf.longPendingThreshold = index.isMultiple(of: 2) ? .seconds(3_600) : nil
                        }
                        #expect((conf.longPendingThreshold == nil) == !conf.pending.timerState.exists)
                    }
                #endif
            }
        }

        @Test func aThresholdOfZeroOrLessIsBadInputAndLeavesReportingOff() async {
            await #expect(processExitsWith: .success) {
                let events = Mutex<[String]>([])
                conf.logHandler = { event in events.withLock { $0.append("\(event)") } }
                conf.longPendingThreshold = .zero
                #expect(conf.longPendingThreshold == nil)
                conf.longPendingThreshold = .seconds(-1)
                #expect(conf.longPendingThreshold == nil)
                #expect(events.withLock { $0.filter { $0.hasPrefix("badInput") }.count } == 2)
                #if DEBUG
                    #expect(!conf.pending.timerState.exists)
                #endif
            }
        }
    }
}
