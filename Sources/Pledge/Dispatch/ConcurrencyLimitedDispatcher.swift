import Dispatch

/// A dispatcher that runs at most a fixed number of bodies at once, in the order they arrive.
///
/// Use it to bound how much of some resource a chain uses at a time, such as open files or
/// requests to one server, without blocking any thread: bodies over the limit wait in a
/// first-in, first-out list and are handed to the queue one by one as running bodies finish.
///
/// ```swift
/// let downloads = ConcurrencyLimitedDispatcher(limit: 4)
/// let images = urls.map { url in
///     firstly { fetch(url) }.map(on: downloads) { data in try decode(data) }
/// }
/// // At most four `decode` calls run at a time.
/// ```
///
/// Bodies run on the queue given to ``init(limit:queue:)``, each in its own block. They are
/// handed to it in the order they were dispatched; on a concurrent queue, bodies handed over
/// at about the same time may begin in either order, and on a serial queue they run one at a
/// time whatever the limit. A body counts against the limit from the moment it is handed to
/// the queue until it returns. Nothing is ever dropped: every body dispatched runs, once.
/// A body that blocks keeps its place for as long as it blocks.
public final class ConcurrencyLimitedDispatcher: Dispatcher {
    private typealias Body = @Sendable () -> Void

    /// What the lock guards.
    private struct State {
        /// Bodies handed to the queue that have not returned yet.
        var running = 0
        /// Bodies waiting for a place, oldest first.
        var waiting = FIFOQueue<Body>()
    }

    private let limit: Int
    private let queue: DispatchQueue
    private let state = LockedValue(State())

    /// Makes a dispatcher that runs at most `limit` bodies at once on `queue`.
    ///
    /// A `limit` below 1 counts as 1, and Pledge logs ``LogEvent/badInput(_:)``.
    ///
    /// - Parameters:
    ///   - limit: How many bodies may run at once.
    ///   - queue: Where bodies run; a global concurrent queue by default.
    public init(limit: Int, queue: DispatchQueue = .global()) {
        if limit < 1 {
            conf.log(.badInput("ConcurrencyLimitedDispatcher(limit: \(limit)) runs one body at a time"))
        }
        self.limit = max(limit, 1)
        self.queue = queue
    }

    /// Runs `body` on the queue as soon as fewer than the limit of bodies are running and every
    /// body dispatched before it has been started.
    ///
    /// Returns at once; never blocks.
    ///
    /// - Parameter body: The work.
    public func dispatch(_ body: @escaping @Sendable () -> Void) {
        let startsNow = state.withLock { state in
            guard state.running < limit else {
                state.waiting.append(body)
                return false
            }
            state.running += 1
            return true
        }
        if startsNow { start(body) }
    }

    /// Hands `body`, which already holds a place, to the queue.
    private func start(_ body: @escaping Body) {
        queue.async { [self] in
            body()
            finish()
        }
    }

    /// Gives a finished body's place to the oldest waiting body, or frees it.
    private func finish() {
        let next = state.withLock { state -> Body? in
            if let next = state.waiting.popFirst() { return next }
            state.running -= 1
            return nil
        }
        if let next { start(next) }
    }
}
