/// A box that is born resolved: `Promise.value`, `Promise(error:)`, `Guarantee.value`.
///
/// Its value never changes after initialisation, so it needs no lock.
@usableFromInline
final class SealedBox<R: Sendable>: Box<R>, @unchecked Sendable {
    // Safety: `value` is an immutable `let` of a `Sendable` type, written once in `init` before
    // the box is published.
    @usableFromInline
    let value: R

    @inlinable
    init(_ value: R) {
        self.value = value
        super.init(phase: BoxPhase.resolved, isSealedBox: true)
    }
}
