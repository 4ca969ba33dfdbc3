import Dispatch
import Foundation
import Pledge
import Testing

/// Probes of `LogEvent.unhandledRejection`: events are counted by a unique error number, since
/// other suites log from other threads while these run.
extension LogCapture {
    /// The sites of the unhandled rejections with `TestError.numbered(number)`, one per event.
    func rejectionSites(_ number: Int) -> [CreationSite?] {
        var sites: [CreationSite?] = []
        for event in events(ofKind: .unhandledRejection) {
            if case .unhandledRejection(let error, let site) = event, error as? TestError == .numbered(number) {
                sites.append(site)
            }
        }
        return sites
    }

    /// How many unhandled rejections with `TestError.numbered(number)` were logged, once at least
    /// `expected` were or `seconds` have passed. A check that reports are there passes a
    /// generous `within:` (they may come from another thread under load); a check that none is
    /// keeps the short default, a grace period for a late one.
    func rejections(_ number: Int, expecting expected: Int = 1, within seconds: Double = 0.3) -> Int {
        let deadline = Date().addingTimeInterval(seconds)
        while rejectionSites(number).count < expected, Date() < deadline { usleep(2_000) }
        return rejectionSites(number).count
    }
}

/// A slot a closure reads after it was made: how a handler gets the promise its operator returned.
final class ProbeSlot<Value: Sendable>: @unchecked Sendable {
    // Safety: `stored` is read and written only while `lock` is held.
    private var stored: Value?
    private let lock = NSLock()

    var value: Value? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

let probeFile = "PledgeTests/UnhandledRejectionProbeTests.swift"

extension ConfigurationTests {
    /// Rejections nobody handles are reported even when only `onCancel` hooks wait on them.
    @Suite struct UnhandledRejectionMissedTests {
        /// A promise whose producer registers `onCancel` (the documented pattern) carries a cancel
        /// hook, stored as a handler; a hook is no dependent, so its rejection is still reported.
        @Test func aRejectionOfAPromiseWithAnOnCancelHookIsReported() {
            LogCapture.capture { log in
                do {
                    _ = Promise<Int> { seal in
                        seal.onCancel {}
                        seal.reject(TestError.numbered(9_101))
                    }
                }
                #expect(log.rejections(9_101, within: 60) == 1)
            }
        }

        @Test func aRejectedRaceNobodyHandlesIsReported() {
            LogCapture.capture { log in
                let (a, resolveA) = Promise<Int>.pending()
                let (b, resolveB) = Promise<Int>.pending()
                do { _ = race(a, b) }
                resolveA.reject(TestError.numbered(9_102))
                resolveB.fulfill(1)
                #expect(log.rejections(9_102, within: 60) == 1)
            }
        }

        @Test func aRejectedWhenNobodyHandlesIsReported() {
            LogCapture.capture { log in
                let (a, resolveA) = Promise<Int>.pending()
                let (b, resolveB) = Promise<Int>.pending()
                do { _ = when(fulfilled: [a, b]) }
                resolveA.reject(TestError.numbered(9_103))
                resolveB.fulfill(1)
                #expect(log.rejections(9_103, within: 60) == 1)
            }
        }

        @Test func aRejectedTimeoutNobodyHandlesIsReported() {
            LogCapture.capture { log in
                let (a, resolveA) = Promise<Int>.pending()
                do { _ = a.timeout(seconds: 30) }
                resolveA.reject(TestError.numbered(9_104))
                #expect(log.rejections(9_104, within: 60) == 1)
            }
        }

        @Test func aRejectedRetryNobodyHandlesIsReported() {
            LogCapture.capture { log in
                do { _ = retry(attempts: 1) { Promise<Int>(error: TestError.numbered(9_105)) } }
                #expect(log.rejections(9_105, within: 60) == 1)
            }
        }

        @Test func aRejectedDelayNobodyHandlesIsReported() {
            LogCapture.capture { log in
                let (a, resolveA) = Promise<Int>.pending()
                do { _ = a.delay(seconds: 30) }
                resolveA.reject(TestError.numbered(9_106))
                #expect(log.rejections(9_106, within: 60) == 1)
            }
        }

