/// A box that is born settled with a value: `Promise.value`, `Guarantee.value`, an operator on a
/// settled input. One born rejected is an ``EmptyBox`` instead (see ``bornSealed(_:)``), so that
/// its error is reported if no handler ever sees it.
///
/// Its value never changes after initialisation and its phase is `settled` from the start, so it
/// needs no lock and no handler storage: handlers attached to it run at once.
@usableFromInline
final class SealedBox<R: Sendable>: Box<R>, @unchecked Sendable {
    // Safety: adds no state; `value` is written once, in `init`, before the box is published.

    @inlinable
    init(_ value: R) {
        super.init(value: value, phase: BoxPhase.settled)
    }
}

/// A box born sealed with `value`: a ``SealedBox`` for a value; for a failure, an ``EmptyBox``
/// born ``BoxPhase/unobserved``, which reports its error if freed before a handler saw it.
@inlinable @inline(__always)
func bornSealed<R>(_ value: R) -> Box<R> {
    Box.restingPhase(for: value) == BoxPhase.settled ? SealedBox(value) : EmptyBox(unobserved: value)
}
