import Foundation
import Pledge

/// Takes over `conf.logHandler` for the whole process, so that what Pledge logs is kept for the
/// checks instead of printed. Only a process the tester owns may install it (an exit test's
/// child, the fuzzer): `conf` is process-wide.
final class LogRecorder: @unchecked Sendable {
    static let shared = LogRecorder()

    // Safety: `events` is only read or written while `lock` is held.
    private var events: [LogEvent] = []
    private let lock = NSLock()

    func install() {
        conf.logHandler = { [self] event in lock.withLock { events.append(event) } }
    }

    /// The events logged since the last call.
    func take() -> [LogEvent] {
        lock.withLock {
            defer { events = [] }
            return events
        }
    }
}
