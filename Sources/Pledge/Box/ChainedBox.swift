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
@usableFromInline
final class ChainedBox<Operation: ChainOperation>: EmptyBox<Result<Operation.Output, Error>>,
    AbandonableTarget, @unchecked Sendable
{
    // Safety: `operation` is written in `init`, before the box is published, and then only by
    // `take()`, which only `receive` calls, or by `abandon()`: the box is attached as a handler
    // to exactly one thenable, which either calls it exactly once, on one thread, after the
    // attachment that published the box, or is freed without calling it and then calls
    // `abandon()` from its `deinit`. No other code reads it.
    @exclusivity(unchecked)
    @usableFromInline
    final var operation: Operation

    /// The queue the operation runs on, or `nil` to run it inline. Released with the operation.
    // Safety: accessed exactly like `operation` (see above).
    @exclusivity(unchecked)
    @usableFromInline
    final var queue: DispatchQueue?

    @inlinable
    init(_ operation: Operation, queue: DispatchQueue?) {
        self.operation = operation
        self.queue = queue
        super.init(placeholder: unretainedPendingPlaceholder())
    }

    /// Hands out the operation to run and its queue, and lets go of both.
    @inlinable
    final func take() -> (Operation, DispatchQueue?) {
        let taken = (operation, queue)
        operation.discard()
        queue = nil
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
        // handler never ran; nothing else can reach `operation` or `queue` then (see above).
        let (operation, _) = take()
        // Moved, not copied: no reference may stay behind in this frame (see `Teardown`).
        Teardown.park(consume operation)
    }

    /// The handler a chained box is attached with: runs the operation for `result`, on the
    /// box's queue when it acts on the result, inline otherwise.
    @inlinable
    static func receive(_ target: (any HandlerTarget)?, _ result: Result<Operation.Input, Error>) -> _PledgeStep? {
        // Safety: `receive` is only ever attached with a `ChainedBox<Operation>` as its target
        // (see `_chain`), never with `nil`. Unwrapping without a check borrows the caller's
        // reference instead of copying it, which spares a retain and a release per call.
        let box = unsafeDowncast(target.unsafelyUnwrapped, to: ChainedBox.self)
        let (operation, queue) = box.take()
        guard let queue, operation.acts(on: result) else {
            return operation.run(result, into: box)
        }
        queue.run(operation, result, into: box, flags: nil)
        return nil
    }
}
