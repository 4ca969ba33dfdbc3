/// A box that is born settled: `Promise.value`, `Promise(error:)`, `Guarantee.value`.
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
