import Synchronization

/// What a box holds when looked at from outside: nothing yet, or the value it was sealed with.
@usableFromInline
enum Sealant<R> {
    /// Not sealed yet; handlers attached now are stored and run when the box is sealed.
    case pending
    /// Sealed with this value; it will never change.
    case resolved(R)
}

/// A handler stored in a box: it receives the sealed value and may hand back a box that it
/// sealed in turn, whose own handlers are now due.
///
/// Returning the next step instead of running it is what keeps resolution iterative: see
/// ``Trampoline``.
@usableFromInline
typealias BoxHandler<R> = @Sendable (R) -> _PledgeStep?

/// The phase of a box, readable without a lock: the non-generic part of every box.
///
/// Generic classes pay a runtime metadata lookup whenever unspecialised code (a `deinit`, for
/// instance) touches a field whose type depends on the generic parameter. Keeping the phase
/// here, in a non-generic root class, lets that code ask "still pending?" for free.
@usableFromInline
class BoxPhase: @unchecked Sendable {
    /// Not sealed.
    @usableFromInline static let pending: UInt8 = 0
    /// Sealed; the sealing thread is still running the handlers that were attached before.
    @usableFromInline static let firing: UInt8 = 1
    /// Sealed, and every handler attached so far has been started.
    @usableFromInline static let resolved: UInt8 = 2

    // Safety: `phase` is an atomic. Every store that leaves `pending` is a release store made
    // after the box's value was written, and every reader that sees a phase other than
    // `pending` loads it with acquire ordering before reading the value, so the value is always
    // visible, complete, and never written again.
    @usableFromInline
    final let phase: Atomic<UInt8>

    /// Whether this is a ``SealedBox``; immutable.
    @usableFromInline
    final let isSealedBox: Bool

    @inlinable
    init(phase: UInt8, isSealedBox: Bool) {
        self.phase = Atomic(phase)
        self.isSealedBox = isSealedBox
    }

    /// Whether the box is still waiting for its value.
    @inlinable
    final var isPending: Bool {
        phase.load(ordering: .acquiring) == BoxPhase.pending
    }
}

/// The abstract storage behind every promise and guarantee.
///
/// A box is either a ``SealedBox`` (born resolved; no lock) or an ``EmptyBox`` (pending, then
/// sealed exactly once). The hierarchy is closed: `Box` is never instantiated directly, and its
/// operations dispatch on a stored tag instead of through the vtable, so that `@inlinable`
/// callers in client modules reach fully specialised code instead of the generic
/// implementation behind a virtual call.
///
/// - `inspect()` reads the current state;
/// - `inspect(_:)` attaches a handler, or runs it at once when the box is already sealed;
/// - `seal(_:)` resolves the box and runs its handlers, iteratively.
@usableFromInline
class Box<R: Sendable>: BoxPhase, @unchecked Sendable {
    // Safety: `Box` adds no state to `BoxPhase`; see there and the subclasses.

    /// The current state of the box. Lock-free.
    @inlinable
    final func inspect() -> Sealant<R> {
        if isSealedBox {
            // Safety: `isSealedBox` is true only for instances created by `SealedBox.init`.
            return .resolved(unsafeDowncast(self, to: SealedBox<R>.self).value)
        }
        guard !isPending else { return .pending }
        // Safety: the hierarchy is closed; a box that is not a `SealedBox` is an `EmptyBox`.
        // Its value was published by the release store that ended `pending` (see `BoxPhase`).
        return .resolved(unsafeDowncast(self, to: EmptyBox<R>.self).value)
    }

    /// The value, when the box is sealed and every handler attached before has been started, so
    /// that a new handler may run at once without overtaking them; `nil` otherwise (pending, or
    /// still firing). Lock-free.
    @inlinable
    final var settledValue: R? {
        if isSealedBox {
            // Safety: see `inspect()`.
            return unsafeDowncast(self, to: SealedBox<R>.self).value
        }
        guard phase.load(ordering: .acquiring) == BoxPhase.resolved else { return nil }
        // Safety: see `inspect()`.
        return unsafeDowncast(self, to: EmptyBox<R>.self).value
    }

    /// Attaches `handler`, or, when the box is already sealed, runs it at once.
    ///
    /// - Returns: the step the handler handed back when it ran now; `nil` when it was stored.
    ///   The caller must run that step (return it to the trampoline, or call
    ///   ``Trampoline/run(_:)``).
    @inlinable
    final func inspect(_ handler: @escaping BoxHandler<R>) -> _PledgeStep? {
        if isSealedBox {
            // Safety: see `inspect()`.
            return handler(unsafeDowncast(self, to: SealedBox<R>.self).value)
        }
        // Safety: see `inspect()`.
        return unsafeDowncast(self, to: EmptyBox<R>.self).attach(handler)
    }

    /// Seals the box with `value` and runs every handler attached so far, in the order they were
    /// attached. Sealing a box that is already sealed does nothing.
    ///
    /// Handlers that seal further boxes do not recurse: the whole cascade is run by one loop.
    @inlinable
    final func seal(_ value: R) {
        Trampoline.run(resolve(value))
    }

    /// Seals the box with `value` without running its handlers.
    ///
    /// - Returns: the step that runs the handlers, or `nil` when there are none (or the box was
    ///   already sealed). Used by handlers, which hand the step back to the running trampoline.
    @inlinable
    final func resolve(_ value: R) -> _PledgeStep? {
        if isSealedBox { return nil }
        // Safety: see `inspect()`.
        return unsafeDowncast(self, to: EmptyBox<R>.self).resolveEmpty(value)
    }
}
