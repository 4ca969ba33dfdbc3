import Dispatch

/// A dispatcher that starts at most a fixed number of bodies in any window of time of a given
/// length, in the order they arrive.
///
/// Use it to respect a rate limit, such as a server's "ten requests per second", without
/// blocking any thread. The window slides: a body may start once fewer than `maxDispatches`
/// bodies started in the `perInterval` just before it. Bodies that must wait are kept in a
/// first-in, first-out list and handed to the queue when the oldest start leaves the window.
///
/// ```swift
/// let api = RateLimitedDispatcher(maxDispatches: 10, perInterval: .seconds(1))
/// let users = ids.map { id in
///     Promise.value(id).then(on: api) { id in client.fetchUser(id) }
/// }
/// // At most ten `fetchUser` calls begin in any one second.
/// ```
///
/// Bodies run on the queue given to ``init(maxDispatches:perInterval:queue:)``, each in its own
/// block. A body's start is the moment its block on that queue reads the clock, right before
/// calling it; a body handed to the queue that has not started yet holds a place in the
/// window, so a busy queue never lets bodies bunch up. Only starts are limited: how long a
/// body runs, and how many run at once, is up to the queue. Bodies are handed to the queue in
/// the order they were dispatched; on a concurrent queue, bodies handed over at about the same
/// time may begin in either order.
///
/// The interval:
/// - zero or negative: no rate limit; bodies are handed to the queue at once, in order.
/// - `DispatchTimeInterval.never`, or one too long to count in nanoseconds: a window that
///   never ends, so at most `maxDispatches` bodies ever start. Later bodies are dropped at
///   once: released without being called, and where Pledge asks to hear about drops, it is
///   told on the dispatching thread and rejects the promise with ``PMKError/cancelled``.
///
/// Otherwise nothing is dropped: every body dispatched starts, once, no earlier than the
/// window allows.
public final class RateLimitedDispatcher: Dispatcher, DroppingDispatcher {
    private typealias Body = @Sendable () -> Void

    /// How long a start counts against the limit.
    private enum Window {
        case unlimited
        case nanoseconds(UInt64)
        case forever
    }

    /// What must happen after a transition, outside the lock.
    private struct Next {
        /// Bodies that now hold a place in the window, to hand to the queue in this order.
        var released: [Body] = []
        /// When to look again, in `DispatchTime` uptime nanoseconds, if a timer must be set.
        var wakeUp: UInt64?
    }

    /// What the lock guards.
    private struct State {
        /// Start times (uptime nanoseconds) still inside the window, oldest first.
        var starts = FIFOQueue<UInt64>()
        /// Bodies handed to the queue that have not started yet.
        var handedOver = 0
        /// Bodies waiting for a place, oldest first.
        var waiting = FIFOQueue<Body>()
        /// Whether a timer is set to look again; at most one is.
        var timerSet = false

        /// Whether a body handed over now could ever start; `false` only for a window that
        /// never ends and is full.
        func canEverStart(limit: Int, window: Window) -> Bool {
            guard case .forever = window else { return true }
            return starts.count + handedOver < limit
        }

        /// Forgets starts that left the window by `now`, gives the places that frees to waiting
        /// bodies, and sets a timer if bodies still wait and none is set.
        mutating func advance(now: UInt64, limit: Int, window: Window) -> Next {
            if case .nanoseconds(let length) = window {
                while let oldest = starts.first, now >= oldest, now - oldest >= length {
                    _ = starts.popFirst()
                }
            }
            var next = Next()
            while starts.count + handedOver < limit, let body = waiting.popFirst() {
                next.released.append(body)
                handedOver += 1
            }
            // With no start inside the window, every place is held by a body handed over; the
            // first of them to start calls this again and sets the timer.
            if !waiting.isEmpty, !timerSet, case .nanoseconds(let length) = window, let oldest = starts.first {
                timerSet = true
                let (wakeUp, overflow) = oldest.addingReportingOverflow(length)
                next.wakeUp = overflow ? .max : wakeUp
            }
            return next
        }
    }

    private let limit: Int
    private let window: Window
    private let queue: DispatchQueue
    /// Told each start time as recorded, on the queue, right before the body runs; for tests,
    /// which cannot read the clock at the same instant from inside the body.
    private let startObserver: (@Sendable (UInt64) -> Void)?
    private let state = LockedValue(State())

