import Foundation
import Pledge
import Synchronization
import Testing

/// The kind of a ``LogEvent``, without its payload, so that tests can count and compare events.
enum LogEventKind: Sendable, Equatable {
    case waitOnMainThread
    case pendingPromiseDeallocated
    case pendingGuaranteeDeallocated
    case cauterized
    case nilDispatchQueueWithFlags
    case waitOnHandlerQueue
    case guaranteeReturnedSelf
    case badInput
    case unhandledRejection
    case longPending
}

extension LogEvent {
    var kind: LogEventKind {
        switch self {
        case .waitOnMainThread: return .waitOnMainThread
        case .pendingPromiseDeallocated: return .pendingPromiseDeallocated
        case .pendingGuaranteeDeallocated: return .pendingGuaranteeDeallocated
        case .cauterized: return .cauterized
        case .nilDispatchQueueWithFlags: return .nilDispatchQueueWithFlags
        case .waitOnHandlerQueue: return .waitOnHandlerQueue
        case .guaranteeReturnedSelf: return .guaranteeReturnedSelf
        case .badInput: return .badInput
        case .unhandledRejection: return .unhandledRejection
        case .longPending: return .longPending
        }
    }
}

/// The test process's log handler outside ``LogCapture/capture(_:)``: counts events instead of
/// printing them, so that a passing `swift test` prints no `Pledge:` lines. Installed before
/// the test runner starts, by the C target `CPledgeTestSetup`.
@_cdecl("pledge_tests_quiet_logs")
func quietLogsForTests() {
    conf.logHandler = { _ in uncapturedLogEvents.add(1, ordering: .relaxed) }
}

/// How many events were logged outside any capture.
let uncapturedLogEvents = Atomic<Int>(0)

/// Collects the events sent to `conf.logHandler` while installed by ``capture(_:)``.
///
/// Other suites run in parallel and may log too. Each record therefore remembers the test that
/// was current on the logging thread (`Test.current`, a task local): an event logged
/// synchronously by the capturing test's own code carries that test's ID, an event logged by
/// another test carries that test's, and one logged from a dispatch queue carries none.
/// Use ``events(ofKind:)`` for events logged from a queue that only the capturing test uses, and
/// ``eventsFromThisTest(ofKind:)`` for events the test's own code logs synchronously.
///
/// Installing a handler replaces a process-wide setting: only tests in the serialized
/// ``ConfigurationTests`` suite may capture.
final class LogCapture: Sendable {
    struct Record: Sendable {
        let event: LogEvent
        let test: Test.ID?
    }

    private let records = Recorder<Record>()
    private let arrivals = DispatchSemaphore(value: 0)

    private init() {}

    /// Installs a capturing `conf.logHandler` for the duration of `body`, then restores the
    /// previous one.
    ///
    /// Records a test issue when the current test is not in ``ConfigurationTests``: a capture
    /// from a parallel suite would take other tests' events while it lasts.
    static func capture<Result>(
        sourceLocation: SourceLocation = #_sourceLocation,
        _ body: (LogCapture) throws -> Result
    ) rethrows -> Result {
        if let test = Test.current, !String(describing: test.id).contains(".ConfigurationTests/") {
            Issue.record(
                "LogCapture.capture outside the serialized ConfigurationTests suite",
                sourceLocation: sourceLocation
            )
        }
        let capture = LogCapture()
        let previous = conf.logHandler
        conf.logHandler = { event in capture.record(event) }
        defer { conf.logHandler = previous }
        return try body(capture)
    }

    private func record(_ event: LogEvent) {
        records.append(Record(event: event, test: Test.current?.id))
        arrivals.signal()
    }

    /// Every captured event of `kind`, whoever logged it.
    func events(ofKind kind: LogEventKind) -> [LogEvent] {
        records.all.filter { $0.event.kind == kind }.map(\.event)
    }

    /// The captured events of `kind` that the current test's own code logged.
    func eventsFromThisTest(ofKind kind: LogEventKind) -> [LogEvent] {
        let current = Test.current?.id
        return records.all.filter { $0.event.kind == kind && $0.test == current }.map(\.event)
    }

    /// Waits until an event of `kind` has been captured, up to the test timeout.
    ///
    /// - Returns: whether one arrived in time.
    func waitForEvent(ofKind kind: LogEventKind) -> Bool {
        let deadline = DispatchTime.testTimeout
        while events(ofKind: kind).isEmpty {
            if arrivals.wait(timeout: deadline) == .timedOut { return !events(ofKind: kind).isEmpty }
        }
        return true
    }
}
