import CPledgeThreadLocal

/// Why a box may be cancelled.
@usableFromInline
enum CancelReason: Sendable {
    /// `cancel()` was called on it: it is cancelled if pending.
    case cancelled
    /// This dependent (the receiver of a handler the box stores) was cancelled: its handler is
    /// taken back, and the box is cancelled if no other dependent is left.
    case dependentCancelled(AnyObject & Sendable)
    /// A would-be dependent was cancelled before it attached: cancelled if it has no dependent.
    case dependentWithdrawn
}

/// Cancels `box` as `reason` allows, then each box upstream whose every dependent is now
/// cancelled and the inputs of the fan-ins it cancels (``cancelInput(_:of:)``): one box at a time,
/// from one loop in constant stack, one lock at a time.
@usableFromInline
func cancelChain(from box: AnyBox, _ reason: CancelReason) {
    pledge_set_thread_cancel_loops(pledge_get_thread_cancel_loops() + 1)
    // The inputs left above `base` are this loop's; a loop nested in it takes only its own.
    let base = pledge_get_thread_cancelled_inputs()
    var current: AnyBox? = box
    var reason = reason
    while let box = current {
        current = box.cancel(reason)
        reason = .dependentCancelled(box)
        if current == nil, pledge_get_thread_cancelled_inputs() > base {
            (current, reason) = ThreadState.current.takeCancelledInput()
        }
    }
    pledge_set_thread_cancel_loops(pledge_get_thread_cancel_loops() - 1)
}

/// Cancels `input`, which the fan-in `dependent`, just cancelled, withdraws from: later, from the
/// cancel loop running on this thread, so that nested fan-ins do not recurse (at once if none runs).
@usableFromInline
func cancelInput(_ input: AnyBox, of dependent: AnyObject & Sendable) {
    guard pledge_get_thread_cancel_loops() > 0 else { return cancelChain(from: input, .dependentCancelled(dependent)) }
    ThreadState.current.leave((input, .dependentCancelled(dependent)))
}

extension AnyBox.Core {
    /// What a cancellation leaves to do after the lock. Noncopyable: it moves out of the lock.
    struct Cancelling: ~Copyable, Sendable {
        /// The handler of the dependent that was cancelled, taken back: told after the lock.
        var withdrawn: Handler? = nil
        /// Whether the box was cancelled, and, if so, the rest.
        var cancelled = false
        var fires = false
        var hooks: [@Sendable () -> Void]? = nil
        var upstream: AnyBox? = nil
        /// A lazy box's body, released unrun.
        var body: (@Sendable (AnyBox) -> Void)? = nil
    }

    /// Applies `reason` to the box: seals it with the cancellation if it is pending and `reason`
    /// allows, and takes back a cancelled dependent's handler in any case.
    mutating func cancel(_ reason: CancelReason) -> Cancelling {
        var step = Cancelling()
        var waiting: AnyBox.Waiting
        var orphaned = false
        switch exchange(&state, with: .settled) {
        case .pending(let stored):
            waiting = stored
        case .orphaned(let stored):
            waiting = stored
            orphaned = true
        case .unstarted(let body):
            waiting = .none
            step.body = body
        case .unobserved:
            // Seen (the exchange left it settled): whoever cancels a rejected promise no longer
            // wants its outcome, and one a dependent withdraws from was handed to Pledge.
            return step
        case let other:
            state = other
            return step
        }
        let allowed: Bool
        switch reason {
        case .cancelled:
            allowed = true
        case .dependentCancelled(let dependent):
            step.withdrawn = waiting.remove(dependent)
            allowed = step.withdrawn != nil && !waiting.hasDependents
        case .dependentWithdrawn:
            allowed = !waiting.hasDependents
        }
        guard allowed else {
            // Not cancelled: the state goes back as it was, less the withdrawn handler.
            if let body = step.body.take() {
                state = .unstarted(body)
            } else if orphaned {
                state = .orphaned(waiting)
            } else {
                state = .pending(waiting)
            }
            return step
        }
        step.cancelled = true
        step.upstream = upstream.take()?.box
        // Cancelled: it reads no failure of its own, so it is never reported unobserved.
        state = .pending(waiting)
        let sealed = settle(unobserved: nil)
        step.hooks = sealed?.hooks
        step.fires = sealed?.fires ?? false
        return step
    }
}

extension EmptyBox {
    /// The one transition behind cancelling: seals the box with ``PMKError/cancelled`` if it is
    /// pending and `reason` allows, takes its upstream, then (after the lock) runs its `onCancel`
    /// hooks and fires its handlers, which see the rejection.
    @usableFromInline
    final func cancelTransition(_ reason: CancelReason) -> AnyBox? {
        let step = core.withLock { core in
            let step = core.cancel(reason)
            if step.cancelled { outcome.store(.cancelled, ordering: .releasing) }
            return step
        }
        // Its dependent, cancelled, lets go of what it kept for it, after the lock.
        step.withdrawn?.abandon(by: ObjectIdentifier(self))
        guard step.cancelled else { return nil }
        #if DEBUG
            conf.pending.record(self, .ended)
        #endif
        // A lazy body that owns the rest of a chain frees it from a loop.
        if let body = step.body { ThreadRun.release(body) }
        for hook in step.hooks ?? [] { hook() }
        if step.fires { ThreadRun.run(.fire(self)) }
        return step.upstream
    }

    /// While pending, the box this one depends on: what `PMKFinalizer.cancel()` cancels.
    @usableFromInline
    final func upstream() -> AnyBox? { core.withLock { core in core.isPending ? core.upstream?.box : nil } }

    /// Stores `body` to run if the box is cancelled while pending; runs it at once when the box
    /// was cancelled already, and drops it when the box ended otherwise.
    @usableFromInline
    final func addCancelHook(_ body: @escaping @Sendable () -> Void) {
        let stored = core.withLock { core -> Bool in
            switch exchange(&core.state, with: .settled) {
            case .pending(let waiting):
                core.state = .pending(.many(core.hooked(waiting, body)))
                return true
            case .orphaned(let waiting):
                core.state = .orphaned(.many(core.hooked(waiting, body)))
                return true
            case let other:
                core.state = other
                return false
            }
        }
        if !stored, endedCancelled { body() }
    }
}

extension AnyBox.Core {
    /// The handlers `waiting` as a list, with `body` added to its `onCancel` hooks.
    func hooked(_ waiting: consuming AnyBox.Waiting, _ body: @escaping @Sendable () -> Void) -> HandlerList {
        let list: HandlerList
        switch consume waiting {
        case .none: list = HandlerList([])
        case .one(let handler): list = HandlerList([(handler, firstLane)])
        case .many(let existing): list = existing
        }
        list.hooks.append(body)
        return list
    }
}

extension AnyBox.Waiting {
    /// Whether a dependent waits (`onCancel` hooks are not dependents).
    var hasDependents: Bool {
        switch self {
        case .none: false
        case .one: true
        case .many(let list): list.stored > 0
        }
    }

    /// Takes back the handler of `dependent` (see ``CancelReason``).
    mutating func remove(_ dependent: AnyObject) -> Handler? {
        switch exchange(&self, with: .none) {
        case .none:
            return nil
        case .one(let handler):
            if handler.receiver === dependent { return handler }
            self = .one(handler)
            return nil
        case .many(let list):
            self = .many(list)
            return list.remove(dependent)?.handler
        }
    }
}
