// Timeouts and retries for async code, built on the promise forms: the recipe
// `Promise { try await f() }.timeout(for:).async()` as one call.

/// The result of `operation`, or ``PMKError/timedOut`` once `duration` has passed on `clock`,
/// even when `operation` ignores cancellation.
///
/// `operation` runs in a task of its own. At the deadline that task is cancelled and left to end
/// on its own, and this call throws ``PMKError/timedOut`` at once: code that never checks for
/// cancellation cannot hold the caller past the deadline. If the task awaiting this call is
/// cancelled first, `operation`'s task is cancelled too, and this call throws
/// `CancellationError`. A negative duration counts as zero. The waits are as
/// ``Thenable/timeout(for:clock:)``'s: Dispatch timers on a `ContinuousClock`, a sleep on any
/// other clock.
///
/// ```swift
/// let page = try await withTimeout(.seconds(2)) { try await client.get(url) }
/// ```
///
/// - Parameters:
///   - duration: How long `operation` has.
///   - clock: The clock that measures it.
///   - operation: The work.
/// - Returns: What `operation` returns.
/// - Throws: What `operation` throws, ``PMKError/timedOut``, or `CancellationError`.
public func withTimeout<T: Sendable>(
    _ duration: Duration, clock: some Clock<Duration> = ContinuousClock(),
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await Promise(task: operation).timeout(for: duration, clock: clock).async()
}

/// The result of the first call of `operation` that returns, calling it up to `attempts` times,
/// waiting as `backoff` says between calls.
///
/// Works as ``retry(attempts:backoff:clock:shouldRetry:_:file:line:)`` does, each attempt a task
/// of its own: an error `shouldRetry` turns down, or the last attempt's, is thrown as is. If
/// the task awaiting this call is cancelled, the attempt in flight is cancelled, no other starts,
/// and this call throws `CancellationError`. Fewer than one attempt throws
/// ``PMKError/badInput``.
///
/// ```swift
/// let report = try await withRetry(attempts: 4, backoff: .exponential(initial: .milliseconds(200))) {
///     try await client.report()
/// }
/// ```
///
/// - Parameters:
///   - attempts: How many attempts to make in all, at least 1.
///   - backoff: How long to wait before each retry.
///   - clock: The clock that measures the waits.
///   - shouldRetry: Whether the error of a failed attempt allows another.
///   - operation: One attempt.
/// - Returns: What the first successful attempt returns.
/// - Throws: The error that ended the retries, or `CancellationError`.
public func withRetry<T: Sendable>(
    attempts: Int = 3, backoff: Backoff = .none, clock: some Clock<Duration> = ContinuousClock(),
    shouldRetry: @escaping @Sendable (any Error) -> Bool = { !$0.isCancelled },
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await retry(attempts: attempts, backoff: backoff, clock: clock, shouldRetry: shouldRetry) {
        Promise(task: operation)
    }.async()
}
