/// The handlers waiting on a pending box, in the order they were attached.
///
/// Almost every promise has exactly one handler (the next link of its chain), so the first is
/// stored inline, as its target and function; a list object is allocated only when a second
/// one arrives. The two fields encode four states, in 24 bytes:
///
/// | `target` | `handler` | meaning |
/// |---|---|---|
/// | `nil` | `nil` | no handler |
/// | `nil` | a closure | one handler, a plain closure |
/// | an object | a function | one handler, working for `target` (a ``ChainedBox``, say) |
/// | a ``HandlerList`` | `nil` | two or more handlers, in the list |
///
/// The layout does not depend on `R`, so destroying it needs no generic metadata.
@usableFromInline
struct Handlers<R: Sendable> {
    @usableFromInline
    var target: (any HandlerTarget)?
    @usableFromInline
    var handler: BoxHandler<R>?

    @inlinable
    init() {
        target = nil
        handler = nil
    }

    @inlinable @inline(__always)
    var isEmpty: Bool { handler == nil && target == nil }

    /// The list, when two or more handlers are stored.
    @inlinable
    var list: HandlerList<R>? {
        guard handler == nil, let target else { return nil }
        // Safety: with no function stored, a target is only ever a `HandlerList<R>` (see the
        // table above and `append`).
        return unsafeDowncast(target, to: HandlerList<R>.self)
    }

    @inlinable @inline(__always)
    mutating func append(_ newTarget: consuming (any HandlerTarget)?, _ newHandler: consuming @escaping BoxHandler<R>) {
        if isEmpty {
            // The usual case, kept inline in the caller.
            target = newTarget
            handler = newHandler
        } else {
            appendToMany(newTarget, newHandler)
        }
    }

    /// ``append(_:_:)`` when a handler is already stored.
    @inlinable
    mutating func appendToMany(
        _ newTarget: consuming (any HandlerTarget)?, _ newHandler: consuming @escaping BoxHandler<R>
    ) {
        if let list {
            list.items.append(StoredHandler(target: newTarget, handler: newHandler))
        } else if let handler {
            let list = HandlerList<R>([
                StoredHandler(target: target, handler: handler),
                StoredHandler(target: newTarget, handler: newHandler),
            ])
            self.target = list
            self.handler = nil
        }
    }

    /// Tells every target that keeps something for its handler (see ``AbandonableTarget``) that
    /// the handler will never run. Only the `deinit` of an abandoned box calls it.
    @inlinable
    func abandonTargets() {
        if handler != nil {
            (target as? any AbandonableTarget)?.abandon()
        } else if let list {
            for stored in list.items {
                (stored.target as? any AbandonableTarget)?.abandon()
            }
        }
    }

    /// Runs every handler with `value`, in order, and collects the steps they hand back, in the
    /// same order: the first into `next` while it is still empty, each later one pushed onto the
    /// cascade's stack (which the firing box turns around when done, see
    /// ``EmptyBox/runHandlers(of:_:)``). A box runs several batches of handlers (those attached
    /// while it fires come in later batches) into the same two, so the cascades they start keep
    /// attachment order across batches too. A queued handler's hop is run at once instead (see
    /// ``Cascade``).
    ///
    /// Each handler is given its target's reference, moved out of the batch rather than copied:
    /// a handler that needs its target for longer than the call (a queued handler's hop, see
    /// ``QueuedChainedBox``) keeps that count instead of taking one of its own. A lone handler's
    /// function is moved out too, so that calling it copies no closure; a list's functions stay
    /// in its items until each is popped. The batch is left empty.
    @inlinable @inline(__always)
    mutating func run(_ value: R, next: inout _PledgeStep?, _ cascade: inout Cascade) {
        if let handler = handler.take() {
            if let step = handler(target.take(), value) { Handlers.collect(step, &next, &cascade) }
            return
        }
        runList(value, next: &next, &cascade)
    }

    /// ``run(_:next:_:)`` for two or more handlers, kept apart so that the usual case stays
    /// small enough to inline.
    @inlinable
    mutating func runList(_ value: R, next: inout _PledgeStep?, _ cascade: inout Cascade) {
        guard let list else { return }
        // The list belongs to this batch alone now (see `HandlerList`): its items are moved
        // out, first to last, leaving it empty.
        target = nil
        var items: [StoredHandler<R>] = []
        swap(&items, &list.items)
        items.reverse()
        while var stored = items.popLast() {
            if let step = stored.handler(stored.target.take(), value) {
                Handlers.collect(step, &next, &cascade)
            }
        }
    }

    /// Keeps `step` as the next one when there is none yet, and queues it after the others
    /// otherwise. A queued handler's hop is run at once instead, while the box is still firing:
    /// it dispatches its operation, or makes it the run's tail (see ``Cascade``), and leaves
    /// nothing to keep.
    @inlinable @inline(__always)
    static func collect(_ step: consuming _PledgeStep, _ next: inout _PledgeStep?, _ cascade: inout Cascade) {
        if step.isHop {
            step.run(&cascade).expectNone("a hop hands back no step")
            return
        }
        if next == nil {
            next = step
        } else {
            cascade.stack.append(step)
        }
    }
}

/// One handler and its target, as kept in a ``HandlerList``.
@usableFromInline
struct StoredHandler<R: Sendable> {
    @usableFromInline
    var target: (any HandlerTarget)?
    @usableFromInline
    let handler: BoxHandler<R>

    @inlinable
    init(target: (any HandlerTarget)?, handler: @escaping BoxHandler<R>) {
        self.target = target
        self.handler = handler
    }
}

/// The handlers of a box that has more than one, in attachment order.
@usableFromInline
final class HandlerList<R: Sendable>: @unchecked Sendable {
    // Safety: `items` is only touched under the lock of the one box whose `Handlers` holds this
    // list, or, once the box has handed its handlers over, by the single thread running them.
    @usableFromInline
    var items: [StoredHandler<R>]

    @inlinable
    init(_ items: [StoredHandler<R>]) {
        self.items = items
    }
}

/// A handler target that keeps something only for its handler's call: told when the box it
/// waits on is freed unresolved, so that it can let go at once.
@usableFromInline
protocol AbandonableTarget: AnyObject {
    /// The handler this target was attached with will never be called.
    func abandon()
}
