import CPledgeThreadLocal
import Synchronization

// Cancelling: sealing a pending box with `PMKError.cancelled`, and deciding which boxes upstream
// to cancel too, those whose every dependent is now cancelled, one box at a time from a loop,
// one lock at a time.

/// Why a box may be cancelled.
@usableFromInline
enum CancelReason {
    /// `cancel()` was called on it: it is cancelled if pending.
    case cancelled
    /// This dependent (the receiver of a handler the box stores) was cancelled: its handler is
    /// taken back, and the box is cancelled if no other dependent is left.
    case dependentCancelled(AnyObject)
    /// A would-be dependent was cancelled before it attached: the box is cancelled if it has no
    /// dependent.
    case dependentWithdrawn
}

/// Cancels `box` as `reason` allows, then, from one loop in constant stack, each box upstream whose
/// every dependent is now cancelled, and the inputs of the fan-ins it cancels (``cancelInput(_:of:)``).
@usableFromInline
func cancelChain(from box: AnyBox, _ reason: CancelReason) {
    let thread = ThreadRun.current
    // The inputs scheduled above `base` are this loop's; a loop nested in it takes only its own.
    let base = thread.pointee.cancelledInputs.count
    thread.pointee.cancelLoops += 1
    var current: AnyBox? = box
    var reason = reason
    while let box = current {
        current = box.cancel(reason)
        reason = .dependentCancelled(box)
        if current == nil, thread.pointee.cancelledInputs.count > base {
            (current, reason) = thread.pointee.cancelledInputs.removeLast()
        }
    }
    thread.pointee.cancelLoops -= 1
}

/// Cancels `input`, which the fan-in `dependent`, just cancelled, withdraws from: later, from the
/// cancel loop running on this thread, so that nested fan-ins do not recurse (at once if none runs).
@usableFromInline
func cancelInput(_ input: AnyBox, of dependent: AnyObject) {
    let thread = ThreadRun.current
    guard thread.pointee.cancelLoops > 0 else { return cancelChain(from: input, .dependentCancelled(dependent)) }
    thread.pointee.cancelledInputs.append((input, .dependentCancelled(dependent)))
}

extension EmptyBox {
    /// The one transition behind cancelling: seals the box with ``PMKError/cancelled`` if it is
    /// pending and `reason` allows, takes its upstream, then (after the lock) cancels a fan-in's
    /// inputs, runs its `onCancel` hooks and fires its handlers, which see the rejection.
    @usableFromInline
    final func cancelTransition(_ reason: CancelReason) -> AnyBox? {
        lock.lock()
        var waiting: Waiting
        var unstarted = false
        switch exchange(&state, with: .settled) {
        case .pending(let stored):
            waiting = stored
        case .unstarted:
            waiting = .none
            unstarted = true
        case .unobserved:
            // Whoever cancels a rejected promise no longer wants its outcome, and one a dependent
            // withdraws from was handed to Pledge: either way, seen (the exchange left it settled).
            lock.unlock()
            return nil
        case let other:
            state = other
            lock.unlock()
            return nil
        }
        var withdrawn: Handler? = nil
        let allowed: Bool
        switch reason {
        case .cancelled:
            allowed = true
        case .dependentCancelled(let dependent):
            withdrawn = waiting.remove(dependent)
            allowed = withdrawn != nil && !waiting.hasDependents
        case .dependentWithdrawn:
            allowed = !waiting.hasDependents
        }
        guard allowed else {
            // Not cancelled: the state goes back as it was, less the withdrawn handler.
            state = unstarted ? .unstarted : .pending(waiting)
            lock.unlock()
            // Its dependent, cancelled, lets go of what it kept for it, after the lock.
            withdrawn?.abandon(by: ObjectIdentifier(self))
            return nil
        }
        let upstream = takeUpstream()
        let producer = dropProducer()
        outcome.store(.cancelled, ordering: .releasing)
        let (due, hooks) = settle(waiting)
        lock.unlock()
        #if DEBUG
            conf.pending.remove(self)
        #endif
        withdrawn?.abandon(by: ObjectIdentifier(self))
        // Released after the lock; a lazy body that owns the rest of a chain frees it from a
        // loop (see `LazyBox`).
        extendLifetime(producer)
        cancelInputs()
        for hook in hooks ?? [] { hook() }
        if let due { ThreadRun.run(due) }
        return upstream
    }

    /// The box this one depends on, with a count, while this one is pending: what
    /// `PMKFinalizer.cancel()` cancels.
    @usableFromInline
    final func upstream() -> AnyBox? {
        lock.lock()
        let upstream = state.isPending ? peekUpstream() : nil
        lock.unlock()
        return upstream
    }

    /// Stores `body` to run if the box is cancelled while pending; runs it at once when the box
    /// was cancelled already, and drops it when the box ended otherwise.
    @usableFromInline
    final func addCancelHook(_ body: @escaping @Sendable () -> Void) {
        lock.lock()
        switch exchange(&state, with: .settled) {
        case .pending(let waiting):
            let list: HandlerList
            switch consume waiting {
            case .none: list = HandlerList([])
            case .one(let handler): list = HandlerList([(handler, firstLane)])
            case .many(let existing): list = existing
            }
            list.hooks.append(body)
            state = .pending(.many(list))
            lock.unlock()
        case let other:
            state = other
            lock.unlock()
            if endedCancelled { body() }
        }
    }

    /// How many handlers a pending box stores: for debug descriptions and tests.
    final var storedHandlers: Int {
        lock.lock()
        defer { lock.unlock() }
        switch state {
        case .pending(.one): return 1
        case .pending(.many(let list)): return list.stored
        default: return 0
        }
    }
}

extension AnyBox.Waiting {
    /// Whether a dependent waits (`onCancel` hooks are not dependents).
    @usableFromInline
    var hasDependents: Bool {
        switch self {
        case .none: false
        case .one: true
        case .many(let list): list.stored > 0
        }
    }

    /// Takes back the handler of `dependent` (see ``CancelReason``).
    @usableFromInline
    mutating func remove(_ dependent: AnyObject) -> Handler? {
        var taken = Self.none
        swap(&taken, &self)
        switch consume taken {
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

/// The object a non-owning link names, with a strong count, unless it is being freed: the
/// runtime's `swift_tryRetain`, which is what a `weak` load does, without the side table a weak
/// reference allocates. The one place Pledge calls into the runtime.
///
/// The caller must know that the memory is still allocated: it holds a lock that the object's
/// `deinit` must take before it can finish (see ``ChainedBox/upstreamLink``).
@usableFromInline
func retainIfAlive<Object: AnyObject>(_ link: Unmanaged<Object>) -> Object? {
    guard pledge_try_retain(link.toOpaque()) else { return nil }
    return link.takeRetainedValue()
}
