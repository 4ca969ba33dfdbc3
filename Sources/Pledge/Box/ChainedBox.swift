import Dispatch

/// The box of a chaining operator's result, which is also the handler that operator attaches
/// to the thenable it is called on.
///
/// A pending operator needs somewhere to keep its operation (the user's closure) until the input
/// resolves, and a box for its result. Keeping the operation in the result box, and attaching
/// that box as the handler (a thin function plus the box as its target, see ``Handlers``),
/// makes both one allocation.
///
/// The operation is taken exactly once, when the input resolves, and the stored copy is
/// discarded at that moment, so the user's closure and its captures are released as soon as it
/// has run even while the operator's promise is still held.
///
/// This class serves `on: nil` operators, which run inline; ``QueuedChainedBox`` adds the queue
/// for the others. Keeping the queue out of the inline kind keeps its box in a smaller malloc
/// size class: 72 bytes for an operator on `Int` (the 80-byte class) instead of 80 (the 96-byte
/// class).
@usableFromInline
class ChainedBox<Operation: ChainOperation>: EmptyBox<Result<Operation.Output, Error>>,
    AbandonableTarget, @unchecked Sendable
{
    // Safety: `operation` is written in `init`, before the box is published, and then only by
    // `take()`, which only the `receive` handlers call, or by `abandon()`: the box is attached as
    // a handler to exactly one thenable, which either calls it exactly once, on one thread,
    // after the attachment that published the box, or is freed without calling it and then
    // calls `abandon()` from its `deinit`. No other code reads it.
    @exclusivity(unchecked)
    @usableFromInline
    final var operation: Operation

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

    /// Drops the operation when the thenable this box waits on is freed unresolved: the
    /// operator's promise stays pending, but the user's closure and its captures go at once.
    ///
    /// Also reached when this box follows a thenable returned by a `then` or `recover` body and
    /// that thenable is freed unresolved: the operation was taken before it could return the
    /// thenable, so there is nothing left to drop.
    ///
    /// The closure is not released here, inside the `deinit` of that thenable's box: what it
    /// captures may be another abandoned chain, whose release would nest. It is parked with
    /// ``Teardown`` instead, which releases it from a loop.
    @usableFromInline
    final func abandon() {
        // Safety: called only from the `deinit` of the box this one was attached to, whose
        // handler never ran; nothing else can reach `operation` then (see above).
        let operation = take()
        // Moved, not copied: no reference may stay behind in this frame (see `Teardown`).
        Teardown.park(consume operation)
    }

    /// The handler an inline (`on: nil`) chained box is attached with: runs the operation for
    /// `result` at once.
    @inlinable
    static func receive(_ target: consuming (any HandlerTarget)?, _ result: Result<Operation.Input, Error>)
        -> _PledgeStep?
    {
        // Safety: `receive` is only ever attached with a `ChainedBox<Operation>` as its target
        // (see `_attach`), never with `nil`. The count this handler was given goes to the step
        // that runs the box's handlers when there is one (see
        // `ChainOperation.run(_:handingCountOn:)`).
        withHandedCount(of: target, as: ChainedBox.self) { box in
            box.take().run(result, handingCountOn: box)
        }
    }
}

/// The box of a chaining operator with a queue: a ``ChainedBox`` that also keeps the queue its
/// operation runs on, and the box it waits on.
///
/// When its input resolves with a result the operation acts on, its handler does not dispatch
/// by itself: it hands back a hop step, which needs to know the current ``Trampoline`` run (see
/// ``Cascade``). The box that called the handler runs the hop at once, while it is still firing
/// (or, when the handler was attached to a box already settled, the run that attached it does),
/// so hops are dispatched in attachment order, as handlers without a hop start. Inside a block
/// Pledge already runs on the same queue, a hop may instead become the tail of the block's run
/// (see ``Cascade``). The operation reads its input from the box it waits on, so none of this
/// allocates.
@usableFromInline
final class QueuedChainedBox<Operation: ChainOperation>: ChainedBox<Operation>, @unchecked Sendable {
    // Safety: adds an immutable queue, which is `Sendable`, and an uncounted reference to the
    // box this one waits on, only read while that box is known to be alive, as `takeHop` and
    // `runTail` document; `ChainedBox` documents the rest.

    /// The queue the operation runs on. Kept until the box goes: unlike the operation, it holds
    /// nothing of the user's but the queue itself.
    @usableFromInline
    final let queue: DispatchQueue

    /// The box this one is attached to as a handler. This reference holds no count: it is read
    /// only while `source` is known to be alive, kept by its own firing, by the caller that
    /// attached to it, or by the count its firing hands to this box's tail (see `takeHop` and
    /// `runTail`).
    @usableFromInline
    final let source: Unmanaged<Box<Result<Operation.Input, Error>>>

    @inlinable
    init(_ operation: Operation, queue: DispatchQueue, source: Box<Result<Operation.Input, Error>>) {
        self.queue = queue
        self.source = Unmanaged.passUnretained(source)
        super.init(operation)
    }

