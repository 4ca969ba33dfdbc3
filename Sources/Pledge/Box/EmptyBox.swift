import Synchronization

/// A box that starts pending, stores handlers, and is sealed exactly once.
///
/// The handler list and the value are guarded by a lock bit in the box's atomic state word
/// (test-and-test-and-set, yielding the processor when it stays busy): every transition
/// happens under the lock and returns what must happen next, and handlers run only after the
/// lock is released. The value is written once, under the lock, before the phase leaves
/// `pending` with a release store, so readers that see a sealed phase read it without locking.
///
/// The lock is ``SpinLock``'s, kept in one bit of the phase word (see ``SpinLock`` for why a
/// spin lock rather than `Mutex` or `pthread_mutex_t`, and for its trade-offs). Sharing the
/// word costs no space: one compare-and-swap takes the lock, and one release store drops it and
/// publishes the new phase at once.
///
/// Sealing moves the box to `firing`, not straight to `resolved`: a handler attached by another
/// thread while the sealer is still running earlier handlers is queued behind them instead of
/// overtaking them, so handlers always start in the order they were attached.
///
/// Field types are chosen so that the unspecialised `deinit` needs no generic metadata lookup:
/// `value` has the bare generic type `R` (whose metadata the class already holds) and
/// `Handlers` has a fixed layout. A pending box therefore holds a placeholder value, never
/// read (see ``pendingPlaceholder()``).
///
/// Not final: ``ChainedBox`` extends it with the operation that resolves it, so that the box of
/// a chaining operator is also the handler it attaches.
@usableFromInline
class EmptyBox<R: Sendable>: Box<R>, @unchecked Sendable {
    // Safety: `handlers` is read and written only while the lock bit is held; the acquire and
    // release orderings of taking and dropping it order every access (and ThreadSanitizer
    // models them). The dynamic exclusivity check is switched off because the lock already
    // guarantees exclusivity and the check costs a runtime call on every access.
    @exclusivity(unchecked)
    @usableFromInline
    final var handlers = Handlers<R>()

