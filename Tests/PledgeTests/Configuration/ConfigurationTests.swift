import Dispatch
import Foundation
import Pledge
import Testing

/// Tests of the process-wide `conf`: its defaults, how it routes handlers, and the log handler.
///
/// Every other suite runs in parallel with this one and must not depend on `conf`: it passes
/// `on:` and `policy:` explicitly. Some of them (the stress suite) even assert that `conf` keeps
/// its default values while they run. So:
/// - tests that give `conf` any other value do so inside an exit test, in a child process,
///   where nobody else can see the change;
/// - tests that rely on the defaults, or that replace the log handler in this process, form one
///   serialized suite (suites nested in it by extensions in other files included), so that no
///   two of them run at once.
@Suite(.serialized)
struct ConfigurationTests {
    @Test func defaultsAreTheSharedSerialQueueAndThePolicyThatSkipsCancellations() {
        let queues = conf.Q
        #expect(queues.map === PMKConfiguration.defaultQueue)
        #expect(queues.return === PMKConfiguration.defaultQueue)
        #expect(conf.catchPolicy == .allErrorsExceptCancellation)
    }

    @Test func mapAndReturnHandlersRunOnTheDefaultQueueByDefault() {
        let runs = Self.runEveryHandlerKind()

        #expect(Set(runs.keys) == Self.mapHandlers.union(Self.returnHandlers))
        for (handler, queue) in runs {
            #expect(queue == "default", "\(handler) ran on \(queue)")
        }
    }

