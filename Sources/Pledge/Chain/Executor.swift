import Dispatch

/// Where an operator's closure runs: the one executor behind every operator's `on:`.
@usableFromInline
enum Executor: Sendable {
    /// On the thread that resolves the input; at once when it is resolved already.
    case inline
    /// In a block of its own on this queue.
    case queue(DispatchQueue)
    /// A queue with work-item flags, a ``Dispatcher``, or an actor (``MainActorLane``,
    /// ``ActorDispatcher``): kept behind a reference, to keep every operator's box small.
    case custom(CustomExecutor)

    /// The executor of an operator given `on: queue, flags: flags`, whose closure is isolated to
    /// `isolation`: then it runs there instead, on the main queue for the main actor (see
    /// ``MainActorLane``), else through the actor (see ``ActorDispatcher``), and the flags are
    /// ignored. Flags mean nothing without a queue: they are reported
    /// (``LogEvent/nilDispatchQueueWithFlags``) and ignored.
    @inlinable
    init(_ queue: DispatchQueue?, flags: DispatchWorkItemFlags?, isolation: (any Actor)?) {
        if let isolation {
            self =
                isolation === MainActor.shared
                ? .custom(MainActorLane.executor) : .custom(ActorDispatcher.executor(isolation))
            return
        }
        guard let queue else {
            if flags != nil { conf.log(.nilDispatchQueueWithFlags) }
            self = .inline
            return
        }
        guard let flags else {
            self = .queue(queue)
            return
        }
        let raw = flags.rawValue
        self = .custom(
            CustomExecutor { body, _ in queue.async(flags: DispatchWorkItemFlags(rawValue: raw), execute: body) })
    }

    /// The executor of an operator given `on: dispatcher`. A dispatcher that is a queue takes
    /// the queue's path. `cancelsOnDrop`: the operator returns a promise, which is cancelled when
    /// a dropping dispatcher (``InvalidatableQueue``) drops its body; a guarantee stays pending.
    @inlinable
    init(_ dispatcher: any Dispatcher, cancelsOnDrop: Bool) {
        if let queue = dispatcher._dispatchQueue {
            self = .queue(queue)
        } else if let dropping = dispatcher as? any DroppingDispatcher {
            // A guarantee cannot fail: its box stays pending, and goes with its holders.
            self = .custom(
                CustomExecutor { body, dropped in
                    dropping.dispatch(body, orDrop: cancelsOnDrop ? dropped : { @Sendable in })
                })
        } else {
            self = .custom(
                CustomExecutor { (body: @escaping @Sendable () -> Void, _: @escaping @Sendable () -> Void) in
                    dispatcher.dispatch(body)
                })
        }
    }
}

/// A queue with flags, or a ``Dispatcher``, as an ``Executor`` holds it.
@usableFromInline
final class CustomExecutor: Sendable {
    /// Runs the first closure later, exactly once, or calls the second instead when it drops
    /// the work.
    @usableFromInline
    let dispatch: @Sendable (@escaping @Sendable () -> Void, @escaping @Sendable () -> Void) -> Void

    /// The lane of the handlers that use it, when not the attaching thread's: an actor's, so that
    /// its handlers keep their order whichever threads its jobs run on (see ``ActorLanes``).
    @usableFromInline
    let lane: UInt64?

    @inlinable
    init(
        lane: UInt64? = nil,
        _ dispatch: @escaping @Sendable (@escaping @Sendable () -> Void, @escaping @Sendable () -> Void) -> Void
    ) {
        self.lane = lane
        self.dispatch = dispatch
    }
}