    deinit {
        // A box freed unsealed (abandoned) still holds the placeholder, whose destruction
        // releases nothing (see `pendingPlaceholder()`), and its handlers, which own the rest of
        // its chain: those are released iteratively (see `Teardown`). A sealed box has none left.
        if !handlers.isEmpty {
            // Those handlers will never run: let their targets drop what they kept for them.
            handlers.abandonTargets()
            var abandoned = Handlers<R>()
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
    /// - Returns: the phase at the time the lock was taken, which cannot change until
    ///   ``unlock(phase:)``.
    @inlinable
    final func lock() -> UInt32 {
        state.takeLockBit(BoxPhase.lockBit)
    }

    /// Drops the lock bit and publishes `phase`, with release ordering.
    @inlinable
    final func unlock(phase: UInt32) {
        state.store(phase, ordering: .releasing)
    }

    /// Stores a handler, or runs it at once when the box has settled in the meantime.
    @inlinable
    final func attach(_ target: consuming (any HandlerTarget)?, _ handler: consuming @escaping BoxHandler<R>)
        -> _PledgeStep?
    {
        let phase = lock()
        if phase != BoxPhase.resolved {
            handlers.append(target, handler)
            unlock(phase: phase)
            return nil
        }
        unlock(phase: phase)
        return handler(target, value)
    }

    /// Seals the box with `newValue` under its lock.
    ///
    /// - Parameter stepCount: where the count that keeps the box alive for the step this makes
    ///   comes from (see ``StepCount``).
    /// - Returns: the step that runs the box's handlers, or `nil` when there are none (or the box
    ///   was already sealed).
    @inlinable @inline(__always)
    final func resolveEmpty(_ newValue: R, stepCount: StepCount) -> _PledgeStep? {
        guard lockAndSeal(newValue) else { return nil }
        let due = !handlers.isEmpty
        unlock(phase: due ? BoxPhase.firing : BoxPhase.resolved)
        if !due { return nil }
        switch stepCount {
        case .taken: return _PledgeStep(self, fire: EmptyBox.fire)
        case .handed: return _PledgeStep(adopting: Unmanaged.passUnretained(self), fire: EmptyBox.fire)
        case .borrowed: return _PledgeStep(adopting: Unmanaged.passUnretained(self), fire: EmptyBox.fireBorrowed)
        }
    }

    /// Seals the box with `newValue` and, when it has handlers, runs its firing at once, in the
    /// caller, instead of handing back a step that would: for a caller that is itself a step of
    /// the running trampoline (a block's tail) and holds a count on the box. The first batch of
    /// handlers is taken under the lock that seals, which saves a lock round trip and a
    /// trampoline step per link of a chain run as tails.
    ///
    /// The stack does not grow with the chain: the handlers run here hand back the steps of the
    /// boxes they resolve, as in any firing, and only a trampoline step calls this.
    ///
    /// - Returns: the step of the firing's first handler that handed one back (see
    ///   ``runHandlers(of:first:_:)``), and whether the count the caller holds on the box went
    ///   to the run's tail (see ``Cascade/firingBoxKept``). When it did not, the caller still owns
    ///   it.
    @inlinable @inline(__always)
    final func resolveFiring(_ newValue: R, _ cascade: inout Cascade) -> (next: _PledgeStep?, countKept: Bool) {
        guard lockAndSeal(newValue) else { return (nil, false) }
        if handlers.isEmpty {
            unlock(phase: BoxPhase.resolved)
            return (nil, false)
        }
        var first = Handlers<R>()
        swap(&first, &handlers)
        unlock(phase: BoxPhase.firing)
        let next = EmptyBox.runHandlers(of: self, first: first, &cascade)
        return (next, cascade.takeFiringBoxKept())
    }

    /// Takes the lock and, while the box is pending, writes `newValue` into it, returning with
    /// the lock still held: the first half of sealing, which the caller ends with
    /// ``unlock(phase:)`` once it has decided the new phase.
    ///
    /// - Returns: `false`, with the lock dropped, when the box was already sealed.
    @inlinable @inline(__always)
    final func lockAndSeal(_ newValue: R) -> Bool {
        let phase = lock()
        guard phase == BoxPhase.pending else {
            unlock(phase: phase)
            return false
        }
        // Written over the placeholder without destroying it, which would do nothing (see
        // `pendingPlaceholder()`).
        // Safety: `value` is a stored property of this object, so the pointer is its storage, and
        // the lock gives this thread exclusive access to it.
        withUnsafeMutablePointer(to: &value) { $0.initialize(to: newValue) }
        return true
    }

    /// Takes the due handlers, or finishes the transition to `resolved` when none are left.
    @inlinable
    final func takeDue() -> Handlers<R>? {
        let phase = lock()
        if handlers.isEmpty {
            unlock(phase: BoxPhase.resolved)
            return nil
        }
        var due = Handlers<R>()
        swap(&due, &handlers)
        unlock(phase: phase)
        return due
    }

    /// Runs the handlers of a box in the `firing` phase until none are left, then marks it
    /// resolved, and gives back the count its step holds on the box, unless the box's first hop
    /// (from any batch) became the run's tail and still waits as such, which keeps that count
    /// (see ``Cascade/firingBoxKept``). Called only by the trampoline, on the thread that sealed
    /// the box.
    ///
    /// - Returns: the step of the first handler that handed one back. The steps of later
    ///   handlers, from every batch, go on the cascade's stack so that they are popped in
    ///   attachment order after that step's cascade.
    @inlinable
    static func fire(_ object: Unmanaged<AnyObject>, _ cascade: inout Cascade) -> _PledgeStep? {
        // The step holds a count on the box until the firing ends.
        let next = runHandlers(borrowing: object, &cascade)
        if !cascade.takeFiringBoxKept() { object.release() }
        return next
    }

    /// ``fire(_:_:)`` for a step that holds no count on the box: the first step of the run that
    /// ``Box/seal(_:)`` starts, whose caller keeps the box alive until the whole run is over.
    @inlinable
    static func fireBorrowed(_ object: Unmanaged<AnyObject>, _ cascade: inout Cascade) -> _PledgeStep? {
        // `seal`, the only maker of such steps, holds the box until the run ends.
        let next = runHandlers(borrowing: object, &cascade)
        // There is no count to hand to a tail: a run that `seal` starts has no queue, so none of
        // this firing's hops may become one (see `Cascade.mayHopInline(to:)`).
        assert(!cascade.firingBoxKept, "a borrowed firing has no count to hand to a tail")
        return next
    }

    /// The body of ``fire(_:_:)`` and ``fireBorrowed(_:_:)``: runs every batch of due handlers
    /// of the box `object` is, which the caller keeps alive.
    @inlinable @inline(__always)
    static func runHandlers(borrowing object: Unmanaged<AnyObject>, _ cascade: inout Cascade) -> _PledgeStep? {
        // Safety: only `resolveEmpty` makes steps for `fire` and `fireBorrowed`, always with an
        // `EmptyBox<R>` of exactly this type (or a subclass).
        object._withUnsafeGuaranteedRef { runHandlers(of: unsafeDowncast($0, to: EmptyBox<R>.self), &cascade) }
    }

    /// ``runHandlers(borrowing:_:)`` once the box is borrowed.
    @inlinable @inline(__always)
    static func runHandlers(of box: EmptyBox<R>, _ cascade: inout Cascade) -> _PledgeStep? {
        var next: _PledgeStep? = nil
        // The steps of later handlers are pushed straight onto the cascade's stack, above what
        // it held before this firing (nothing else touches the stack while a box fires), and
        // turned around at the end, so that they are popped in attachment order once `next`'s
        // cascade has finished. A separate array for them cost a call on the shared empty
        // array's storage in every firing, even with none.
        let base = cascade.stack.count
        cascade.startFiring()
        while var handlers = box.takeDue() {
            handlers.run(box.value, next: &next, &cascade)
        }
        if cascade.stack.count - base > 1 { cascade.stack[base...].reverse() }
        return next
    }

    /// ``runHandlers(of:_:)`` when the caller has taken the first batch of handlers already,
    /// under the lock that sealed the box (see ``resolveFiring(_:_:)``). A loop of its own,
    /// rather than an optional first batch in the one above: that cost the usual firing 65
    /// instructions per W2 iteration, or this path 35 per W3 step.
    @inlinable @inline(__always)
    static func runHandlers(of box: EmptyBox<R>, first: consuming Handlers<R>, _ cascade: inout Cascade)
        -> _PledgeStep?
    {
        var next: _PledgeStep? = nil
        // The stack's segment is turned around as in `runHandlers(of:_:)`.
        let base = cascade.stack.count
        cascade.startFiring()
        var batch: Handlers<R>? = first
        while var handlers = batch.take() {
            handlers.run(box.value, next: &next, &cascade)
            batch = box.takeDue()
        }
        if cascade.stack.count - base > 1 { cascade.stack[base...].reverse() }
        return next
    }
}

/// Where the count comes from that keeps a box alive while the step that runs its handlers
/// waits and runs (see ``_PledgeStep``).
@usableFromInline
enum StepCount {
    /// The step takes a count of its own: the general case, for a step that may be handed back
    /// to a trampoline and run after its maker has returned.
    case taken
    /// The caller holds a count on the box and hands it to the step (see
    /// ``Box/resolve(_:stepCount:)``): a retain and a release fewer.
    case handed
    /// The step holds no count: it is the first step of a run the caller starts at once, and
    /// the caller keeps the box alive until that run is over (see ``Box/seal(_:)``).
    case borrowed
}

/// The value a pending box holds until it is sealed, never read: a failure whose error
/// reference is null.
///
/// A pending box must hold some value of its generic type, and Pledge has no value of an
/// arbitrary `T` to put there. A failure needs only an error, and this one is the null
/// reference, which costs nothing to make, copy or destroy:
/// - making it loads no global and allocates nothing (a shared placeholder object was a global
///   behind a lazy-initialisation check, and 25 instructions per pending box);
/// - copying and destroying it pass the null reference to `swift_retain` and `swift_release`,
///   which return at once for null, so freeing an unsealed box needs no special case, and
///   pending boxes share no reference count that threads would fight over.
///
/// `Result` is a generic enum, laid out by the runtime's rule for two cases with payloads: the
/// larger payload, then a tag byte, for every `T` (checked for `Void`, `Never`, `Int`, classes,
/// optionals, tuples, `String`, enums holding references and `any Error`). So this value is a
/// null reference with the failure tag, and copying or destroying it only ever passes null to
/// the runtime. (Were a layout ever to pack the cases into the reference's unused values
/// instead, the zero bits would read as a case holding nothing, which destroying also leaves
/// alone.) ``EmptyBox/resolveEmpty(_:stepCount:)`` writes the real value over it without
/// destroying it. `AbandonedCaptureTests` frees pending boxes of many layouts. Reflection never
/// sees it: promises, guarantees and resolvers show their state to `dump` and `Mirror`, not
/// their box.
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
