import Synchronization

/// A box that starts pending, stores handlers, and is sealed exactly once.
///
/// Its handlers and its value are guarded by a lock bit in the box's atomic state word (see
/// ``SpinLock`` for why a spin lock). Every transition below takes the lock, changes the state,
/// drops the lock with a release store that also publishes the new phase, and returns what the
/// caller must do next; no transition runs a handler or any other user code.
///
/// - ``store(_:)``: attaching. Pending: the handler is kept. Firing: it is kept, and the caller
///   learns which thread sealed the box: any other thread runs the box's due handlers itself
///   (see ``Box/attach(_:_:)``). Settled: the caller gets the handler back, to run at once.
/// - ``seal(_:by:)``: writes the value; the box becomes `firing` when handlers wait (recording
///   the sealing thread's tag in the state word), else `settled`. ``sealTakingFirst(_:by:)``
///   also takes the first handler.
/// - ``claimNext()``: takes the next due handler; taking the last one settles the box.
/// - ``remove(target:)``: takes back a handler that has not started.
///
/// Field types are chosen so that the unspecialised `deinit` needs no generic metadata lookup:
/// `value` has the bare generic type `R` and `Handlers` has a fixed layout. A pending box
/// therefore holds a placeholder value, never read (see ``pendingPlaceholder()``).
///
/// Not final: ``ChainedBox`` extends it with the operation that resolves it, so that the box of
/// a chaining operator is also the handler it attaches.
@usableFromInline
class EmptyBox<R: Sendable>: Box<R>, @unchecked Sendable {
    // Safety: `handlers` is read and written only while the lock bit is held; the acquire and
    // release orderings of taking and dropping it order every access (and ThreadSanitizer
    // models them). The dynamic exclusivity check is off because the lock already guarantees
    // exclusivity.
    @exclusivity(unchecked)
    @usableFromInline
    final var handlers = Handlers()

    deinit {
        // A box freed unsealed (abandoned) still holds the placeholder, whose destruction
        // releases nothing, and its handlers, which own the rest of its chain: those are
        // released iteratively (see `Teardown`). A sealed box has none left.
        if !handlers.isEmpty {
            // Those handlers will never run: let their targets drop what they kept for them.
            handlers.abandonTargets()
            var abandoned = Handlers()
            swap(&abandoned, &handlers)
            // Moved, not copied: no reference may stay behind in this frame, or releasing it
            // here would recurse after all.
            Teardown.park(consume abandoned)
        }
    }

    /// Makes a pending box; `placeholder` fills the value slot until the box is sealed and is
    /// never read. It must be ``pendingPlaceholder()``: sealing writes over it without
    /// destroying it.
    @inlinable
    init(placeholder: R) {
        super.init(value: placeholder, phase: BoxPhase.pending)
    }

    /// Takes the lock bit.
    ///
    /// - Returns: the state word at the time the lock was taken (the phase, and for a firing box
    ///   its sealer), which cannot change until ``unlock(_:)``.
    @inlinable @inline(__always)
    final func lock() -> UInt32 {
        state.takeLockBit(BoxPhase.lockBit)
    }

    /// Drops the lock bit and publishes the state word `word`, with release ordering.
    @inlinable @inline(__always)
    final func unlock(_ word: UInt32) {
        state.store(word, ordering: .releasing)
    }

    /// What the caller of ``store(_:)`` must do next.
    @usableFromInline
    enum StoreOutcome: ~Copyable {
        /// Nothing: the box is pending, and runs the handler once sealed.
        case stored
        /// The box is still firing: the thread with tag `sealer` sealed it and runs its handlers,
        /// this one last, unless another thread does first (see ``Box/attach(_:_:)``).
        case firing(sealer: UInt32)
        /// Run the handler, given back, at once: the box has settled.
        case settled(Handler)
    }

    /// Attaches `handler`, unless the box has settled (see ``StoreOutcome``).
    @inlinable @inline(__always)
    final func store(_ handler: consuming Handler) -> StoreOutcome {
        let word = lock()
        if word == BoxPhase.settled {
            unlock(word)
            return .settled(handler)
        }
        handlers.append(handler)
        unlock(word)
        return word == BoxPhase.pending ? .stored : .firing(sealer: word >> BoxPhase.sealerShift)
    }

    /// Seals the box with `newValue`, unless it is sealed already.
    ///
    /// - Parameter sealer: the tag of the calling thread (see ``ThreadRunState/tag``).
    /// - Returns: whether handlers are due: the box is now `firing`, and the caller must run
    ///   them (see ``EmptyBox/fireStep(_:)``). `false` when the box has settled with none, or was
    ///   sealed before.
    @inlinable @inline(__always)
    final func seal(_ newValue: R, by sealer: UInt32) -> Bool {
        guard lockIfPending(writing: newValue) else { return false }
        let due = !handlers.isEmpty
        unlock(due ? BoxPhase.firing | sealer << BoxPhase.sealerShift : BoxPhase.settled)
        return due
    }