    @Test func settingQRoutesMapHandlersToTheMapQueueAndReturnHandlersToTheReturnQueue() async {
        await #expect(processExitsWith: .success) {
            let mapQueue = TestQueues.serial("conf.map")
            let returnQueue = TestQueues.serial("conf.return")

            let runs = ConfigurationTests.runEveryHandlerKind(routedTo: (mapQueue, returnQueue))

            #expect(Set(runs.keys) == ConfigurationTests.mapHandlers.union(ConfigurationTests.returnHandlers))
            for handler in ConfigurationTests.mapHandlers {
                #expect(runs[handler] == "map", "\(handler) ran on \(runs[handler] ?? "nothing")")
            }
            for handler in ConfigurationTests.returnHandlers {
                #expect(runs[handler] == "return", "\(handler) ran on \(runs[handler] ?? "nothing")")
            }
        }
    }

    /// Replacing a log handler or the queues releases the old ones after `conf`'s lock: their
    /// captures' `deinit`s are user code, and one that reads `conf` must not deadlock.
    @Test func replacedHandlersAndQueuesAreReleasedOutsideConfsLock() async {
        await #expect(processExitsWith: .success) {
            let finished = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                let original = conf.logHandler
                do {
                    let reader = DeinitAction { _ = conf.catchPolicy }
                    conf.logHandler = { [reader] event in withExtendedLifetime(reader) { original(event) } }
                }
                conf.logHandler = original  // releases `reader`, whose deinit reads conf

                do {
                    let queue = TestQueues.serial("conf.released")
                    let reader = DeinitAction { _ = conf.Q }
                    queue.setSpecific(key: DeinitAction.key, value: reader)
                    conf.Q = (queue, queue)
                }
                conf.Q = (PMKConfiguration.defaultQueue, PMKConfiguration.defaultQueue)  // releases `queue`
                finished.signal()
            }
            #expect(finished.wait(timeout: .now() + 10) == .success, "replacing a conf value deadlocked")
        }
    }

    @Test func assigningOneQueueOfQLeavesTheOtherOneAlone() async {
        await #expect(processExitsWith: .success) {
            let mapQueue = TestQueues.serial("conf.map-only")
            let returnQueue = TestQueues.serial("conf.return-only")

            conf.Q.map = mapQueue
            #expect(conf.Q.map === mapQueue)
            #expect(conf.Q.return === PMKConfiguration.defaultQueue)

            conf.Q.return = returnQueue
            #expect(conf.Q.map === mapQueue)
            #expect(conf.Q.return === returnQueue)
        }
    }

    @Test func theQueueOfAHandlerIsChosenWhenItIsAttached() async {
        await #expect(processExitsWith: .success) {
            let (promise, resolver) = Promise<Int>.pending()
            let onDefaultQueue = promise.map { _ in TestQueues.isOn(PMKConfiguration.defaultQueue) }
            let elsewhere = TestQueues.serial("conf.later")

            conf.Q = (elsewhere, elsewhere)
            resolver.fulfill(1)

            #expect(onDefaultQueue.settledValue() == true)
        }
    }

    @Test func catchPolicyIsTheDefaultPolicyOfCatchAndRecover() async {
        await #expect(processExitsWith: .success) {
            let cancelled = Promise<Int>(error: PMKError.cancelled)
            let caught = AtomicFlag()

            conf.catchPolicy = .allErrors
            cancelled.catch(on: nil) { _ in caught.set() }
            let recovered = cancelled.recover(on: nil) { _ in Promise.value(7) }
            let voidRecovered = Promise<Void>(error: CancellationError()).recover(on: nil) { (_: Error) throws in }

            #expect(conf.catchPolicy == .allErrors)
            #expect(caught.isSet)
            #expect(recovered.value == 7)
            #expect(voidRecovered.isFulfilled)
        }
    }

    @Test func nilQueuesInQRunHandlersInline() async {
        await #expect(processExitsWith: .success) {
            conf.Q = (nil, nil)

            let mapped = Promise.value(1).map { $0 + 1 }
            let finished = Guarantee.value(1).done { _ in }

            // Inline handlers on resolved promises have run before the operator returns.
            #expect(mapped.value == 2)
            #expect(finished.isFulfilled)
        }
    }

    @Test func waitOnAQueueConfiguredInQLogsWaitOnHandlerQueueOnlyWhileItIsConfigured() async {
        await #expect(processExitsWith: .success) {
            let queue = TestQueues.serial("conf.wait")

            LogCapture.capture { log in
                conf.Q = (queue, queue)
                #expect(
                    ConfigurationTests.waitWhilePending(on: queue) { log.waitForEvent(ofKind: .waitOnHandlerQueue) })

                conf.Q = (PMKConfiguration.defaultQueue, PMKConfiguration.defaultQueue)
                #expect(ConfigurationTests.waitWhilePending(on: queue) { true })

                #expect(log.events(ofKind: .waitOnHandlerQueue).count == 1)
            }
        }
    }

    @Test func theDefaultQueueNeverRunsTwoHandlersAtOnce() {
        // Given 200 pending promises, half with a map-type and half with a return-type handler
        // on the default queues, each tracking how many handlers are running,
        let count = 200
        let running = AtomicCounter()
        let overlaps = AtomicCounter()
        let ran = AtomicCounter()
        let group = DispatchGroup()
        let handler: @Sendable () -> Void = {
            if running.increment() > 1 { overlaps.increment() }
            for _ in 0..<3 { sched_yield() }  // give an overlapping handler time to show up
            running.decrement()
            ran.increment()
            group.leave()
        }
        var resolvers: [Resolver<Int>] = []
        var results: [Promise<Void>] = []
        for index in 0..<count {
            let (promise, resolver) = Promise<Int>.pending()
            group.enter()
            if index.isMultiple(of: 2) {
                results.append(promise.map { _ in handler() })
            } else {
                results.append(promise.done { _ in handler() })
            }
            resolvers.append(resolver)
        }

        // when they are fulfilled from many threads at once,
        let all = resolvers
        DispatchQueue.concurrentPerform(iterations: count) { all[$0].fulfill($0) }

        // then every handler runs, one at a time.
        #expect(group.wait(timeout: .testTimeout) == .success)
        #expect(ran.value == count)
        #expect(overlaps.value == 0)
        #expect(results.allSatisfy { $0.settledResult() != nil })
    }

    @Test func confCanBeReadAndWrittenFromManyThreadsAtOnce() async {
        await #expect(processExitsWith: .success) {
            // Writers switch both queues at once between two pairs; readers must never see a
            // pair torn between two writes.
            let first = TestQueues.serial("conf.first")
            let second = TestQueues.serial("conf.second")
            let tornReads = AtomicCounter()
            let logged = AtomicCounter()

            DispatchQueue.concurrentPerform(iterations: 4_000) { index in
                switch index % 4 {
                case 0:
                    conf.Q = index.isMultiple(of: 8) ? (first, first) : (second, second)
                case 1:
                    let queues = conf.Q
                    if queues.map !== queues.return { tornReads.increment() }
                case 2:
                    conf.catchPolicy = index.isMultiple(of: 8) ? .allErrors : .allErrorsExceptCancellation
                    _ = conf.catchPolicy
                default:
                    conf.logHandler = { _ in logged.increment() }
                    conf.logHandler(.waitOnHandlerQueue)
                }
            }

            #expect(tornReads.value == 0)
            #expect(logged.value == 1_000)
        }
    }

    @Test func theDefaultLogHandlerWritesTheEventsDescriptionToStandardError() async throws {
        let child = try await #require(processExitsWith: .success, observing: [\.standardErrorContent]) {
            PMKConfiguration.defaultLogHandler(.nilDispatchQueueWithFlags)
        }

        let output = String(decoding: child.standardErrorContent, as: UTF8.self)
        #expect(output.contains(LogEvent.nilDispatchQueueWithFlags.message + "\n"))
    }

    @Test func theDefaultLogHandlerKeepsLinesWholeWhenThreadsLogAtOnce() async throws {
        let child = try await #require(processExitsWith: .success, observing: [\.standardErrorContent]) {
            // Text and newline written apart would let two threads' lines run into each other.
            DispatchQueue.concurrentPerform(iterations: 4) { thread in
                for _ in 0..<500 {
                    PMKConfiguration.defaultLogHandler(
                        thread.isMultiple(of: 2) ? .nilDispatchQueueWithFlags : .cauterized(TestError.boom))
                }
            }
        }

        let output = String(decoding: child.standardErrorContent, as: UTF8.self)
        let expected: Set = [
            LogEvent.nilDispatchQueueWithFlags.message, LogEvent.cauterized(TestError.boom).message,
        ]
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(output.hasSuffix("\n"))
        #expect(lines.count == 2_000)
        #expect(lines.allSatisfy { expected.contains(String($0)) })
    }

    @Test func theDefaultLogHandlerIsTheInitialLogHandler() async throws {
        let child = try await #require(processExitsWith: .success, observing: [\.standardErrorContent]) {
            Promise<Int>(error: TestError.boom).cauterize()
        }

        let output = String(decoding: child.standardErrorContent, as: UTF8.self)
        #expect(output.contains(LogEvent.cauterized(TestError.boom).message + "\n"))
    }
}

