/// One counted (+1) reference to an object, owned by whoever holds this value.
///
/// The ownership token of the engine: whatever keeps a box alive from one step to the next (a
/// handler's target taken out of its box, a step waiting on the trampoline, a block's tail) holds
/// one of these. It is noncopyable, so the compiler checks that each count is used exactly once:
/// handed on by moving the value (free: it is an `Unmanaged` inside), or given back when the
/// value ends, by `deinit`. A count cannot be dropped twice, or forgotten, or used after it was
/// handed on.
///
/// The ways out of the token are ``parked()``, for the one place that stores counts where the
/// type system cannot follow them (``StepStack``'s array), and ``object()``, which turns the
/// count back into an ordinary strong reference (a handler's target stored in a box).
@frozen @usableFromInline
struct Retained<Object: AnyObject>: ~Copyable {
    @usableFromInline
    let unmanaged: Unmanaged<Object>

    /// Takes over the caller's reference to `object`. When the caller does not use `object`
    /// afterwards, the compiler pairs the retain here with the release that ends the caller's
    /// reference, and both go: moving a reference into a token costs nothing.
    @inlinable @inline(__always)
    init(_ object: consuming Object) {
        unmanaged = .passRetained(object)
        #if DEBUG
            LiveObjectLedger.tokenTaken(on: unmanaged.takeUnretainedValue())
        #endif
    }

    /// Adopts a count that was parked with ``parked()``.
    @inlinable @inline(__always)
    init(adopting unmanaged: Unmanaged<Object>) {
        self.unmanaged = unmanaged
    }

    /// Gives the count back.
    @inlinable @inline(__always)
    deinit {
        #if DEBUG
            LiveObjectLedger.tokenGivenBack(on: unmanaged.takeUnretainedValue())
        #endif
        unmanaged.release()
    }

    /// Calls `body` with the object, which the token keeps alive meanwhile: no count is taken.
    @inlinable @inline(__always)
    borrowing func withObject<Result>(_ body: (Object) throws -> Result) rethrows -> Result {
        try unmanaged._withUnsafeGuaranteedRef(body)
    }

    /// ``withObject(_:)`` for a body that hands back a step (noncopyable, which the standard
    /// library's borrowing accessor cannot return).
    @inlinable @inline(__always)
    borrowing func stepWithObject(_ body: (Object) -> Step?) -> Step? {
        var step: Step? = nil
        unmanaged._withUnsafeGuaranteedRef { step = body($0) }
        return step
    }

    /// The count as a bare `Unmanaged`, which now owns it: for storage the compiler cannot
    /// track, from which ``init(adopting:)`` takes it back.
    @inlinable @inline(__always)
    consuming func parked() -> Unmanaged<Object> {
        let unmanaged = self.unmanaged
        discard self
        return unmanaged
    }

    /// The count as an ordinary strong reference.
    @inlinable @inline(__always)
    consuming func object() -> Object {
        let object = parked().takeRetainedValue()
        #if DEBUG
            LiveObjectLedger.tokenGivenBack(on: object)
        #endif
        return object
    }

    /// The same count, typed as `Other`.
    ///
    /// Unchecked: the caller must know the object is an `Other` (a function stored next to the
    /// object, and made for its type, is what knows).
    @inlinable @inline(__always)
    consuming func downcast<Other: AnyObject>(to _: Other.Type) -> Retained<Other> {
        // Safety: the caller guarantees the object's type; the count moves unchanged.
        Retained<Other>(adopting: Unmanaged<Other>.fromOpaque(parked().toOpaque()))
    }

    /// The same count, typed as `AnyObject`.
    @inlinable @inline(__always)
    consuming func erased() -> Retained<AnyObject> {
        Retained<AnyObject>(adopting: Unmanaged<AnyObject>.fromOpaque(parked().toOpaque()))
    }
}