        @Test func aRejectedTaskPromiseNobodyHandlesIsReported() {
            LogCapture.capture { log in
                do { _ = Promise<Int>(task: { throw TestError.numbered(9_107) }) }
                #expect(log.rejections(9_107, within: 60) == 1)
            }
        }

        /// Combinators rejected while they are being made, with or without their cancel hook, and
        /// an `onCancel` added after the rejection: all reported alike.
        @Test func aCombinatorRejectedAtOnceIsReported() {
            LogCapture.capture { log in
                do {
                    _ = when(fulfilled: [
                        Promise<Int>(error: TestError.numbered(9_110)), Promise<Int>.pending().promise,
                    ])
                    _ = race(Promise<Int>(error: TestError.numbered(9_111)), Promise<Int>(error: TestError.boom))
                    _ = Promise<Int> { seal in
                        seal.reject(TestError.numbered(9_112))
                        seal.onCancel {}
                    }
                }
                #expect(log.rejections(9_110, within: 60) == 1)
                #expect(log.rejections(9_111, within: 60) == 1)
                #expect(log.rejections(9_112, within: 60) == 1)
            }
        }

        /// Guards: the chain end after such a combinator has no hook, and is reported.
        @Test func aChainEndAfterACombinatorIsReported() {
            LogCapture.capture { log in
                let (a, resolveA) = Promise<Int>.pending()
                do {
                    _ = race(a, Promise<Int>.pending().promise).map(on: nil) { $0 }
                    _ = when(fulfilled: [a]).map(on: nil) { $0 }
                    _ = a.timeout(seconds: 30).map(on: nil) { $0 }
                }
                resolveA.reject(TestError.numbered(9_108))
                #expect(log.rejections(9_108, expecting: 3, within: 60) == 3)
            }
        }

        @Test func aDispatchQueuePromiseNobodyHandlesIsReported() {
            LogCapture.capture { log in
                do {
                    _ = DispatchQueue.global().async(.promise) { () throws -> Int in throw TestError.numbered(9_109) }
                }
                #expect(log.rejections(9_109, within: 60) == 1)
            }
        }
    }

    /// Rejections handed to Pledge, or given up on with `cancel()`, are not reported.
    @Suite struct UnhandledRejectionFalseAlarmTests {
        /// A `then` closure returns a rejected promise after its result was cancelled: the chain
        /// was cancelled on purpose, and the promise was handed to Pledge.
        @Test func aRejectedPromiseReturnedToACancelledThenIsNotReported() {
            LogCapture.capture { log in
                let slot = ProbeSlot<Promise<Int>>()
                let (a, resolveA) = Promise<Int>.pending()
                slot.value = a.then(on: nil) { _ -> Promise<Int> in
                    slot.value?.cancel()
                    return Promise<Int>(error: TestError.numbered(9_201))
                }
                resolveA.fulfill(1)
                slot.value = nil
                #expect(log.rejections(9_201) == 0)
            }
        }

        @Test func aRejectedPromiseReturnedToACancelledRecoverIsNotReported() {
            LogCapture.capture { log in
                let slot = ProbeSlot<Promise<Int>>()
                let (a, resolveA) = Promise<Int>.pending()
                slot.value = a.recover(on: nil) { _ -> Promise<Int> in
                    slot.value?.cancel()
                    return Promise<Int>(error: TestError.numbered(9_202))
                }
                resolveA.reject(TestError.boom)
                slot.value = nil
                #expect(log.rejections(9_202) == 0)
            }
        }

