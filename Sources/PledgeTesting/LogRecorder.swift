import Pledge

/// Records the `LogEvent`s that one piece of code causes, and none of another's: for tests that
/// check what Pledge logs while others run beside them.
///
/// ``record(_:)-(()->R)`` runs its operation in a configuration scope whose log handler is this
/// recorder, so it sees what the operation logs, and what the handlers of the chains it builds
/// log wherever they run; other tests' events go to their own handlers. An event logged where
/// nothing of the scope runs (an unhandled rejection noticed when the last reference to a
/// promise goes on a thread outside the scope) goes to the global `conf.logHandler` instead.
///
/// ```swift
/// @Test func cauterizeLogsTheError() async {
///     let log = LogRecorder()
///     await log.record {
///         Promise<Int>(error: Oops()).cauterize()
///         _ = await waitUntilIdle()
///     }
///     #expect(log.events.count == 1)
/// }
/// ```
///
/// Safe to use from any thread; it keeps every event until ``removeAll()``.
public final class LogRecorder: Sendable {
    private let recorded = LockedValue<[LogEvent]>([])

    /// A recorder with no events.
    public init() {}

    /// The events recorded so far, oldest first.
    public var events: [LogEvent] { recorded.withLock { $0 } }

    /// The one-line messages of ``events``.
    public var messages: [String] { events.map(\.message) }

    /// Forgets the events recorded so far.
    public func removeAll() { recorded.withLock { $0.removeAll() } }

    /// Receives one event, as a log handler: what the scopes of ``record(_:)-(()->R)`` call.
    public func append(_ event: LogEvent) { recorded.withLock { $0.append(event) } }

    /// Runs `operation` in a configuration scope whose log handler is this recorder.
    ///
    /// - Parameter operation: The code whose events to record.
    /// - Returns: What `operation` returns.
    /// - Throws: What `operation` throws.
    public func record<R>(_ operation: () throws -> R) rethrows -> R {
        try conf.withScope(logHandler: append, operation: operation)
    }

    /// ``record(_:)-(()->R)`` for async code.
    public func record<R>(
        isolation: isolated (any Actor)? = #isolation, _ operation: () async throws -> R
    ) async rethrows -> R {
        try await conf.withScope(logHandler: append, operation: operation)
    }
}
