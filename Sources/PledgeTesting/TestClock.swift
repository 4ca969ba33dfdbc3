import Pledge

/// A clock that moves only when a test moves it, for testing code that waits: `after`,
/// `timeout`, `delay`, `retry` with a backoff, `withTimeout` and `withRetry` all accept it as
/// their `clock:`.
///
/// Its instants are `Duration`s from zero. ``advance(by:)`` and ``advance(to:)`` move it and run
/// what came due, earliest deadline first (in the order it was scheduled for equal deadlines),
/// before they return: Pledge's timers on this clock fire on the thread that advances it, and
/// the handlers they make due run there too when they are inline, or are dispatched to their
/// queues, which ``waitUntilIdle(timeout:)-4hji2`` waits for. Work that comes due during an advance
/// (a retry's next backoff, scheduled as an attempt fails inline) runs in the same advance if
/// its deadline is reached.
///
/// ```swift
/// @Test func retriesAfterTheBackoff() async throws {
///     let clock = TestClock()
///     let attempts = Counter()
///     let result = retry(attempts: 2, backoff: .constant(.seconds(1)), clock: clock) {
///         attempts.increment() == 1 ? Promise<Int>(error: Flaky()) : .value(7)
///     }
///     #expect(await waitUntilIdle())          // the first attempt failed; its backoff is set
///     clock.advance(by: .seconds(1))          // the second attempt starts, and succeeds
///     #expect(try await result.async() == 7)
/// }
/// ```
///
/// Code that sleeps on it directly (`try await clock.sleep(for:)`) wakes when an advance reaches
/// its deadline; its task then runs on the cooperative pool, after the advance. A cancelled
/// sleep throws `CancellationError` at once.
public final class TestClock: Clock, Sendable {
    /// A point in the clock's time: a duration from its start.
    public struct Instant: InstantProtocol, Sendable, Hashable, CustomStringConvertible {
        /// How far this instant is from the clock's start.
        public let offset: Duration

        /// The instant `offset` from the clock's start.
        public init(offset: Duration) { self.offset = offset }

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (left: Instant, right: Instant) -> Bool { left.offset < right.offset }
        public var description: String { "\(offset)" }
    }

    /// What runs at a deadline: one of Pledge's timers, or a task's sleep.
    private enum Wake: Sendable {
        case handler(@Sendable () -> Void)
        case sleeper(CheckedContinuation<Void, any Error>)
    }

    private struct Entry: Sendable {
        let deadline: Instant
        let order: Int
        let wake: Wake
    }

    private struct State: Sendable {
        var now = Instant(offset: .zero)
        var entries: [Int: Entry] = [:]
        var nextOrder = 0

        /// Takes out the earliest entry due by `target`, if any, and moves the time to it.
        mutating func takeDue(by target: Instant) -> Wake? {
            guard
                let (key, entry) = entries.filter({ $0.value.deadline <= target })
                    .min(by: { ($0.value.deadline, $0.value.order) < ($1.value.deadline, $1.value.order) })
            else { return nil }
            entries[key] = nil
            if entry.deadline > now { now = entry.deadline }
            return entry.wake
        }

        mutating func add(_ wake: Wake, at deadline: Instant) -> Int {
            nextOrder += 1
            entries[nextOrder] = Entry(deadline: deadline, order: nextOrder, wake: wake)
            return nextOrder
        }
    }

    private let state = LockedValue(State())

    /// A clock at instant zero, with nothing scheduled.
    public init() {}

    /// The clock's time now.
    public var now: Instant { state.withLock { $0.now } }

    /// Zero: the clock has no resolution of its own.
    public var minimumResolution: Duration { .zero }

    /// How many timers and sleeps wait for a deadline the clock has not reached.
    public var scheduledCount: Int { state.withLock { $0.entries.count } }

    /// The earliest deadline waited for, or `nil` when nothing is scheduled.
    public var nextDeadline: Instant? { state.withLock { $0.entries.values.map(\.deadline).min() } }

    /// Moves the clock `duration` ahead (a negative duration counts as zero), running what comes
    /// due in deadline order before it returns.
    public func advance(by duration: Duration = .zero) {
        advance(to: now.advanced(by: max(duration, .zero)))
    }

    /// Moves the clock to `deadline` (it never goes back), running what comes due in deadline
    /// order, each at its own instant, before it returns.
    public func advance(to deadline: Instant) {
        while let wake = state.withLock({ $0.takeDue(by: deadline) }) {
            switch wake {
            case .handler(let handler): handler()
            case .sleeper(let continuation): continuation.resume()
            }
        }
        state.withLock { state in if deadline > state.now { state.now = deadline } }
    }

    /// Runs everything scheduled, however far ahead, moving the clock to each deadline in turn;
    /// what is scheduled meanwhile runs too, until nothing is left or `limit` deadlines have run.
    public func runAll(limit: Int = 10_000) {
        var count = 0
        while count < limit, let next = nextDeadline {
            advance(to: next)
            count += 1
        }
    }

    /// Sleeps until the clock reaches `deadline`; throws `CancellationError` as soon as the task
    /// is cancelled.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let key = LockedValue<Int?>(nil)
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let id = state.withLock { state in
                    deadline > state.now ? state.add(.sleeper(continuation), at: deadline) : nil
                }
                guard let id else {
                    continuation.resume()
                    return
                }
                key.withLock { $0 = id }
                // Cancelled before the key was stored: the cancellation handler found none.
                if Task.isCancelled { cancelSleep(key) }
            }
        } onCancel: {
            cancelSleep(key)
        }
    }

    private func cancelSleep(_ key: LockedValue<Int?>) {
        guard let id = key.withLock({ $0.take() }) else { return }
        let wake = state.withLock { $0.entries.removeValue(forKey: id)?.wake }
        if case .sleeper(let continuation) = wake { continuation.resume(throwing: CancellationError()) }
    }
}

extension TestClock: TimerClock {
    package func schedule(after delay: Duration, _ handler: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        let id = state.withLock { state in state.add(.handler(handler), at: state.now.advanced(by: max(delay, .zero))) }
        return { [state] in
            // Released after the lock: the handler's captures may be user code.
            let removed = state.withLock { $0.entries.removeValue(forKey: id) }
            withExtendedLifetime(removed) {}
        }
    }
}