        /// `retry` cancelled while its body runs: the attempt the body returns is handed to
        /// retry, which cancels its own link to it (born rejected): not reported.
        @Test func aRejectedAttemptOfACancelledRetryIsNotReported() {
            LogCapture.capture { log in
                let slot = ProbeSlot<Promise<Int>>()
                let finished = DispatchSemaphore(value: 0)
                let attempts = AtomicCounter()
                let result = retry(attempts: 2, backoff: .constant(.milliseconds(20))) { () -> Promise<Int> in
                    if attempts.increment() == 2 {
                        slot.value?.cancel()
                        defer { finished.signal() }
                        return Promise<Int>(error: TestError.numbered(9_203))
                    }
                    return Promise<Int>(error: TestError.boom)
                }
                slot.value = result
                #expect(finished.wait(timeout: .testTimeout) == .success)
                slot.value = nil
                _ = result.error
                #expect(log.rejections(9_203) == 0)
            }
        }

        /// Cancelling a promise that was already rejected, which nobody else saw, is the
        /// user saying it no longer wants the outcome: not reported.
        @Test func cancellingARejectedPromiseIsNotReported() {
            LogCapture.capture { log in
                do {
                    let (promise, resolver) = Promise<Int>.pending()
                    resolver.reject(TestError.numbered(9_204))
                    promise.cancel()
                }
                #expect(log.rejections(9_204) == 0)
            }
        }

        /// Guard: work an invalidated queue drops cancels the operator's result; the input
        /// was seen by the handler that hopped.
        @Test func workAnInvalidatedQueueDropsReportsNothing() {
            LogCapture.capture { log in
                let queue = InvalidatableQueue(queue: .global())
                queue.invalidate()
                do {
                    let error = TestError.numbered(9_205)
                    Promise<Int>(error: error).catch(on: queue) { _ in }
                    _ = Promise<Int>(error: error).recover(on: queue) { _ in Promise<Int>(error: error) }
                    _ = Promise.value(1).then(on: queue) { _ in Promise<Int>(error: error) }
                }
                #expect(log.rejections(9_205) == 0)
            }
        }

        /// Guard: a log handler that drops a rejected promise from inside each report (a bounded
        /// recursion through `deinit`) reports each one once and returns.
        @Test func aLogHandlerThatDropsRejectionsRecursesBoundedly() {
            LogCapture.capture { log in
                let inner = conf.logHandler
                conf.logHandler = { event in
                    inner(event)
                    guard case .unhandledRejection(let error, _) = event, case .numbered(let n)? = error as? TestError,
                        (9_500..<9_700).contains(n)
                    else { return }
                    _ = Promise<Int>(error: TestError.numbered(n + 1))
                }
                defer { conf.logHandler = inner }
                do { _ = Promise<Int>(error: TestError.numbered(9_500)) }
                #expect(log.rejections(9_700, within: 60) == 1)
                #expect(log.rejections(9_600, within: 60) == 1)
            }
        }

