import Dispatch

extension Thenable {
    /// Gives this thenable `seconds` to settle: the result settles as this thenable does, or is
    /// rejected with ``PMKError/timedOut`` if it has not settled by then.
    ///
    /// On a timeout the result stops depending on this thenable, so a ``Promise`` that nothing
    /// else depends on is cancelled (a ``Guarantee`` cannot be, and keeps going). The timer is
    /// released as soon as either side wins, and cancelling the result releases it too and
    /// stops depending on this thenable.
    ///
    /// The result settles on the thread that settles this thenable (at once, when it already
    /// has), or, on a timeout, on a global queue (default quality of service). Infinity, or a
    /// time too long to represent, never times out and arms no timer; zero or a negative time
    /// times out promptly, but still asynchronously, unless this thenable has already settled.
    /// A time that is not a number rejects the result with ``PMKError/badInput`` at once, and
    /// Pledge logs ``LogEvent/badInput(_:)``.
    ///
    /// ```swift
    /// fetchProfile().timeout(seconds: 5).done { show($0) }.catch { error in
    ///     // PMKError.timedOut after five seconds without an answer
    /// }
    /// ```
    ///
    /// - Parameter seconds: How long this thenable has to settle, in seconds.
    /// - Returns: A promise that settles as this thenable does, or is rejected with
    ///   ``PMKError/timedOut``.
    public func timeout(seconds: Double) -> Promise<T> {
        guard let span = TimerSpan(seconds: seconds) else {
            conf.log(.badInput("timeout(seconds: nan) rejects with PMKError.badInput"))
            return Promise(error: PMKError.badInput)
        }
        return _timeout(span, on: .dispatch)
    }

    /// Gives this thenable `interval` to settle: the result settles as this thenable does, or is
    /// rejected with ``PMKError/timedOut`` if it has not settled by then.
    ///
    /// Works as ``timeout(seconds:)`` does: `.never` never times out and arms no timer, and a
    /// zero or negative interval times out promptly unless this thenable has already settled.
    ///
    /// ```swift
    /// fetchProfile().timeout(.milliseconds(800)).recover { _ in cachedProfile() }
    /// ```
    ///
    /// - Parameter interval: How long this thenable has to settle.
    /// - Returns: A promise that settles as this thenable does, or is rejected with
    ///   ``PMKError/timedOut``.
    public func timeout(_ interval: DispatchTimeInterval) -> Promise<T> {
        _timeout(TimerSpan(interval), on: .dispatch)
    }

    /// Gives this thenable `duration` to settle: the result settles as this thenable does, or is
    /// rejected with ``PMKError/timedOut`` if it has not settled by then.
    ///
    /// Works as ``timeout(seconds:)`` does, on the same timers: a negative duration counts as
    /// zero, and one too long to represent in nanoseconds never times out.
    ///
    /// ```swift
    /// fetchProfile().timeout(for: .milliseconds(800)).recover { _ in cachedProfile() }
    /// ```
    ///
    /// - Parameter duration: How long this thenable has to settle.
    /// - Returns: A promise that settles as this thenable does, or is rejected with
    ///   ``PMKError/timedOut``.
    public func timeout(for duration: Duration) -> Promise<T> {
        _timeout(TimerSpan(duration), on: .dispatch)
    }

    /// Gives this thenable `duration` on `clock` to settle: the result settles as this thenable
    /// does, or is rejected with ``PMKError/timedOut`` once `clock` reaches the deadline.
    ///
    /// The deadline is `duration` after `clock.now` at this call. On a `ContinuousClock` the
    /// wait is the timer of ``timeout(for:)``; on any other clock it is a task asleep until the
    /// deadline (`clock.sleep(until:tolerance:)`), which is cancelled, and stops sleeping, as
    /// soon as this thenable settles or the result is cancelled. A clock a test advances by hand
    /// times out exactly when the test moves it past the deadline. A negative duration counts as
    /// zero.
    ///
    /// ```swift
    /// let clock = ManualClock()   // a test's own clock
    /// let reply = fetchProfile().timeout(for: .seconds(5), clock: clock)
    /// clock.advance(by: .seconds(5))   // reply is rejected with PMKError.timedOut
    /// ```
    ///
    /// - Parameters:
    ///   - duration: How long this thenable has to settle.
    ///   - clock: The clock that measures it.
    /// - Returns: A promise that settles as this thenable does, or is rejected with
    ///   ``PMKError/timedOut``.
    public func timeout(for duration: Duration, clock: some Clock<Duration>) -> Promise<T> {
        _timeout(TimerSpan(duration), on: Waiter(clock))
    }

    /// The one implementation of `timeout`.
    func _timeout(_ span: TimerSpan, on waiter: Waiter) -> Promise<T> {
        // The result depends on a link of its own rather than on `self`, so that giving up
        // cancels that link, and the engine cancels `self` only if nothing else depends on it.
        let link = map(on: nil) { $0 }
        guard case .nanoseconds(let nanoseconds) = span else { return link }
        let box = EmptyBox<Result<T, Error>>(site: link.box.site)
        let (promise, resolver) = (Promise(box: box), Resolver(box))
        let race = TimeoutRace(resolver: resolver, link: link)
        let timer = waiter.timer(after: nanoseconds) { race.expire() }
        race.arm(timer)
        link.pipe { race.settle(with: $0) }
        // Weak: the hook lives as long as the result, the race only until one side has won.
        resolver.onCancel { [weak race] in race?.abandon() }
        timer.start()
        return promise
    }
}

/// The state of one `timeout`: the link it depends on and the timer it races against it, until
/// one of them, or a cancellation of the result, wins.
private final class TimeoutRace<T: Sendable>: Sendable {
    private enum State {
        case running(link: Promise<T>, timer: OneShotTimer?)
        case finished
    }

    private let resolver: Resolver<T>
    // The timer's handler holds the race, and the race holds the timer: a cycle that keeps an
    // armed timer alive, broken when the race finishes and cancels it.
    private let state: LockedValue<State>

    init(resolver: Resolver<T>, link: Promise<T>) {
        self.resolver = resolver
        state = LockedValue(.running(link: link, timer: nil))
    }

    /// Stores the timer, before it starts; a race already won cancels it instead.
    func arm(_ timer: OneShotTimer) {
        let won: Bool = state.withLock { state in
            guard case .running(let link, nil) = state else { return true }
            state = .running(link: link, timer: timer)
            return false
        }
        if won { timer.cancel() }
    }

    /// The link settled first: the result settles as it did.
    func settle(with result: Result<T, Error>) {
        guard let (_, timer) = finish() else { return }
        timer?.cancel()
        resolver.resolve(result)
    }

    /// The timer fired first: reject the result, then stop depending on the link.
    func expire() {
        guard let (link, timer) = finish() else { return }
        timer?.cancel()
        // Upstream first, so that whoever sees the timeout sees `self` cancelled already.
        link.cancel()
        resolver.reject(PMKError.timedOut)
    }

    /// The result was cancelled: stop the timer and stop depending on the link.
    func abandon() {
        guard let (link, timer) = finish() else { return }
        timer?.cancel()
        link.cancel()
    }

    /// Ends the race, handing back what was running, or `nil` if it had already ended.
    private func finish() -> (Promise<T>, OneShotTimer?)? {
        state.withLock { state in
            guard case .running(let link, let timer) = state else { return nil }
            state = .finished
            return (link, timer)
        }
    }
}
