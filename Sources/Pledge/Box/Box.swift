import Synchronization

/// What a box holds when looked at from outside: nothing yet, or the value it was sealed with.
@usableFromInline
enum Sealant<R> {
    /// Not sealed yet; handlers attached now are stored and run when the box is sealed.
    case pending
    /// Sealed with this value; it will never change.
    case resolved(R)
}

/// The object a stored handler works for (the box of the next link of a chain, say), or `nil`
/// for a handler that is a plain closure.
///
/// Letting a handler name its object, instead of capturing it, is what lets a chaining
/// operator's own box serve as its handler: a thin function plus that box, with no closure
/// context to allocate.
@usableFromInline
typealias HandlerTarget = AnyObject & Sendable

/// A handler stored in a box. It is called once the box is sealed, with the count on its target
/// that the box kept for it (moved out, not copied), the box itself, whose value it reads (see
/// ``Box/attached(_:)``), and the current run. It hands back the step that fires a box it sealed
/// in turn, if any: it never runs that box's handlers itself, which keeps resolution iterative
/// (see ``Trampoline``).
///
/// Not generic: a function type that mentions a generic parameter is stored at one level of
/// abstraction and called at another in specialised code, which makes a thunk, and an
/// allocation, on every call.
@usableFromInline
typealias HandlerFunction = @Sendable (consuming (any HandlerTarget)?, AnyObject, inout Run) -> Step?

/// The phases of a box, kept in the low bits of its atomic state word (see ``StateWord``).
@usableFromInline
enum BoxPhase {
    /// Not sealed.
    @inlinable static var pending: UInt32 { 0 }
    /// Sealed, with handlers that have not returned yet: some still stored, or some running.
    @inlinable static var firing: UInt32 { 1 }
    /// Sealed, and every handler attached so far has returned: a new one may run at once.
    @inlinable static var settled: UInt32 { 2 }
    /// Settled as a failure that no handler has received yet: what a box rejected with no
    /// handler waiting starts in. The first handler, or the first read of its state, makes it
    /// ``settled`` (see ``Box/observe()``); a box freed in this phase reports its error as
    /// unhandled (see ``LogEvent/unhandledRejection(_:site:)``). Everything that runs a handler
    /// at once on a `settled` box takes its slower path here, which is what catches the first.
    @inlinable static var unobserved: UInt32 { 3 }
    /// The bits of the state word that hold the phase.
    @inlinable static var mask: UInt32 { 3 }
    /// Set in the state word while a thread holds an ``EmptyBox``'s lock.
    @inlinable static var lockBit: UInt32 { 4 }
    /// Set in a ``LazyBox``'s state word from its `init` until the first attachment (which then
    /// starts its body) or its cancellation, whichever comes first: both clear it under the lock,
    /// so exactly one thread sees it go. Nothing else seals a lazy box before its body starts,
    /// so no sealed word has it, and the words built from scratch after sealing need not keep it.
    @inlinable static var notStarted: UInt32 { 1 << 31 }
}

/// The abstract storage behind every promise and guarantee.
///
/// A box is either a ``SealedBox`` (born settled; no lock) or an ``EmptyBox`` (pending, then
/// sealed exactly once). `Box` itself is never instantiated. Both kinds keep their value and
/// their state in the same two fields, declared here, so reading a box never needs to know its
/// kind and never goes through a virtual call.
///
/// Layout: the value comes first, then the state, then (in an ``EmptyBox``) its handlers. For a
/// `Result` of a word-sized value a pending box is 56 bytes, the 64-byte malloc size class. The
/// state is a 32-bit word, so that it starts on a 4-byte boundary: a `Result`'s tag byte is then
/// loaded as part of a 32-bit word that does not overlap the state, and reading a freshly sealed
/// value does not stall on the store that unlocked the box.
/// The root of every box, whatever its value type, and of the fan-in that `when` attaches to
/// its inputs: what the cancelling path and a dying box's `deinit` call on a handler's target
/// they know only as an object. No stored properties, so a ``Box``'s own
/// fields start right after the object header. Every method does nothing here; ``EmptyBox``
/// overrides them.
@usableFromInline
class AnyBox: @unchecked Sendable {
    // Safety: no state of its own.

    @usableFromInline
    init() {}

    /// Cancels the box as `reason` allows and runs its handlers; hands back the box it
    /// depended on when that one may be cancelled in turn (see ``Cancellation``).
    @usableFromInline
    func cancelStep(_ reason: CancelReason) -> AnyBox? { nil }

    /// The box this one depends on, with a count, while this one is pending and that one lives.
    @usableFromInline
    func takeUpstream() -> AnyBox? { nil }

    /// Whether the box is sealed with a cancellation.
    @usableFromInline
    var endedCancelled: Bool { false }