extension ConfigurationTests {
    static let mapHandlers: Set = [
        "then", "map", "compactMap", "tap", "recover", "recover→Guarantee", "Void recover→Guarantee",
        "Void recover→Promise", "Guarantee.map", "Guarantee.then",
    ]
    static let returnHandlers: Set = [
        "done", "get", "catch", "finally", "ensure", "ensureThen", "Guarantee.done", "Guarantee.get",
    ]

    /// Blocks `queue` in `wait()` on a pending promise, fulfils the promise once `ready` returns,
    /// and tells whether `ready` returned `true` and the wait then ended.
    static func waitWhilePending(on queue: DispatchQueue, fulfilWhen ready: () -> Bool) -> Bool {
        let (promise, resolver) = Promise<Int>.pending()
        let started = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        queue.async {
            started.signal()
            _ = try? promise.wait()
            finished.signal()
        }
        let isReady = started.wait(timeout: .testTimeout) == .success && ready()
        resolver.fulfill(1)
        return isReady && finished.wait(timeout: .testTimeout) == .success
    }

    /// Attaches one handler of every kind with its default queue, after setting `conf.Q` to
    /// `queues` when given, and reports where each one ran: "default", "map", "return" or
    /// "elsewhere".
    static func runEveryHandlerKind(
        routedTo queues: (map: DispatchQueue, return: DispatchQueue)? = nil
    ) -> [String: String] {
        let runs = Recorder<(String, String)>()
        let group = DispatchGroup()
        let report: @Sendable (String) -> Void = { handler in
            let queue: String
            if let queues, TestQueues.isOn(queues.map) {
                queue = "map"
            } else if let queues, TestQueues.isOn(queues.return) {
                queue = "return"
            } else if TestQueues.isOn(PMKConfiguration.defaultQueue) {
                queue = "default"
            } else {
                queue = "elsewhere"
            }
            runs.append((handler, queue))
            group.leave()
        }
        for _ in 0..<(mapHandlers.count + returnHandlers.count) { group.enter() }

        // Only ever called with `queues` in a child process: see the suite's documentation.
        if let queues { conf.Q = (queues.map, queues.return) }
        attachEveryHandlerKind(report)

        #expect(group.wait(timeout: .testTimeout) == .success)
        return Dictionary(runs.all, uniquingKeysWith: { first, _ in first })
    }

    /// Attaches one handler of every kind, all with their default queue.
    private static func attachEveryHandlerKind(_ report: @escaping @Sendable (String) -> Void) {
        let fulfilled = Promise.value(1)
        let rejected = Promise<Int>(error: TestError.boom)
        let rejectedVoid = Promise<Void>(error: TestError.boom)
        let guarantee = Guarantee.value(1)

        // Map-type handlers.
        _ = fulfilled.then { _ in
            report("then")
            return Promise.value(2)
        }
        _ = fulfilled.map { _ in report("map") }
        _ = fulfilled.compactMap { _ in
            report("compactMap")
            return 2
        }
        _ = fulfilled.tap { _ in report("tap") }
        _ = rejected.recover { _ in
            report("recover")
            return Promise.value(2)
        }
        rejected.recover { _ in
            report("recover→Guarantee")
            return Guarantee.value(2)
        }
        rejectedVoid.recover { _ in report("Void recover→Guarantee") }
        _ = rejectedVoid.recover { (_: Error) throws in report("Void recover→Promise") }
        _ = guarantee.map { _ in report("Guarantee.map") }
        guarantee.then { _ in
            report("Guarantee.then")
            return Guarantee.value(2)
        }

        // Return-type handlers.
        _ = fulfilled.done { _ in report("done") }
        _ = fulfilled.get { _ in report("get") }
        rejected.catch { _ in report("catch") }
        fulfilled.catch { _ in }.finally { report("finally") }
        _ = fulfilled.ensure { report("ensure") }
        _ = fulfilled.ensureThen {
            report("ensureThen")
            return Guarantee()
        }
        guarantee.done { _ in report("Guarantee.done") }
        _ = guarantee.get { _ in report("Guarantee.get") }
    }
}

/// Runs an action when released: a stand-in for user objects captured by configured values.
private final class DeinitAction: Sendable {
    static let key = DispatchSpecificKey<DeinitAction>()
    let action: @Sendable () -> Void

    init(_ action: @escaping @Sendable () -> Void) {
        self.action = action
    }

    deinit {
        action()
    }
}
