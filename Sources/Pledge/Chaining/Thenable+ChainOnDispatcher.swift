import Dispatch

// Connecting an operation to the thenable it is called on, for an operator given a
// `Dispatcher` rather than a queue. Rare next to the queue path, so the operation travels in the
// handler's closure (as with flags) and the box is the handler's target only so that it learns
// when that handler will never run.

extension Thenable {
    /// ``_chain(on:flags:_:)`` for an operator given a ``Dispatcher``.
    ///
    /// A dispatcher that is in fact a `DispatchQueue` takes the queue path: specialised code
    /// decides that at compile time. Otherwise, when `self` resolves with a result the operation
    /// acts on, the operation runs in a body handed to `dispatcher`, through the trampoline; other
    /// results pass through inline.
    ///
    /// `cancelsOnDrop` says that the operator returns a promise: when a ``DroppingDispatcher``
    /// drops the body, the box is cancelled. A guarantee's box stays pending instead.
    ///
    /// - Returns: the box backing the promise or guarantee the operator returns.
    @inlinable
    func _chain<Operation: ChainOperation>(
        on dispatcher: some Dispatcher, cancelsOnDrop: Bool, _ operation: Operation
    ) -> Box<Result<Operation.Output, Error>> where Operation.Input == T {
        if let queue = dispatcher as? DispatchQueue { return _chain(on: queue, flags: nil, operation) }
        let box: EmptyBox<Result<Operation.Output, Error>> = pendingBox()
        let handler = Box.dispatchingHandler(operation, on: dispatcher, cancelsOnDrop: cancelsOnDrop, into: box)
        guard let source = _box else {
            _pipeOnce(handler)
            return box
        }
        box.inheritSite(from: source)
        // Linked exactly as `Box.chain(on:flags:_:linking:)` links, so that cancelling the
        // operator's promise cancels its input when nothing else depends on it.
        if Self.self == Promise<T>.self { box.link(to: source) }
        source.attach(box, handler)
        return box
    }
}

extension Box {
    /// ``dispatchingHandler(_:on:flags:into:)`` for a ``Dispatcher``: a handler that runs
    /// `operation` into `box` in a body handed to `dispatcher` when the operation acts on the
    /// result, and inline otherwise.
    @inlinable
    static func dispatchingHandler<Operation: ChainOperation>(
        _ operation: Operation, on dispatcher: some Dispatcher, cancelsOnDrop: Bool,
        into box: EmptyBox<Result<Operation.Output, Error>>
    ) -> HandlerFunction where R == Result<Operation.Input, Error> {
        { _, source, run in
            let result = attached(source).value
            guard operation.acts(on: result) else {
                return operation.runUnlessCancelled(result, into: Retained(box), &run)
            }
            // The input is in hand: the source may go before the body runs.
            box.unlink()
            // A dispatcher may call the body at once, inside this run: past the nesting limit,
            // the operation is left to the running loop, so the stack stays bounded.
            let body: @Sendable () -> Void = {
                Trampoline.run(
                    { operation.runUnlessCancelled(result, into: Retained(box), &$0) },
                    deferred: {
                        Step(Retained(box).erased()) { object, run in
                            operation.runUnlessCancelled(result, into: object.downcast(to: EmptyBox.self), &run)
                        }
                    })
            }
            if let dropping = dispatcher as? any DroppingDispatcher {
                dropping.dispatch(body) {
                    // A guarantee cannot fail: its box stays pending, and goes with its holders.
                    if cancelsOnDrop { Cancellation.run(from: box, .cancelled) }
                }
            } else {
                dispatcher.dispatch(body)
            }
            return nil
        }
    }
}
