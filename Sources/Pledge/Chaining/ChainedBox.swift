import Dispatch

/// The box of a chaining operator's result, which is also the handler that operator attaches
/// to the thenable it is called on.
///
/// A pending operator needs somewhere to keep its operation (the user's closure) until the input
/// resolves, and a box for its result. Keeping the operation in the result box, and attaching
/// that box as the handler's target with a thin function, makes both one allocation.
///
/// The operation is taken exactly once, when the input resolves, and the stored copy is
/// discarded at that moment, so the user's closure and its captures are released as soon as it
/// has run even while the operator's promise is still held.
///
/// This class serves `on: nil` operators, which run inline; ``QueuedChainedBox`` adds the queue
/// for the others, so that an inline operator's box stays in a smaller malloc size class.
@usableFromInline
class ChainedBox<Operation: ChainOperation>: EmptyBox<Result<Operation.Output, Error>>, @unchecked Sendable {
    // Safety: `operation` is written in `init`, before the box is published. After that it is
    // read and taken (`take()`) only by the box's handler (`receive`, `receiveOnQueue`) and the
    // tail that handler makes, which run once, one after the other, or by `abandon(from:)`: the box
    // is attached as a handler to exactly one box, which either calls it exactly once, after the
    // attachment that published the box, or is freed without calling it and then calls
    // `abandon(from:)` from its `deinit`.
    @exclusivity(unchecked)
    @usableFromInline
    final var operation: Operation

    /// The type of the box this one waits on.
    @usableFromInline
    typealias Source = Box<Result<Operation.Input, Error>>

    @inlinable
    init(_ operation: Operation) {
        self.operation = operation
        super.init(placeholder: pendingPlaceholder())
    }

    /// Hands out the operation to run, and lets go of it.
    @inlinable
    final func take() -> Operation {
        let taken = operation
        operation.discard()
        return taken
    }

    /// What a handler does instead of running the operation when the box was sealed first,
    /// which only cancelling does: a cancelled operator never calls its closure. Drops the
    /// operation now. Kept out of line: rare.
    @inlinable @inline(never)
    static func dropCancelled<Box: ChainedBox>(_ box: consuming Retained<Box>) -> Step? {
        _ = box.withObject { $0.take() }
        return nil
    }

    @usableFromInline
    override final func withdrawn() {
        // Safety: the source took this box's handler back, under its lock, so nothing else can
        // reach `operation` now (see above).
        _ = take()
    }

    /// Drops the operation when the box this one waits on is freed unresolved: the operator's
    /// promise stays pending, but the user's closure and its captures go at once.
    ///
    /// (Also reached when this box follows a thenable that a `then` or `recover` body returned
    /// and that thenable is freed unresolved: the operation was taken already, so there is
    /// nothing left to drop.)
    ///
    /// The closure is not released here, inside that box's `deinit`: what it captures may be
    /// another abandoned chain, whose release would nest. It is parked with ``Teardown``, which
    /// releases it from a loop.
    @usableFromInline
    override final func abandon(from source: ObjectIdentifier) {
        super.abandon(from: source)
        // Safety: called only when the box this one was attached to will never call its
        // handler (freed unresolved, or the handler was taken back); nothing else can reach
        // `operation` then (see above).
        let operation = take()
        // Moved, not copied: no reference may stay behind in this frame (see `Teardown`).
        Teardown.park(consume operation)
    }

    /// The handler an inline (`on: nil`) chained box is attached with: runs the operation at
    /// once, with the count the source kept on this box.
    @inlinable
    static func receive(
        _ target: consuming (any HandlerTarget)?, _ source: AnyObject, _ run: inout Run
    ) -> Step? {
        // Safety: `receive` is only ever attached with a `ChainedBox<Operation>` as its target
        // (see `Box.chain`), never with `nil`.
        let box = Retained(handedTo: target, as: ChainedBox.self)
        guard box.withObject({ $0.isPending }) else { return dropCancelled(box) }
        let operation = box.withObject { $0.take() }
        return operation.run(Source.attached(source).value, into: box.downcast(to: EmptyBox.self), &run)
    }
}

/// The box of a chaining operator with a queue: a ``ChainedBox`` that also keeps the queue its
/// operation runs on.
///
/// When its input resolves with a result the operation acts on, the handler hops: it offers the
/// operation to the current run as the block's tail (see ``BlockSharing``), which keeps it when
/// the run is a block on the same queue that may share, or dispatches it. Hops are made while
/// the input box fires, in attachment order, so dispatches keep that order too.
@usableFromInline
final class QueuedChainedBox<Operation: ChainOperation>: ChainedBox<Operation>, @unchecked Sendable {
    // Safety: adds an immutable queue, which is `Sendable`; `ChainedBox` documents the rest.

    /// The queue the operation runs on. Kept until the box goes: unlike the operation, it holds
    /// nothing of the user's but the queue itself.
    @usableFromInline
    final let queue: DispatchQueue

    @inlinable
    init(_ operation: Operation, queue: consuming DispatchQueue) {
        self.queue = queue
        super.init(operation)
    }

    /// The handler a queued chained box is attached with. A result the operation does not act on
    /// (a `map` passing a rejection on, say) goes through inline; otherwise the operation hops
    /// to the queue (see ``Run/hop(_:to:)``).
    @inlinable
    static func receiveOnQueue(
        _ target: consuming (any HandlerTarget)?, _ source: AnyObject, _ run: inout Run
    ) -> Step? {
        // Safety: `receiveOnQueue` is only ever attached with a `QueuedChainedBox<Operation>` as
        // its target (see `Box.chain`), never with `nil`.
        let box = Retained(handedTo: target, as: QueuedChainedBox.self)
        let result = Source.attached(source).value
        let (acts, queue) = box.withObject { ($0.operation.acts(on: result), $0.queue) }
        guard acts else {
            guard box.withObject({ $0.isPending }) else { return dropCancelled(box) }
            let operation = box.withObject { $0.take() }
            return operation.run(result, into: box.downcast(to: EmptyBox.self), &run)
        }
        run.hop(Tail(box: box.erased(), source: Retained(source), body: QueuedChainedBox.tail), to: queue)
        return nil
    }

    /// The body of the ``Tail`` a hop makes: runs the operation inline, at the end of the
    /// current block, or dispatches it to the queue.
    @inlinable
    static func tail(
        _ box: consuming Retained<AnyObject>, _ source: consuming Retained<AnyObject>, _ mode: TailMode,
        _ run: inout Run
    ) -> Step? {
        // Safety: only `receiveOnQueue` makes tails with this body: `box` is a `QueuedChainedBox`,
        // and `source` the box it was attached to, now sealed, so its value may be read unlocked.
        let input = source.withObject { Source.attached($0).value }
        let box = box.downcast(to: QueuedChainedBox.self)
        switch mode {
        case .runInline:
            guard box.withObject({ $0.isPending }) else { return dropCancelled(box) }
            let operation = box.withObject { $0.take() }
            return operation.run(input, into: box.downcast(to: EmptyBox.self), &run)
        case .dispatch, .dispatchUnshared:
            box.withObject { box in
                // The input is in hand: the source may go before the block runs.
                box.unlink()
                box.queue.run(box.take(), input, into: box, as: mode == .dispatch ? .sharing : .plain(flags: 0))
            }
            return nil
        }
    }
}
