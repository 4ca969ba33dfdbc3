import Synchronization

/// What a box holds when looked at from outside: nothing yet, or the value it was sealed with.
@usableFromInline
enum Sealant<R> {
    /// Not sealed yet; handlers attached now are stored and run when the box is sealed.
    case pending
    /// Sealed with this value; it will never change.
    case resolved(R)
}

/// What a stored handler is called on besides the sealed value: the object it works for (the
/// box of the next link of a chain, say), or `nil` for a handler that is a plain closure.
///
/// Letting a handler name its object, instead of capturing it, is what lets a chaining
/// operator's own box serve as its handler: a thin function plus that box, with no closure
/// context to allocate.
@usableFromInline
typealias HandlerTarget = AnyObject & Sendable

/// Calls `body` with the target a handler was given, as a `Target`, and hands on the count the
/// handler was given with it: the step `body` returns owns that count when `body` says it took
/// it; otherwise the count is given back once `body` is done. What a handler that resolves its
/// own target box does, so that the step running that box's handlers takes no count of its own
/// (see ``StepCount/handed``).
///
/// The count moves into an `Unmanaged` reference: the compiler pairs the retain that makes it
/// with the release of `target`, so moving it costs nothing.
@inlinable @inline(__always)
func withHandedCount<Target: AnyObject>(
    of target: consuming (any HandlerTarget)?, as _: Target.Type,
    _ body: (Target) -> (step: _PledgeStep?, tookCount: Bool)
) -> _PledgeStep? {
    // Safety: callers pass the target their handler was attached with, never `nil`, and always
    // a `Target`; unwrapping and downcasting without a check borrow it instead of copying it.
    let object = Unmanaged<AnyObject>.passRetained((consume target).unsafelyUnwrapped)
    let (step, tookCount) = object._withUnsafeGuaranteedRef { body(unsafeDowncast($0, to: Target.self)) }
    if !tookCount { object.release() }
    return step
}

/// A handler stored in a box: it receives its target and the sealed value, and may hand back
/// a box that it sealed in turn, whose own handlers are now due.
///
/// The handler is given its target's reference to own (`consuming`): the box moves it out of
/// its handler list rather than copying it, so a handler that needs its target after the call
/// keeps that very count (see ``QueuedChainedBox``), and one that does not lets it go as it
/// returns, where the box would have.
///
/// Returning the next step instead of running it is what keeps resolution iterative: see
/// ``Trampoline``.
@usableFromInline
typealias BoxHandler<R> = @Sendable (consuming (any HandlerTarget)?, R) -> _PledgeStep?

/// The phases of a box, kept in the low bits of its atomic state word.
@usableFromInline
enum BoxPhase {
    /// Not sealed.
    @inlinable static var pending: UInt32 { 0 }
    /// Sealed; the sealing thread is still running the handlers that were attached before.
    @inlinable static var firing: UInt32 { 1 }
    /// Sealed, and every handler attached so far has been started.
    @inlinable static var resolved: UInt32 { 2 }
    /// The bits of the state word that hold the phase.
    @inlinable static var mask: UInt32 { 3 }
    /// Set in the state word while a thread holds an ``EmptyBox``'s lock.
    @inlinable static var lockBit: UInt32 { 4 }
}

/// The abstract storage behind every promise and guarantee.
///
/// A box is either a ``SealedBox`` (born resolved; no lock) or an ``EmptyBox`` (pending, then
/// sealed exactly once). `Box` itself is never instantiated. Both kinds keep their value and
/// their state in the same two fields, declared here, so reading a box never needs to know its
/// kind and never goes through a virtual call: `@inlinable` callers in client modules reach
/// fully specialised code instead of generic implementations behind a vtable.
///
/// - `inspect()` reads the current state;
/// - `inspect(_:_:)` attaches a handler, or runs it at once when the box is already sealed;
/// - `seal(_:)` resolves the box and runs its handlers, iteratively.
///
/// Layout: the value comes first, then the state, then (in an ``EmptyBox``) its handlers. For a
/// `Result` of a word-sized value a pending box is 56 bytes, the 64-byte malloc size class. The
/// state is a 32-bit word, so that it starts on a 4-byte boundary: a `Result`'s tag byte is
/// loaded as part of a 32-bit word, and a state byte inside that word would make every read of
/// a freshly sealed value wait for the store that unlocked the box (a failed store-to-load
/// forward, seen as the hottest instruction of `fire` in a profile).
@usableFromInline
class Box<R: Sendable>: @unchecked Sendable {
    // Safety: `value` is written only while the state is `pending` and its lock bit is held
    // (see `EmptyBox`), or in `init`, before the box is published. The write is published by the
    // release store that ends `pending`; every reader first loads the state with acquire
    // ordering and reads `value` only when the phase is no longer `pending`, so it sees the
    // complete value, which never changes again. The dynamic exclusivity check is off because
    // that protocol already rules out overlapping accesses, and the check costs a runtime call.
    @exclusivity(unchecked)
    @usableFromInline
    final var value: R