    /// The box `source` (which this object was attached to, as a handler's target) is being
    /// freed unresolved, and will never call that handler: let go of what was kept for it. Called
    /// from `source`'s `deinit`, so nothing released here may release `source` again.
    @usableFromInline
    func abandon(from source: ObjectIdentifier) {}

    /// The box this one was attached to took its handler back because this box was cancelled:
    /// let go of what was kept for that handler, now. Unlike ``abandon(from:)``, not called from a
    /// `deinit`, so what is released here may release more.
    @usableFromInline
    func withdrawn() {}
}

@usableFromInline
class Box<R: Sendable>: AnyBox, @unchecked Sendable {
    // Safety: `value` is written only while the state is `pending` and its lock bit is held
    // (see `EmptyBox`), or in `init`, before the box is published. The write is published by the
    // release store that ends `pending`; every reader first loads the state with acquire
    // ordering and reads `value` only when the phase is no longer `pending`, so it sees the
    // complete value, which never changes again. The dynamic exclusivity check is off because
    // that protocol already rules out overlapping accesses.
    @exclusivity(unchecked)
    @usableFromInline
    final var value: R

    /// The phase (low two bits) and, for an ``EmptyBox``, its lock bit. A ``SealedBox`` is
    /// always `settled`; only an `EmptyBox` is ever in another phase.
    @usableFromInline
    final let state: Atomic<UInt32>

    #if DEBUG
        /// The ledger this box is counted in (see ``LiveObjectLedger``); debug builds only.
        @usableFromInline
        final let ledger: LiveObjectLedger?

        /// Where the promise or guarantee this box backs was made, or the first one of its
        /// chain; debug builds only (see ``CreationSite``). Written before the box is
        /// published, never after.
        @usableFromInline
        final var site: CreationSite?
    #endif

    @inlinable
    init(value: R, phase: UInt32) {
        self.value = value
        state = Atomic(phase)
        #if DEBUG
            ledger = LiveObjectLedger.enrolBox()
            site = nil
        #endif
        super.init()
    }

    #if DEBUG
        deinit {
            ledger?.boxFreed()
        }
    #endif

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

    /// ``inspect()`` for a user reading the state of a promise: a failure read this way counts
    /// as seen, as one a handler receives does.
    @inlinable
    final func inspectObserving() -> Sealant<R> {
        let current = phase
        if current == BoxPhase.pending { return .pending }
        if current == BoxPhase.unobserved { observe() }
        return .resolved(value)
    }

    /// The phase a box sealed with `value` rests in once no handler is due: ``BoxPhase/unobserved``
    /// for a failure, ``BoxPhase/settled`` otherwise. Specialised code decides this from the
    /// `Result`'s case alone.
    @inlinable @inline(__always)
    static func restingPhase(for value: R) -> UInt32 {
        (value as? any CancellableOutcome)?.isFailure == true ? BoxPhase.unobserved : BoxPhase.settled
    }

    /// Marks an ``BoxPhase/unobserved`` box ``BoxPhase/settled``: its error has been seen. Kept out
    /// of line: rare.
    @usableFromInline @inline(never)
    final func observe() {
        // Safety: only an `EmptyBox` is ever in a phase other than `settled` (see `state`).
        let box = unsafeDowncast(self, to: EmptyBox<R>.self)
        var word = box.lock()
        word.markSeen()
        box.unlock(word)
    }

    /// Reports the box's error as unhandled, unless it is a cancellation: called by the `deinit`
    /// of a box freed ``BoxPhase/unobserved``. Not specialised, and rare.
    @usableFromInline
    final func reportUnhandledRejection() {
        guard let outcome = value as? any CancellableOutcome, let error = outcome.failure, !error.isCancelled else {
            return
        }
        conf.log(.unhandledRejection(error, site: creationSite))
    }

    /// Where the promise this box backs was made (see ``site``); always `nil` in release builds.
    @inlinable
    final var creationSite: CreationSite? {
        #if DEBUG
            return site
        #else
            return nil
        #endif
    }

    /// The box a handler was called with (see ``HandlerFunction``): the one it was attached to,
    /// whose value type the handler knows.
    @inlinable @inline(__always)
    static func attached(_ box: AnyObject) -> Box<R> {
        // Safety: a box calls its handlers with itself, and a handler is attached only to boxes
        // of the value type it was made for.
        unsafeDowncast(box, to: Box<R>.self)
    }

    /// The value, when the box is settled, so that a handler attached now may run at once
    /// without overtaking earlier ones; `nil` while pending or firing. Lock-free.
    @inlinable
    final var settledValue: R? {
        phase == BoxPhase.settled ? value : nil
    }
}

#if DEBUG
    extension Box: LedgerCounted {}
#endif
