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
        } else if let queue, let flags {
            let raw = flags.rawValue
            self = .custom(
                CustomExecutor { body, _ in queue.async(flags: DispatchWorkItemFlags(rawValue: raw), execute: body) })
        } else if let queue {
            self = .queue(queue)
        } else {
            if flags != nil { conf.log(.nilDispatchQueueWithFlags) }
            self = .inline
        }
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

extension Executor {
    /// Runs `body` where an operator's closure runs: at once inline, else in a block of its own
    /// (a dispatcher that drops work drops it).
    @usableFromInline
    func perform(_ body: @escaping @Sendable () -> Void) {
        let activity = PledgeActivity.Counts(scope: nil)
        switch self {
        case .inline:
            body()
        case .queue(let queue):
            activity.dispatched()
            queue.async {
                body()
                activity.finished()
            }
        case .custom(let custom):
            activity.dispatched()
            custom.dispatch(
                {
                    body()
                    activity.finished()
                }, { activity.finished() })
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

// The forms without `on:` take an `@isolated(any)` closure and call it synchronously where its
// isolation says: a nonisolated closure anywhere, a main-actor one on the main queue, an actor's
// inside the actor (see `ActorDispatcher`). Swift offers no checked way to do that (it calls an
// `@isolated(any)` function only with `await`, since the caller may be off its executor), so
// `placed` hands back the executor its isolation names together with the closure as a plain
// function: no caller can run the one anywhere but on the other.
//
// Safety (each `unsafeBitCast` below): an `@isolated(any)` function has a plain function's
// representation, its isolation kept in its context (`unsafeBitCast` traps if the sizes differ;
// `IsolationErasureTests` checks the representation), and the plain function is handed out only
// with the executor its isolation names.

extension Executor {
    /// The executor for `body`, where its isolation says (`queue` and `flags` when it has none),
    /// and `body` as a plain function, to be called only through that executor.
    @inlinable
    static func placed<I, O>(
        _ body: @escaping @isolated(any) @Sendable (I) throws -> O, otherwise queue: DispatchQueue?,
        flags: DispatchWorkItemFlags?
    ) -> (Executor, @Sendable (I) throws -> O) {
        (
            Executor(queue, flags: flags, isolation: body.isolation),
            unsafe unsafeBitCast(body, to: (@Sendable (I) throws -> O).self)
        )
    }

    /// ``placed(_:otherwise:flags:)-(_,_,_)`` for a closure that cannot throw.
    @inlinable
    static func placed<I, O>(
        _ body: @escaping @isolated(any) @Sendable (I) -> O, otherwise queue: DispatchQueue?,
        flags: DispatchWorkItemFlags?
    ) -> (Executor, @Sendable (I) -> O) {
        (
            Executor(queue, flags: flags, isolation: body.isolation),
            unsafe unsafeBitCast(body, to: (@Sendable (I) -> O).self)
        )
    }

    /// ``placed(_:otherwise:flags:)-(_,_,_)`` for a closure of no argument.
    @inlinable
    static func placed<O>(
        _ body: @escaping @isolated(any) @Sendable () -> O, otherwise queue: DispatchQueue?,
        flags: DispatchWorkItemFlags?
    ) -> (Executor, @Sendable () -> O) {
        (
            Executor(queue, flags: flags, isolation: body.isolation),
            unsafe unsafeBitCast(body, to: (@Sendable () -> O).self)
        )
    }

    /// ``placed(_:otherwise:flags:)-(_,_,_)`` for a closure of two arguments.
    @inlinable
    static func placed<A, B, O>(
        _ body: @escaping @isolated(any) @Sendable (A, B) -> O, otherwise queue: DispatchQueue?,
        flags: DispatchWorkItemFlags?
    ) -> (Executor, @Sendable (A, B) -> O) {
        (
            Executor(queue, flags: flags, isolation: body.isolation),
            unsafe unsafeBitCast(body, to: (@Sendable (A, B) -> O).self)
        )
    }
}