    /// Makes a dispatcher that starts at most `maxDispatches` bodies in any window of length
    /// `perInterval`, on `queue`.
    ///
    /// A `maxDispatches` below 1 counts as 1, and Pledge logs ``LogEvent/badInput(_:)``. See
    /// the type's discussion for zero, negative and never-ending intervals.
    ///
    /// - Parameters:
    ///   - maxDispatches: How many bodies may start in one window.
    ///   - perInterval: The length of the window.
    ///   - queue: Where bodies run; a global concurrent queue by default.
    public convenience init(maxDispatches: Int, perInterval: DispatchTimeInterval, queue: DispatchQueue = .global()) {
        self.init(maxDispatches: maxDispatches, perInterval: perInterval, queue: queue, startObserver: nil)
    }

    /// The designated initialiser, with a start observer for tests.
    init(
        maxDispatches: Int, perInterval: DispatchTimeInterval, queue: DispatchQueue,
        startObserver: (@Sendable (UInt64) -> Void)?
    ) {
        if maxDispatches < 1 {
            conf.log(
                .badInput("RateLimitedDispatcher(maxDispatches: \(maxDispatches)) starts one body per interval"))
        }
        limit = max(maxDispatches, 1)
        window = Self.window(perInterval)
        self.queue = queue
        self.startObserver = startObserver
    }

    private static func window(_ interval: DispatchTimeInterval) -> Window {
        let (nanoseconds, overflow): (Int, Bool)
        switch interval {
        case .seconds(let seconds): (nanoseconds, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        case .milliseconds(let milliseconds):
            (nanoseconds, overflow) = milliseconds.multipliedReportingOverflow(by: 1_000_000)
        case .microseconds(let microseconds):
            (nanoseconds, overflow) = microseconds.multipliedReportingOverflow(by: 1_000)
        case .nanoseconds(let count): (nanoseconds, overflow) = (count, false)
        case .never: return .forever
        }
        if overflow { return interval.isNegative ? .unlimited : .forever }
        return nanoseconds <= 0 ? .unlimited : .nanoseconds(UInt64(nanoseconds))
    }

    /// Starts `body` on the queue as soon as the window has room and every body dispatched
    /// before it has been handed over; drops it if the window never ends and is full.
    ///
    /// Returns at once; never blocks.
    ///
    /// - Parameter body: The work.
    public func dispatch(_ body: @escaping @Sendable () -> Void) {
        dispatch(body, orDrop: {})
    }

    /// Like ``dispatch(_:)``, but calls `dropped` instead of `body`, at once on the calling
    /// thread, when the window never ends and is full.
    @usableFromInline
    func dispatch(_ body: @escaping @Sendable () -> Void, orDrop dropped: @escaping @Sendable () -> Void) {
        if case .unlimited = window { return queue.async(execute: body) }
        let next = state.withLock { state -> Next? in
            guard state.canEverStart(limit: limit, window: window) else { return nil }
            state.waiting.append(body)
            return state.advance(now: DispatchTime.now().uptimeNanoseconds, limit: limit, window: window)
        }
        guard let next else { return dropped() }
        perform(next)
    }

    /// Hands released bodies to the queue and sets the timer, outside the lock.
    private func perform(_ next: Next) {
        for body in next.released {
            queue.async { [self] in start(body) }
        }
        if let wakeUp = next.wakeUp {
            queue.asyncAfter(deadline: DispatchTime(uptimeNanoseconds: wakeUp)) { [self] in
                let next = state.withLock { state in
                    state.timerSet = false
                    return state.advance(now: DispatchTime.now().uptimeNanoseconds, limit: limit, window: window)
                }
                perform(next)
            }
        }
    }

    /// Records the start of a handed-over body, on the queue, then runs it.
    private func start(_ body: Body) {
        let (next, now) = state.withLock { state in
            // Read the clock under the lock, so that recorded starts are in order.
            let now = DispatchTime.now().uptimeNanoseconds
            state.starts.append(now)
            state.handedOver -= 1
            return (state.advance(now: now, limit: limit, window: window), now)
        }
        perform(next)
        startObserver?(now)
        body()
    }
}

extension DispatchTimeInterval {
    fileprivate var isNegative: Bool {
        switch self {
        case .seconds(let count), .milliseconds(let count), .microseconds(let count), .nanoseconds(let count):
            return count < 0
        case .never:
            return false
        }
    }
}
