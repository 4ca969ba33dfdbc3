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
/// - Parameters:
///   - attempts: How many attempts to make in all, at least 1.
///   - backoff: How long to wait before each retry.
///   - shouldRetry: Whether the error of a failed attempt allows another.
///   - body: Starts one attempt.
///   - file: Where the promise was made, for the ``LogEvent``s about a lost promise in debug
///     builds (see ``CreationSite``); leave it out.
///   - line: The line that goes with `file`; leave it out.
/// - Returns: A promise of the first value an attempt produces.
public func retry<U: Thenable>(
    attempts: Int = 3, backoff: Backoff = .none,
    shouldRetry: @escaping @Sendable (Error) -> Bool = { !$0.isCancelled },
    _ body: @escaping @Sendable () throws -> U, file: StaticString = #fileID, line: UInt = #line
) -> Promise<U.T> {
    guard attempts >= 1 else {
        conf.log(.badInput("retry(attempts: \(attempts)) rejects with PMKError.badInput; it needs at least 1"))
        return Promise(error: PMKError.badInput, file: file, line: line)
    }
    let (promise, resolver) = Promise<U.T>.pending(file: file, line: line)
    let loop = RetryLoop(
        attempts: attempts, backoff: backoff, shouldRetry: shouldRetry, body: body, resolver: resolver)
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
    private let shouldRetry: @Sendable (Error) -> Bool
    private let body: @Sendable () throws -> U
    private let resolver: Resolver<U.T>
    // The link's handler and the timer's handler hold the loop while it holds them: cycles that
    // last until the attempt settles or the timer fires, or until a cancellation ends them.
    private let state = LockedValue<State>(.attempting(number: 1, link: nil))

    init(
        attempts: Int, backoff: Backoff, shouldRetry: @escaping @Sendable (Error) -> Bool,
        body: @escaping @Sendable () throws -> U, resolver: Resolver<U.T>
    ) {
        self.attempts = attempts
        self.backoff = backoff
        self.shouldRetry = shouldRetry
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
        guard isAttempting(number) else { return }  // cancelled: `shouldRetry` is not asked
        guard number < attempts, shouldRetry(error) else {
            if leave(attempt: number, for: .finished) != nil { resolver.reject(error) }
            return
        }
        let next = number + 1
        var timer: OneShotTimer?
        if case .nanoseconds(let wait) = TimerSpan(backoff.delay(beforeRetry: number)) {
            timer = OneShotTimer(after: wait) { self.fire(attempt: next) }
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