    /// The handler a queued chained box is attached with. A result the operation does not act on
    /// (a `map` passing a rejection on, say) goes through inline, without a hop; otherwise the
    /// handler hands back the hop step.
    @inlinable
    static func receiveOnQueue(_ target: consuming (any HandlerTarget)?, _ result: Result<Operation.Input, Error>)
        -> _PledgeStep?
    {
        // Safety: `receiveOnQueue` is only ever attached with a `QueuedChainedBox<Operation>` as
        // its target, to the box `source` names (see `_attach`), never with `nil`; see
        // `ChainedBox.receive`.
        let box = unsafeDowncast(target.unsafelyUnwrapped, to: QueuedChainedBox.self)
        guard box.operation.acts(on: result) else { return box.take().run(result, into: box) }
        // The hop holds the count this handler was given on `box` (see `Handlers.run`).
        return _PledgeStep(countedHop: box, fire: QueuedChainedBox.hop)
    }

    /// Dispatches the operation to the queue, or, when the current run may take the hop (see
    /// ``Cascade/mayHopInline(to:)``), leaves the step that runs it inline as the run's tail.
    /// Either way, disposes of the count the hop holds on the box: hands it to the tail, or
    /// gives it back (the dispatched block keeps the box with a count of its own).
    @inlinable
    static func hop(_ object: Unmanaged<AnyObject>, _ cascade: inout Cascade) -> _PledgeStep? {
        // Safety: the step holds a count on the box until the borrow ends. Only `receiveOnQueue`
        // makes steps for this function, always with a `QueuedChainedBox<Operation>`.
        let madeTail = object._withUnsafeGuaranteedRef {
            takeHop(unsafeDowncast($0, to: QueuedChainedBox.self), object, &cascade)
        }
        if !madeTail { object.release() }
        return nil
    }

    /// The body of ``hop(_:_:)``; `object` is `box`, with the hop's count.
    ///
    /// - Returns: whether the hop became the run's tail, which keeps the hop's count.
    @inlinable @inline(__always)
    static func takeHop(_ box: QueuedChainedBox, _ object: Unmanaged<AnyObject>, _ cascade: inout Cascade) -> Bool {
        // Safety: a hop step never waits: it is run either by `Handlers.collect` right after the
        // handler call that made it, while `source` fires (and the trampoline's step for that
        // firing keeps `source` alive), or as the first step of the run that
        // `_attach(to:on:_:)` starts when it attaches to a settled box, whose caller holds
        // `source`. So `source` is alive here; it is sealed, so its value may be read without
        // its lock.
        if cascade.mayHopInline(to: box.queue) {
            // The tail runs once the block's run has nothing else left, long after `source`'s
            // firing has ended. It keeps `box` with this hop's count, and `source` with the
            // count that `source`'s firing holds (only a firing box's handler may become a tail,
            // see `Cascade.firingBoxKept`).
            cascade.firingBoxKept = true
            cascade.setTail(_PledgeStep(adopting: object, fire: QueuedChainedBox.runInline))
            return true
        }
        box.dispatch(flags: nil)
        return false
    }

    /// Dispatches the operation to the queue with `source`'s value (see `DispatchQueue.run`).
    /// Only while `source` is known to be alive: the caller's step, or a firing, keeps it.
    @inlinable
    final func dispatch(flags: UInt?) {
        queue.run(take(), source.takeUnretainedValue().value, into: self, flags: flags)
    }

    /// Runs the operation inline, in the current block on the box's queue, as the run's tail.
    ///
    /// Or, when ``Cascade/dispatchTail()`` calls it, dispatches the operation to the queue as a
    /// plain block (empty flags: its run takes no hop inline, see `DispatchQueue.run`), so that
    /// the operation's own next handlers queue behind the sibling dispatched after it.
    ///
    /// The operation fires the box it resolves in this step (see
    /// ``ChainOperation/runFiring(_:handingCountOn:_:)``). Then gives back the count the step
    /// holds on the box, unless that firing handed it to the run's next tail, or the step the
    /// operation hands back took it over.
    @inlinable
    static func runInline(_ object: Unmanaged<AnyObject>, _ cascade: inout Cascade) -> _PledgeStep? {
        // Safety: the step holds a count on the box until the borrow ends. Only `hop` makes
        // steps for this function, always with a `QueuedChainedBox<Operation>`.
        let (next, tookCount) = object._withUnsafeGuaranteedRef {
            runTail(unsafeDowncast($0, to: QueuedChainedBox.self), &cascade)
        }
        if !tookCount { object.release() }
        return next
    }

    /// The body of ``runInline(_:_:)``.
    ///
    /// - Returns: the step to run next, and whether the count the tail holds on `box` went on,
    ///   to that step or to the run's next tail (see
    ///   ``ChainOperation/runFiring(_:handingCountOn:_:)``).
    @inlinable @inline(__always)
    static func runTail(_ box: QueuedChainedBox, _ cascade: inout Cascade) -> (_PledgeStep?, Bool) {
        if cascade.dispatchesTail {
            // Dispatched early, while `source` still fires: its firing keeps it alive (see
            // `Cascade.firingBoxKept`).
            box.dispatch(flags: 0)
            return (nil, false)
        }
        // Safety: `hop` handed the tail the count that `source`'s firing held, given back here,
        // once the firing of `box` has ended.
        let source = box.source.takeRetainedValue()
        return box.take().runFiring(source.value, handingCountOn: box, &cascade)
    }
}
