import Dispatch

/// Runs `body` until the thenable it returns is fulfilled, up to `attempts` times, waiting as
/// `backoff` says between attempts.
///
/// The first attempt starts at once, synchronously, on the calling thread; each later one runs
/// on a global queue (default quality of service), never before `backoff`'s delay has passed
/// since the attempt before it failed, even with ``Backoff/none``, so that attempts that fail at
/// once do not grow the stack. An attempt fails when its thenable is rejected or `body` throws;
/// `shouldRetry` (called on the thread where the attempt failed) then decides whether another
/// may start. By default every error but a cancellation is retried.
///
/// The result is fulfilled with the first value any attempt produces, or rejected with the last
/// error, as is (not wrapped), once no attempt is left or `shouldRetry` returns `false`. It
/// settles on the thread that settled the deciding attempt. Fewer than one attempt rejects it
/// with ``PMKError/badInput`` without calling `body`, and Pledge logs ``LogEvent/badInput(_:)``.
///
/// Cancelling the result stops depending on the attempt in flight (so a ``Promise`` that nothing
/// else depends on is cancelled), releases a pending backoff timer at once, and starts no
/// further attempt. A backoff delay of `.never` waits for good.
///
/// ```swift
/// retry(attempts: 4, backoff: .exponential(initial: .milliseconds(200), jitter: true)) {
///     fetchConfiguration()
/// }.done { configuration in
///     apply(configuration)
/// }.catch { error in
///     // the fourth attempt's error, or the first one `shouldRetry` turned down
/// }
/// ```
///
/// The waits are measured on `clock`: on a `ContinuousClock`, the default, they are Dispatch
/// timers; on any other clock, tasks asleep on it (`clock.sleep(until:tolerance:)`), each
/// cancelled as soon as the result is, so that a test can advance a clock of its own instead of
/// waiting.
///
/// - Parameters:
///   - attempts: How many attempts to make in all, at least 1.
///   - backoff: How long to wait before each retry.
///   - clock: The clock that measures the waits.
///   - shouldRetry: Whether the error of a failed attempt allows another.
///   - body: Starts one attempt.
///   - file: Where the promise was made, for the ``LogEvent``s about a lost promise in debug
///     builds (see ``CreationSite``); leave it out.
///   - line: The line that goes with `file`; leave it out.
/// - Returns: A promise of the first value an attempt produces.
public func retry<U: Thenable>(
    attempts: Int = 3, backoff: Backoff = .none, clock: some Clock<Duration> = ContinuousClock(),
    shouldRetry: @escaping @Sendable (Error) -> Bool = { !$0.isCancelled },
    _ body: @escaping @Sendable () throws -> U, file: StaticString = #fileID, line: UInt = #line
) -> Promise<U.T> {
    retry(
        attempts: attempts, backoff: backoff, clock: clock, decide: { error, _ in shouldRetry(error) ? .retry : .stop },
        body, file: file, line: line)
}

/// Runs `body` until the thenable it returns is fulfilled, up to `attempts` times; after each
/// failed attempt but the last, `decide` says whether to wait `backoff`'s delay, wait a time of
/// its own, or stop.
///
/// Works as ``retry(attempts:backoff:clock:shouldRetry:_:file:line:)`` does, but `decide` sees
/// the failed attempt's number (from 1) beside its error, and may name the wait itself: a
/// server's `Retry-After`, say. A negative wait retries at once (asynchronously, as every retry
/// starts). `decide` runs on the thread where the attempt failed; cancelling the result stops
/// any wait at once.
///
/// ```swift
/// retry(attempts: 5, backoff: .exponential(initial: .milliseconds(100)), decide: { error, attempt in
///     if let wait = (error as? ServerBusy)?.retryAfter { return .retry(after: wait) }
///     return error.isCancelled ? .stop : .retry
/// }) {
///     fetchReport()
/// }
/// ```
///
/// - Parameters:
///   - attempts: How many attempts to make in all, at least 1.
///   - backoff: The wait before each retry that `decide` answers ``RetryDecision/retry`` for.
///   - clock: The clock that measures the waits.
///   - decide: What to do after a failed attempt: its error and its number, from 1.
///   - body: Starts one attempt.
///   - file: Where the promise was made, for the ``LogEvent``s about a lost promise in debug
///     builds (see ``CreationSite``); leave it out.
///   - line: The line that goes with `file`; leave it out.
/// - Returns: A promise of the first value an attempt produces.
public func retry<U: Thenable>(
    attempts: Int = 3, backoff: Backoff = .none, clock: some Clock<Duration> = ContinuousClock(),
    decide: @escaping @Sendable (any Error, Int) -> RetryDecision,
    _ body: @escaping @Sendable () throws -> U, file: StaticString = #fileID, line: UInt = #line
) -> Promise<U.T> {
    guard attempts >= 1 else {
        conf.log(.badInput("retry(attempts: \(attempts)) rejects with PMKError.badInput; it needs at least 1"))
        return Promise(error: PMKError.badInput, file: file, line: line)
    }
    let (promise, resolver) = Promise<U.T>.pending(file: file, line: line)
    // Later attempts start from a timer: each runs in the context of this call.
    let loop = RetryLoop(
        attempts: attempts, backoff: backoff, waiter: Waiter(clock), decide: decide, body: HandlerContext.here(body),
        resolver: resolver)
    // Weak: while there is something to cancel, the attempt in flight or the backoff timer holds
    // the loop.
    resolver.onCancel { [weak loop] in loop?.cancel() }
    loop.start(attempt: 1)
    return promise
}