        /// Regression guards: everything below hands its errors on, and reports nothing.
        @Test func handlersAndCombinatorsReportNothing() {
            LogCapture.capture { log in
                let error = TestError.numbered(9_210)
                let done = DispatchSemaphore(value: 0)
                do {
                    Promise<Int>(error: error).ensure(on: nil) {}.catch(on: nil) { _ in }
                    Promise<Int>(error: error).tap(on: nil) { _ in }.catch(on: nil) { _ in }
                    Promise<Int>(error: error).get(on: nil) { _ in }.catch(on: nil) { _ in }
                    Promise<Int>(error: error).ensureThen(on: nil) { Guarantee.value(()) }.catch(on: nil) { _ in }
                    Promise<Int>(error: error).catch(on: nil) { _ in }.finally(on: nil) {}
                    Promise<Int>(error: error).validate(on: nil) { _ in true }.catch(on: nil) { _ in }
                    Promise<Int?>(error: error).compactMap(on: nil) { $0 }.catch(on: nil) { _ in }
                    Promise<[Int]>(error: error).firstValue.catch(on: nil) { _ in }
                    Promise<[Int]>(error: error).mapValues(on: nil) { $0 }.catch(on: nil) { _ in }
                    Promise(Promise<Int>(error: error)).catch(on: nil) { _ in }
                    Promise<Int>(error: PMKError.cancelled).catch(on: nil, policy: .allErrorsExceptCancellation) { _ in
                    }
                    _ = when(resolved: [Promise<Int>(error: error), Promise<Int>(error: error)])
                    when(fulfilled: [Promise<Int>(error: error), Promise<Int>(error: error)]).catch(on: nil) { _ in }
                    race(fulfilled: [Promise<Int>(error: error), Promise<Int>(error: error)]).catch(on: nil) { _ in }
                    when(fulfilled: [Promise<Int>(error: error), Promise.value(1)].makeIterator(), concurrently: 1)
                        .catch(on: nil) { _ in }
                    Promise<Int>(error: error).delay(seconds: 0).catch(on: nil) { _ in done.signal() }
                    Promise<Int>(error: error).timeout(seconds: 30).catch(on: nil) { _ in }
                    Guarantee.value(1).map(on: nil) { _ -> Int in throw error }.catch(on: nil) { _ in }
                    Promise.value(1).then(on: nil) { _ in Promise<Int>(error: error) }.catch(on: nil) { _ in }
                    Promise<Int>(error: error).then(on: .global()) { Promise.value($0) }.catch(on: .global()) { _ in
                        done.signal()
                    }
                }
                #expect(done.wait(timeout: .testTimeout) == .success)
                #expect(done.wait(timeout: .testTimeout) == .success)
                do {
                    let (a, resolveA) = Promise<Int>.pending()
                    let awaited = DispatchSemaphore(value: 0)
                    Task {
                        _ = try? await a.async()
                        _ = try? await Promise<Int>(error: error).async()
                        awaited.signal()
                    }
                    usleep(20_000)
                    resolveA.reject(error)
                    #expect(awaited.wait(timeout: .testTimeout) == .success)
                }
                #expect(log.rejections(error.number, expecting: 1, within: 0.3) == 0)
            }
        }

        /// A race's loser rejecting after the race was won, and after the race was dropped.
        @Test func aLateLoserOfADroppedRaceIsNotReported() {
            LogCapture.capture { log in
                let (loser, reject) = Promise<Int>.pending()
                do { race(Promise.value(1), loser).catch(on: nil) { _ in } }
                reject.reject(TestError.numbered(9_211))
                #expect(log.rejections(9_211) == 0)
            }
        }

        /// `when(fulfilled:concurrently:)` over promises made in advance stops pulling at the
        /// first rejection: the ones it never pulled were never handed to it, and are reported
        /// (as documented there). Pulling them would start new work for a lazy iterator.
        @Test func promisesAFailedConcurrentWhenNeverPulledAreReported() {
            LogCapture.capture { log in
                do {
                    let inputs = (0..<3).map { _ in Promise<Int>(error: TestError.numbered(9_213)) }
                    when(fulfilled: inputs.makeIterator(), concurrently: 1).catch(on: nil) { _ in }
                }
                #expect(log.rejections(9_213, expecting: 2, within: 60) == 2)
            }
        }

        /// The tuple `when`s attach to every input, rejected or not.
        @Test func tupleWhenSeesEveryInput() {
            LogCapture.capture { log in
                do {
                    let error = TestError.numbered(9_214)
                    when(fulfilled: Promise<Int>(error: error), Promise<Int>(error: error)).catch(on: nil) { _ in }
                    when(fulfilled: Promise<Int>(error: error), Promise<Int>(error: error), Promise<Int>(error: error))
                        .catch(on: nil) { _ in }
                }
                #expect(log.rejections(9_214) == 0)
            }
        }

        /// A `when` that failed fast: the later rejections of its other inputs count as seen.
        @Test func laterRejectionsOfAFailedWhenAreNotReported() {
            LogCapture.capture { log in
                let (a, rejectA) = Promise<Int>.pending()
                let (b, rejectB) = Promise<Int>.pending()
                do { when(fulfilled: [a, b]).catch(on: nil) { _ in } }
                rejectA.reject(TestError.numbered(9_212))
                rejectB.reject(TestError.numbered(9_212))
                #expect(log.rejections(9_212) == 0)
            }
        }
    }
}

extension TestError {
    var number: Int {
        if case .numbered(let number) = self { return number }
        return -1
    }
}
