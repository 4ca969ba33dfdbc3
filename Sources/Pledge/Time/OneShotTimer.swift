import Dispatch

/// A timer that calls its handler once, on a global queue (default quality of service), at a
/// deadline, unless it is cancelled first.
///
/// Unlike `asyncAfter`, which keeps its block until the deadline whatever happens, cancelling
/// releases the handler, and everything it captured, at once, on the cancelling thread: a
/// timeout of an hour on a promise that settles at once holds nothing for an hour. The owner
/// must keep the timer alive until it has fired or been cancelled (Dispatch frees a timer source
/// whose last reference goes, and it then never fires); the time operators keep it in their
/// state, which the handler holds in turn, and break that cycle by cancelling.
final class OneShotTimer: @unchecked Sendable {
    // Safety: the source is configured in `init`, before the timer is shared, and afterwards only
    // `activate()` and `cancel()` are called, which Dispatch allows from any thread.
    private let source: DispatchSourceTimer

    /// The handler, until the timer fires or is cancelled, whichever takes it first. The source
    /// holds only this slot, so that cancelling need not wait for Dispatch to let go of it.
    private let handler: LockedValue<(@Sendable () -> Void)?>

    /// Makes an inactive timer; call ``start()`` once to arm it.
    init(after span: Int, handler: @escaping @Sendable () -> Void) {
        let slot = LockedValue<(@Sendable () -> Void)?>(handler)
        self.handler = slot
        source = DispatchSource.makeTimerSource(queue: .global())
        source.schedule(deadline: .now() + .nanoseconds(span), repeating: .never)
        source.setEventHandler { slot.withLock { $0.take() }?() }
    }

    /// Arms the timer.
    func start() {
        source.activate()
    }

    /// Stops the timer, unless it has fired: its handler is released now, after the lock, and
    /// never called.
    func cancel() {
        let dropped = handler.withLock { $0.take() }
        source.cancel()
        extendLifetime(dropped)
    }
}
