import Dispatch

/// How Pledge's time operators wait: on Dispatch's timers (the `seconds:` and
/// `DispatchTimeInterval` forms, and `ContinuousClock`), or asleep on another clock.
struct Waiter: Sendable {
    private enum Kind: Sendable {
        /// Dispatch's timers, which `ContinuousClock` uses too.
        case dispatch
        /// Sleeps on a clock: fixes a deadline this many nanoseconds from now and returns the
        /// sleep until it.
        case sleep(@Sendable (Int) -> @Sendable () async throws -> Void)
        /// A clock that runs timers itself (``TimerClock``).
        case timers(any TimerClock)
    }

    private let kind: Kind

    /// Dispatch's timers.
    static let dispatch = Waiter(kind: .dispatch)

    private init(kind: Kind) { self.kind = kind }

    /// Waits measured on `clock`: Dispatch's timers for a `ContinuousClock`, whose time they
    /// keep, the clock's own timers for a ``TimerClock``, and sleeps on the clock for any other.
    init<C: Clock>(_ clock: C) where C.Duration == Duration {
        if clock is ContinuousClock {
            self = .dispatch
        } else if let timers = clock as? any TimerClock {
            self.init(kind: .timers(timers))
        } else {
            self.init(
                kind: .sleep { nanoseconds in
                    let deadline = clock.now.advanced(by: .nanoseconds(nanoseconds))
                    return { try await clock.sleep(until: deadline, tolerance: nil) }
                })
        }
    }

    /// A guarantee resolved once `span` has passed from now (never for `.never`), on a global
    /// queue or where the clock's sleep ends. Nothing can cancel it: the wait runs to its end.
    func after(_ span: TimerSpan, file: StaticString = #fileID, line: UInt = #line) -> Guarantee<Void> {
        guard case .nanoseconds(let nanoseconds) = span else {
            return _after(.now() + span.interval, file: file, line: line)
        }
        let box = EmptyBox<Result<Void, Error>>(site: (file, line))
        switch kind {
        case .dispatch:
            return _after(.now() + span.interval, file: file, line: line)
        case .sleep(let deadline):
            let sleep = deadline(nanoseconds)
            Task {
                // Nothing cancels this task: a sleep that throws anyway ends the wait.
                try? await sleep()
                box.resolve(.success(()))
            }
        case .timers(let clock):
            _ = clock.schedule(after: .nanoseconds(nanoseconds)) { box.resolve(.success(())) }
        }
        return Guarantee(box: box)
    }

    /// An inactive timer that calls `handler` once `nanoseconds` have passed from now, unless it
    /// is cancelled first.
    func timer(after nanoseconds: Int, _ handler: @escaping @Sendable () -> Void) -> OneShotTimer {
        switch kind {
        case .dispatch: OneShotTimer(after: nanoseconds, handler: handler)
        case .sleep(let deadline): OneShotTimer(sleeping: deadline(nanoseconds), handler: handler)
        case .timers(let clock): OneShotTimer(on: clock, after: nanoseconds, handler: handler)
        }
    }
}

/// A clock that runs Pledge's timers itself, as PledgeTesting's `TestClock` does when a test
/// advances it: Pledge's time operators schedule on it instead of sleeping in a task, so that
/// what comes due runs before the advance returns.
package protocol TimerClock: Sendable {
    /// Calls `handler` once, when the clock reaches `delay` from now, unless the returned
    /// closure is called first (after which `handler` is released and never called).
    func schedule(after delay: Duration, _ handler: @escaping @Sendable () -> Void) -> @Sendable () -> Void
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
        /// A timer of a ``TimerClock``, and what cancels it once scheduled.
        case clock(any TimerClock, after: Int, cancel: LockedValue<(@Sendable () -> Void)?>)
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

    /// Makes an inactive timer of `clock`'s; call ``start()`` once to schedule it.
    init(on clock: any TimerClock, after nanoseconds: Int, handler: @escaping @Sendable () -> Void) {
        self.handler = LockedValue(handler)
        alarm = .clock(clock, after: nanoseconds, cancel: LockedValue(nil))
    }

    /// Arms the timer.
    func start() {
        switch alarm {
        case .clock(let clock, let nanoseconds, let cancel):
            let slot = handler
            let unschedule = clock.schedule(after: .nanoseconds(nanoseconds)) { slot.withLock { $0.take() }?() }
            cancel.withLock { $0 = unschedule }
            // Cancelled before it was stored: it is unscheduled now.
            if handler.withLock({ $0 == nil }) { unschedule() }
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
        case .clock(_, _, let cancel): cancel.withLock { $0 }?()
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
