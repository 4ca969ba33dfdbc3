import Dispatch
import Synchronization

/// A dispatcher that runs work on a queue until it is invalidated, and never after.
///
/// Give it to an operator's `on:` where the work belongs to something that can go away, such
/// as a screen or a connection: call ``invalidate()`` when it does, and handlers that have not
/// started yet never run. The promise such a handler would have resolved is rejected with
/// ``PMKError/cancelled`` (a guarantee stays pending and is released without a log event), so
/// nothing downstream waits forever.
///
/// ```swift
/// let ui = InvalidatableQueue(queue: .main)
/// fetchAvatar()
///     .done(on: ui) { image in view.show(image) }
///     .catch(policy: .allErrors) { error in log(error) }  // PMKError.cancelled once `ui` is invalidated
///
/// // When the view goes away:
/// ui.invalidate()
/// ```
///
/// Bodies run on the queue given to ``init(queue:)``, one block per body. Invalidation is
/// decided once per body, in the block on that queue, right before the body would run: a body
/// either runs to completion or is dropped, never both and never neither, even when
/// ``invalidate()`` races the dispatch. A body that has started is not interrupted.
///
/// A dropped body is released without being called. Where Pledge asks to hear about drops
/// (to reject the promise), it is told at once on the dispatching thread if the dispatcher was
/// already invalidated when the work was sent, and otherwise on the queue, in the body's place.
public final class InvalidatableQueue: Dispatcher, DroppingDispatcher {
    private let queue: DispatchQueue
    private let invalidated = Atomic<Bool>(false)

    /// Makes a dispatcher that runs work on `queue` until it is invalidated.
    ///
    /// There is no default queue: the main queue runs only in apps and in tools that drain it, so
    /// a server's work sent there would never run, and any other default would surprise an app
    /// whose handlers touch its views. Name the queue: `.main` for an app's screens, the
    /// connection's queue for a server.
    ///
    /// - Parameter queue: Where bodies run.
    public init(queue: DispatchQueue) {
        self.queue = queue
    }

    /// Stops all work that has not started yet, now and for good.
    ///
    /// Bodies already running finish; bodies queued but not started, and every body sent
    /// later, are dropped. Calling it again does nothing. Safe from any thread.
    public func invalidate() {
        invalidated.store(true, ordering: .releasing)
    }

    /// Whether ``invalidate()`` has been called.
    public var isInvalidated: Bool {
        invalidated.load(ordering: .acquiring)
    }

    /// Runs `body` on the queue, unless the dispatcher is invalidated before it starts.
    ///
    /// - Parameter body: The work; released without running if it is dropped.
    public func dispatch(_ body: @escaping @Sendable () -> Void) {
        guard !isInvalidated else { return }
        queue.async { [self] in
            // The one check that decides: nothing can undo it once the body starts.
            guard !isInvalidated else { return }
            body()
        }
    }

    /// Runs `body` on the queue, or calls `dropped` instead if the dispatcher is invalidated
    /// before `body` starts: exactly one of the two runs, once.
    ///
    /// `dropped` runs at once on the calling thread if the dispatcher is already invalidated,
    /// and otherwise on the queue, where `body` would have run.
    @usableFromInline
    func dispatch(_ body: @escaping @Sendable () -> Void, orDrop dropped: @escaping @Sendable () -> Void) {
        guard !isInvalidated else { return dropped() }
        queue.async { [self] in
            if isInvalidated {
                dropped()
            } else {
                body()
            }
        }
    }
}