    /// The phase (low two bits) and, for an ``EmptyBox``, its lock bit. A ``SealedBox`` is
    /// always `resolved`; only an `EmptyBox` is ever in another phase.
    @usableFromInline
    final let state: Atomic<UInt32>

    @inlinable
    init(value: R, phase: UInt32) {
        self.value = value
        state = Atomic(phase)
    }

    /// The current phase, loaded with acquire ordering: after it leaves `pending`, `value` may
    /// be read.
    @inlinable @inline(__always)
    final var phase: UInt32 {
        state.load(ordering: .acquiring) & BoxPhase.mask
    }

    /// Whether the box is still waiting for its value.
    @inlinable @inline(__always)
    final var isPending: Bool { phase == BoxPhase.pending }

    /// The current state of the box. Lock-free.
    @inlinable
    final func inspect() -> Sealant<R> {
        phase == BoxPhase.pending ? .pending : .resolved(value)
    }

    /// The value, when the box is sealed and every handler attached before has been started (or,
    /// for a queued handler, dispatched or made the tail of the current block, see ``Cascade``),
    /// so that a new handler may run at once without overtaking them; `nil` otherwise (pending,
    /// or still firing). Lock-free.
    @inlinable
    final var settledValue: R? {
        phase == BoxPhase.resolved ? value : nil
    }

    /// Attaches `handler`, to be called with `target` and the value, or, when the box is
    /// already sealed and settled, calls it at once.
    ///
    /// - Returns: the step the handler handed back when it ran now; `nil` when it was stored.
    ///   The caller must run that step (return it to the trampoline, or call
    ///   ``Trampoline/run(_:)``).
    @inlinable
    final func inspect(_ target: consuming (any HandlerTarget)?, _ handler: consuming @escaping BoxHandler<R>)
        -> _PledgeStep?
    {
        if phase == BoxPhase.resolved { return handler(target, value) }
        // Safety: only an `EmptyBox` is ever in a phase other than `resolved` (see `state`).
        return unsafeDowncast(self, to: EmptyBox<R>.self).attach(target, handler)
    }

    /// Calls `body` with the value once the box is sealed and has started every handler attached
    /// before: at once when it already has, otherwise on the thread that seals it. What a
    /// promise's or guarantee's `pipe(to:)` does.
    @inlinable
    final func pipe(_ body: @escaping @Sendable (R) -> Void) {
        Trampoline.run(
            inspect(nil) {
                body($1)
                return nil
            })
    }

    /// Seals the box with `value` and runs every handler attached so far, in the order they were
    /// attached. Sealing a box that is already sealed does nothing.
    ///
    /// Handlers that seal further boxes do not recurse: the whole cascade is run by one loop.
    ///
    /// The step that runs the handlers takes no count on the box: this run starts and ends
    /// inside the call, while the caller keeps the box alive.
    @inlinable
    final func seal(_ value: R) {
        Trampoline.run(resolve(value, stepCount: .borrowed))
    }

    /// Seals the box with `value` without running its handlers.
    ///
    /// - Parameter stepCount: where the count comes from that keeps the box alive for the step
    ///   this makes (see ``StepCount``): by default the step takes its own. A caller that holds a
    ///   count and hands it over passes `.handed`; the step then owns that count, and when there
    ///   is no step the caller still owns it. ``seal(_:)`` passes `.borrowed`.
    /// - Returns: the step that runs the handlers, or `nil` when there are none (or the box was
    ///   already sealed). Used by handlers, which hand the step back to the running trampoline.
    @inlinable
    final func resolve(_ value: R, stepCount: StepCount = .taken) -> _PledgeStep? {
        if phase == BoxPhase.resolved { return nil }
        // Safety: see `inspect(_:_:)`.
        return unsafeDowncast(self, to: EmptyBox<R>.self).resolveEmpty(value, stepCount: stepCount)
    }

    /// A handler that seals the box it is given as target with the value it receives: what a
    /// box attaches to a thenable it follows. A thin function, so attaching it allocates nothing.
    @inlinable
    static func forward(_ target: consuming (any HandlerTarget)?, _ value: R) -> _PledgeStep? {
        // Safety: `forward` is only ever attached with a `Box<R>` of this very type as target,
        // never with `nil`, and only to Pledge's own boxes, which pass it that target back (see
        // `Thenable._forward(into:)`, its only user; a thenable outside Pledge never gets it).
        // The count this handler was given goes to the step that runs the box's handlers, when
        // there is one.
        return withHandedCount(of: target, as: Box<R>.self) { box in
            let step = box.resolve(value, stepCount: .handed)
            return (step, step != nil)
        }
    }
}
