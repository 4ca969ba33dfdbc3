import Dispatch

/// How Pledge's time operators wait: on Dispatch's timers (the `seconds:` and
/// `DispatchTimeInterval` forms, and `ContinuousClock`), or asleep on another clock.
struct Waiter: Sendable {
    /// Fixes a deadline this many nanoseconds from now on the clock and returns the sleep until
    /// it; `nil` for Dispatch's timers.
    private let deadline: (@Sendable (Int) -> @Sendable () async throws -> Void)?

    /// Dispatch's timers, which `ContinuousClock` uses too.
    static let dispatch = Waiter(deadline: nil)

    private init(deadline: (@Sendable (Int) -> @Sendable () async throws -> Void)?) {
        self.deadline = deadline
    }

    /// Waits measured on `clock`: Dispatch's timers for a `ContinuousClock`, whose time they
    /// keep, and sleeps on the clock for any other.
    init<C: Clock>(_ clock: C) where C.Duration == Duration {
        guard !(clock is ContinuousClock) else {
            self = .dispatch
            return
        }
        self.init { nanoseconds in
            let deadline = clock.now.advanced(by: .nanoseconds(nanoseconds))
            return { try await clock.sleep(until: deadline, tolerance: nil) }
        }
    }

    /// A guarantee resolved once `span` has passed from now (never for `.never`), on a global
    /// queue or where the clock's sleep ends. Nothing can cancel it: the wait runs to its end.
    func after(_ span: TimerSpan, file: StaticString = #fileID, line: UInt = #line) -> Guarantee<Void> {
        guard case .nanoseconds(let nanoseconds) = span, let deadline else {
            return _after(.now() + span.interval, file: file, line: line)
        }
        let box = EmptyBox<Result<Void, Error>>(site: (file, line))
        let sleep = deadline(nanoseconds)
        Task {
            // Nothing cancels this task: a sleep that throws anyway ends the wait.
            try? await sleep()
            box.resolve(.success(()))
        }
        return Guarantee(box: box)
    }

    /// An inactive timer that calls `handler` once `nanoseconds` have passed from now, unless it
    /// is cancelled first.
    func timer(after nanoseconds: Int, _ handler: @escaping @Sendable () -> Void) -> OneShotTimer {
        guard let deadline else { return OneShotTimer(after: nanoseconds, handler: handler) }
        return OneShotTimer(sleeping: deadline(nanoseconds), handler: handler)
    }
}

/// A timer that calls its handler once, at a deadline, unless it is cancelled first: on a global
/// queue (default quality of service) for Dispatch's timers, or in a task asleep on a clock.
///
/// Unlike `asyncAfter`, which keeps its block until the deadline whatever happens, cancelling
/// releases the handler, and everything it captured, at once, on the cancelling thread, and a
/// task asleep on a clock is cancelled and stops sleeping: a timeout of an hour on a promise that
/// settles at once holds nothing for an hour. The owner must keep the timer alive until it has
/// fired or been cancelled (Dispatch frees a timer source whose last reference goes, and it then
/// never fires); the time operators keep it in their state, which the handler holds in turn,
/// and break that cycle by cancelling.
final class OneShotTimer: Sendable {
    private enum Alarm: Sendable {
        /// A Dispatch timer source, configured in `init`.
        case source(TimerSource)
        /// A sleep on a clock, and the task that sleeps, once started.
        case sleep(@Sendable () async throws -> Void, task: LockedValue<Task<Void, Never>?>)
    }

    private let alarm: Alarm

    /// The handler, until the timer fires or is cancelled, whichever takes it first. The alarm
    /// holds only this slot, so that cancelling need not wait for Dispatch to let go of it.
    private let handler: LockedValue<(@Sendable () -> Void)?>

    /// Makes an inactive Dispatch timer; call ``start()`` once to arm it.
    init(after span: Int, handler: @escaping @Sendable () -> Void) {
        let slot = LockedValue<(@Sendable () -> Void)?>(handler)
        self.handler = slot
        let source = DispatchSource.makeTimerSource(queue: .global())
        source.schedule(deadline: .now() + .nanoseconds(span), repeating: .never)
        source.setEventHandler { slot.withLock { $0.take() }?() }
        alarm = .source(TimerSource(source))
    }

    /// Makes an inactive timer that calls `handler` once `sleep` returns; call ``start()`` once to
    /// start sleeping.
    init(sleeping sleep: @escaping @Sendable () async throws -> Void, handler: @escaping @Sendable () -> Void) {
        self.handler = LockedValue(handler)
        alarm = .sleep(sleep, task: LockedValue(nil))
    }

    /// Arms the timer.
    func start() {
        switch alarm {
        case .source(let timer):
            timer.source.activate()
        case .sleep(let sleep, let task):
            let slot = handler
            let sleeper = Task {
                // A sleep that throws was cancelled: the timer was, and its handler is gone.
                guard (try? await sleep()) != nil else { return }
                slot.withLock { $0.take() }?()
            }
            task.withLock { $0 = sleeper }
            // Cancelled before the task was stored: it stops sleeping now.
            if handler.withLock({ $0 == nil }) { sleeper.cancel() }
        }
    }

    /// Disarms the timer and releases its handler now; a task asleep on a clock stops sleeping.
    /// Safe to call more than once, and after the timer fired.
    func cancel() {
        let dropped = handler.withLock { $0.take() }
        switch alarm {
        case .source(let timer): timer.source.cancel()
        case .sleep(_, let task): task.withLock { $0 }?.cancel()
        }
        extendLifetime(dropped)
    }
}

/// A Dispatch timer source, shared across threads.
struct TimerSource: @unchecked Sendable {
    // Safety: a Dispatch source is thread-safe for the calls made on it after it is configured:
    // `activate()`, `schedule(deadline:)` and `cancel()`.
    let source: DispatchSourceTimer

    init(_ source: DispatchSourceTimer) {
        self.source = source
    }
}