/// The state of one `retry`: which attempt runs, or which one a timer will start, until the
/// result settles or is cancelled.
private final class RetryLoop<U: Thenable>: Sendable {
    private enum State {
        /// Attempt `number` runs; `link` is its dependency, once `body` has returned.
        case attempting(number: Int, link: Promise<U.T>?)
        /// Attempt `number` starts when `timer` fires; no timer means never.
        case waiting(number: Int, timer: OneShotTimer?)
        case finished
    }

    private let attempts: Int
    private let backoff: Backoff
    private let waiter: Waiter
    private let decide: @Sendable (any Error, Int) -> RetryDecision
    private let body: @Sendable () throws -> U
    private let resolver: Resolver<U.T>
    // The link's handler and the timer's handler hold the loop while it holds them: cycles that
    // last until the attempt settles or the timer fires, or until a cancellation ends them.
    private let state = LockedValue<State>(.attempting(number: 1, link: nil))

    init(
        attempts: Int, backoff: Backoff, waiter: Waiter, decide: @escaping @Sendable (any Error, Int) -> RetryDecision,
        body: @escaping @Sendable () throws -> U, resolver: Resolver<U.T>
    ) {
        self.attempts = attempts
        self.backoff = backoff
        self.waiter = waiter
        self.decide = decide
        self.body = body
        self.resolver = resolver
    }

    /// Runs attempt `number`, which the state already names.
    func start(attempt number: Int) {
        let thenable: U
        do {
            thenable = try body()
        } catch {
            failed(attempt: number, with: error)
            return
        }
        // A link of its own, so that a cancellation stops depending on the attempt without
        // cancelling it for anything else that depends on it.
        let link = thenable.map(on: nil) { $0 }
        let current: Bool = state.withLock { state in
            guard case .attempting(number, nil) = state else { return false }
            state = .attempting(number: number, link: link)
            return true
        }
        guard current else {
            link.cancel()  // the result was cancelled while `body` ran
            return
        }
        // Runs at once when the attempt has settled already; a failure then only arms a timer,
        // so the stack does not grow with the number of attempts.
        link.pipe { result in
            switch result {
            case .success(let value): self.succeeded(attempt: number, with: value)
            case .failure(let error): self.failed(attempt: number, with: error)
            }
        }
    }

    private func succeeded(attempt number: Int, with value: U.T) {
        guard leave(attempt: number, for: .finished) != nil else { return }
        resolver.fulfill(value)
    }

    private func failed(attempt number: Int, with error: Error) {
        guard isAttempting(number) else { return }  // cancelled: `decide` is not asked
        let wait: TimerSpan
        switch number < attempts ? decide(error, number).choice : .stop {
        case .stop:
            if leave(attempt: number, for: .finished) != nil { resolver.reject(error) }
            return
        case .backoff:
            wait = backoff.span(beforeRetry: number)
        case .after(let duration):
            wait = TimerSpan(duration)
        }
        let next = number + 1
        var timer: OneShotTimer?
        if case .nanoseconds(let nanoseconds) = wait {
            timer = waiter.timer(after: nanoseconds) { self.fire(attempt: next) }
        }
        if leave(attempt: number, for: .waiting(number: next, timer: timer)) == nil { timer?.cancel() }
        timer?.start()
    }

    /// The backoff timer fired: start attempt `number` unless the result was cancelled.
    private func fire(attempt number: Int) {
        let timer: OneShotTimer?? = state.withLock { state in
            guard case .waiting(number, let timer) = state else { return nil }
            state = .attempting(number: number, link: nil)
            return timer
        }
        guard let timer else { return }
        timer?.cancel()  // releases this handler as soon as it returns
        start(attempt: number)
    }

    /// The result was cancelled: stop depending on the attempt in flight, or stop the timer.
    func cancel() {
        let previous: State = state.withLock { state in
            defer { state = .finished }
            return state
        }
        switch previous {
        case .attempting(_, let link): link?.cancel()
        case .waiting(_, let timer): timer?.cancel()
        case .finished: break
        }
    }

    private func isAttempting(_ number: Int) -> Bool {
        state.withLock { state in
            guard case .attempting(number, _) = state else { return false }
            return true
        }
    }

    /// Moves on to `next` if attempt `number` is the one running.
    ///
    /// - Returns: the state left, for the caller to release after the lock (it may hold the
    ///   last reference to a link), or `nil` when attempt `number` was not running.
    private func leave(attempt number: Int, for next: State) -> State? {
        state.withLock { state in
            guard case .attempting(number, _) = state else { return nil }
            defer { state = next }
            return state
        }
    }
}

/// What ``retry(attempts:backoff:clock:decide:_:file:line:)`` does after a failed attempt:
/// ``retry`` after the backoff's wait, ``retry(after:)`` a wait of its own, or ``stop``.
///
/// ```swift
/// decide: { error, attempt in
///     guard !error.isCancelled else { return .stop }
///     if let wait = (error as? PMKHTTPError)?.retryAfter { return .retry(after: wait) }
///     return .retry
/// }
/// ```
public struct RetryDecision: Sendable, Equatable {
    enum Choice: Sendable, Equatable {
        case backoff
        case after(Duration)
        case stop
    }

    let choice: Choice

    private init(_ choice: Choice) {
        self.choice = choice
    }

    /// Retry once the backoff's wait has passed.
    public static let retry = RetryDecision(.backoff)

    /// Stop: the result is rejected with the attempt's error.
    public static let stop = RetryDecision(.stop)

    /// Retry once `duration` has passed on the retry's clock, whatever the backoff says; a
    /// negative duration retries at once (still asynchronously).
    ///
    /// - Parameter duration: The wait before the next attempt.
    /// - Returns: The decision.
    public static func retry(after duration: Duration) -> RetryDecision {
        RetryDecision(.after(duration))
    }
}