    /// ``seal(_:by:)``, taking the first due handler in the same critical section: for a caller
    /// that runs the box's handlers at once, before anything else (see ``resolve(_:)``). One that
    /// hands back a step must not: the step may wait while other handlers of its run attach to
    /// the box, and a handler taken early would let them overtake it.
    ///
    /// - Returns: the first handler, to call and then run the rest (see
    ///   ``runHandlers(of:_:_:)``); `nil` when none is due.
    @inlinable @inline(__always)
    final func sealTakingFirst(_ newValue: R, by sealer: UInt32) -> Claim? {
        guard lockIfPending(writing: newValue) else { return nil }
        guard let claim = handlers.takeFirst() else {
            unlock(BoxPhase.settled)
            return nil
        }
        unlock(claim.isLast ? BoxPhase.settled : BoxPhase.firing | sealer << BoxPhase.sealerShift)
        return claim
    }

    /// Takes the lock and, when the box is pending, writes `newValue` into it and returns with
    /// the lock held, for the caller to publish the new phase with ``unlock(_:)``.
    ///
    /// - Returns: `false`, with the lock dropped, when the box was sealed already.
    @inlinable @inline(__always)
    final func lockIfPending(writing newValue: R) -> Bool {
        let word = lock()
        guard word == BoxPhase.pending else {
            unlock(word)
            return false
        }
        // Written over the placeholder without destroying it, which would do nothing (see
        // `pendingPlaceholder()`).
        // Safety: `value` is a stored property of this object, so the pointer is its storage,
        // and the lock gives this thread exclusive access to it.
        withUnsafeMutablePointer(to: &value) { $0.initialize(to: newValue) }
        return true
    }

    /// Takes the next due handler of a sealed box; the box settles when it was the last one, or
    /// when there is none left (another thread took them).
    ///
    /// - Returns: the handler and whether it was the last one; `nil` when none is left.
    @inlinable @inline(__always)
    final func claimNext() -> Claim? {
        let word = lock()
        guard let claim = handlers.takeFirst() else {
            unlock(BoxPhase.settled)
            return nil
        }
        unlock(claim.isLast ? BoxPhase.settled : word)
        return claim
    }

    /// Whether a handler is stored (attached, and not yet taken to run or taken back).
    final var hasHandlers: Bool {
        let word = lock()
        let stored = !handlers.isEmpty
        unlock(word)
        return stored
    }

    /// Takes back the handler attached with `target`, unless it has started.
    ///
    /// - Returns: the handler, for the caller to release after the lock; `nil` when it has
    ///   started (or was never attached).
    @inlinable
    final func remove(target: AnyObject) -> Handler? {
        let word = lock()
        let removed = handlers.remove(target: target)
        unlock(word)
        return removed
    }
}

/// The value a pending box holds until it is sealed, never read: a failure whose error
/// reference is null.
///
/// A pending box must hold some value of its generic type, and Pledge has no value of an
/// arbitrary `T` to put there. A failure needs only an error, and this one is the null
/// reference, which costs nothing to make, copy or destroy: `swift_retain` and `swift_release`
/// return at once for null, so freeing an unsealed box needs no special case.
///
/// `Result` is laid out by the runtime's rule for two cases with payloads: the larger payload,
/// then a tag byte, for every `T` (`AbandonedCaptureTests` frees pending boxes of many layouts).
/// So this value is a null reference with the failure tag, and copying or destroying it only
/// ever passes null to the runtime. Sealing (``EmptyBox/lockIfPending(writing:)``) writes the
/// real value over it without destroying it. Reflection never sees it: promises, guarantees and
/// resolvers show their state to `dump` and `Mirror`, not their box.
@inlinable @inline(__always)
func pendingPlaceholder<T>() -> Result<T, Error> {
    // Safety: `any Error` is one reference, here the null one. Only the value-witness copy and
    // destroy of `Result` ever see it (see above), never code that would read the error: a
    // box's value is read only once its phase has left `pending`, after the real value was
    // written over this one.
    .failure(unsafeBitCast(0 as UInt, to: (any Error).self))
}

/// Makes a pending box for a promise or a guarantee.
@inlinable
func pendingBox<T>() -> EmptyBox<Result<T, Error>> {
    EmptyBox(placeholder: pendingPlaceholder())
}
