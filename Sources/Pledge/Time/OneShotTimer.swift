import Dispatch

/// A timer that calls its handler once, on a global queue (default quality of service), at a
/// deadline, unless it is cancelled first.
///
/// Unlike `asyncAfter`, which keeps its block until the deadline whatever happens, cancelling
/// releases the handler, and everything it captured, as soon as Dispatch has processed the
/// cancellation: a timeout of an hour on a promise that settles at once holds nothing for an
/// hour. The owner must keep the timer alive until it has fired or been cancelled (Dispatch frees
/// a timer source whose last reference goes, and it then never fires); the time operators keep it
/// in their state, which the handler holds in turn, and break that cycle by cancelling.
final class OneShotTimer: @unchecked Sendable {
    // Safety: the source is configured in `init`, before the timer is shared, and afterwards only
    // `activate()` and `cancel()` are called, which Dispatch allows from any thread.
    private let source: DispatchSourceTimer

    /// Makes an inactive timer; call ``start()`` once to arm it.
    init(after span: Int, handler: @escaping @Sendable () -> Void) {
        source = DispatchSource.makeTimerSource(queue: .global())
        source.schedule(deadline: .now() + .nanoseconds(span), repeating: .never)
        source.setEventHandler(handler: handler)
    }

    /// Arms the timer. Call it exactly once: Dispatch does not allow an inactive source to be
    /// released, so even a timer cancelled before it started must be started.
    func start() {
        source.activate()
    }

    /// Stops the timer for good and lets Dispatch release its handler. A handler already running
    /// finishes; calling this again, or after the timer fired, does nothing more.
    func cancel() {
        source.cancel()
    }
}
