import Dispatch

extension Thenable {
    /// Passes the value on `seconds` after this thenable is fulfilled; a rejection passes at once.
    ///
    /// The wait starts when this thenable is fulfilled, on a timer on a global queue (default
    /// quality of service), where the result is fulfilled; a rejection rejects the result on
    /// the thread that rejects this thenable. Zero or a negative time still waits for the timer,
    /// briefly, and infinity (or a time too long to represent) never delivers the value (Pledge
    /// then logs ``LogEvent/pendingPromiseDeallocated(site:)`` once the result can no longer settle). A time
    /// that is not a number rejects the result with ``PMKError/badInput`` at once, and Pledge
    /// logs ``LogEvent/badInput(_:)``.
    ///
    /// Cancelling the result stops its timer at once, releasing it, and, while this thenable is
    /// still pending, stops depending on it (so a ``Promise`` that nothing else depends on is
    /// cancelled too).
    ///
    /// ```swift
    /// saveDraft().delay(seconds: 0.3).done { hideSpinner() }
    /// ```
    ///
    /// - Parameter seconds: How long to hold the value, in seconds.
    /// - Returns: A promise of the same value, fulfilled that much later.
    @_disfavoredOverload  // so that a guarantee's own form, which returns a guarantee, wins
    public func delay(seconds: Double) -> Promise<T> {
        guard let span = TimerSpan(seconds: seconds) else {
            conf.log(.badInput("delay(seconds: nan) rejects with PMKError.badInput"))
            return Promise(error: PMKError.badInput)
        }
        return _delay(span, on: .dispatch)
    }

    /// Passes the value on `interval` after this thenable is fulfilled; a rejection passes at
    /// once.
    ///
    /// Works as ``delay(seconds:)`` does; `.never` never delivers the value.
    ///
    /// ```swift
    /// poll().delay(.milliseconds(250)).then { _ in poll() }
    /// ```
    ///
    /// - Parameter interval: How long to hold the value.
    /// - Returns: A promise of the same value, fulfilled that much later.
    @_disfavoredOverload  // see `delay(seconds:)`
    public func delay(_ interval: DispatchTimeInterval) -> Promise<T> {
        _delay(TimerSpan(interval), on: .dispatch)
    }

    /// Passes the value on `duration` after this thenable is fulfilled; a rejection passes at
    /// once.
    ///
    /// Works as ``delay(seconds:)`` does, on the same timers; a negative duration counts as zero.
    ///
    /// ```swift
    /// poll().delay(for: .milliseconds(250)).then { _ in poll() }
    /// ```
    ///
    /// - Parameter duration: How long to hold the value.
    /// - Returns: A promise of the same value, fulfilled that much later.
    @_disfavoredOverload  // see `delay(seconds:)`
    public func delay(for duration: Duration) -> Promise<T> {
        _delay(TimerSpan(duration), on: .dispatch)
    }

    /// Passes the value on `duration` on `clock` after this thenable is fulfilled; a rejection
    /// passes at once.
    ///
    /// The wait starts when this thenable is fulfilled: on a `ContinuousClock` it is the timer of
    /// ``delay(for:)``; on any other clock, a task asleep until `duration` after `clock.now`
    /// (`clock.sleep(until:tolerance:)`), where the result is fulfilled. Cancelling the result
    /// cancels that task, which stops sleeping at once. A negative duration counts as zero.
    ///
    /// ```swift
    /// poll().delay(for: .seconds(1), clock: SuspendingClock()).then { _ in poll() }
    /// ```
    ///
    /// - Parameters:
    ///   - duration: How long to hold the value.
    ///   - clock: The clock that measures it.
    /// - Returns: A promise of the same value, fulfilled that much later.
    @_disfavoredOverload  // see `delay(seconds:)`
    public func delay(for duration: Duration, clock: some Clock<Duration>) -> Promise<T> {
        _delay(TimerSpan(duration), on: Waiter(clock))
    }

    /// The one implementation of the promise form of `delay`.
    func _delay(_ span: TimerSpan, on waiter: Waiter) -> Promise<T> {
        // A link of its own, as for `timeout`, so that a cancellation can stop depending on
        // `self` without cancelling it for other dependents.
        let link = map(on: nil) { $0 }
        let box = EmptyBox<Result<T, Error>>(site: link.box.site)
        let (promise, resolver) = (Promise(box: box), Resolver(box))
        let relay = DelayRelay(resolver: resolver, link: link, span: span, waiter: waiter)
        link.pipe { relay.upstreamSettled($0) }
        // Weak: the relay lives while the link is pending or the timer armed, which is as long as
        // there is anything to cancel.
        resolver.onCancel { [weak relay] in relay?.cancel() }
        return promise
    }
}

/// The state of one promise `delay`: waiting for the link, then for the timer.
private final class DelayRelay<T: Sendable>: Sendable {
    private enum State {
        case waiting(link: Promise<T>)
        case holding(timer: OneShotTimer)
        case finished
    }

    private let resolver: Resolver<T>
    private let span: TimerSpan
    private let waiter: Waiter
    // While holding, the timer's handler holds the relay, and the relay the timer: a cycle that
    // keeps the armed timer alive, broken by firing or cancelling.
    private let state: LockedValue<State>

    init(resolver: Resolver<T>, link: Promise<T>, span: TimerSpan, waiter: Waiter) {
        self.resolver = resolver
        self.span = span
        self.waiter = waiter
        state = LockedValue(.waiting(link: link))
    }

    /// The link settled: pass a rejection on, or hold the value for the span.
    func upstreamSettled(_ result: Result<T, Error>) {
        let value: T
        switch result {
        case .failure(let error):
            guard stopWaiting(for: .finished) != nil else { return }
            resolver.reject(error)
            return
        case .success(let fulfilled):
            value = fulfilled
        }
        guard case .nanoseconds(let nanoseconds) = span else {
            _ = stopWaiting(for: .finished)
            return  // `.never`: the value never arrives
        }
        let timer = waiter.timer(after: nanoseconds) { self.fire(value) }
        if stopWaiting(for: .holding(timer: timer)) == nil { timer.cancel() }
        timer.start()
    }

    /// Moves on from waiting for the link to `next`.
    ///
    /// - Returns: the state left, for the caller to release after the lock (it holds the link),
    ///   or `nil` if the relay was cancelled first.
    private func stopWaiting(for next: State) -> State? {
        state.withLock { state in
            guard case .waiting = state else { return nil }
            defer { state = next }
            return state
        }
    }

    /// The timer fired: deliver the value.
    private func fire(_ value: T) {
        let timer: OneShotTimer? = state.withLock { state in
            guard case .holding(let timer) = state else { return nil }
            state = .finished
            return timer
        }
        guard let timer else { return }
        timer.cancel()
        resolver.fulfill(value)
    }

    /// The result was cancelled: stop depending on the link, or stop the timer.
    func cancel() {
        let previous: State = state.withLock { state in
            defer { state = .finished }
            return state
        }
        switch previous {
        case .waiting(let link): link.cancel()
        case .holding(let timer): timer.cancel()
        case .finished: break
        }
    }
}
