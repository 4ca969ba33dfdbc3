/// A dependent's reference to the promise it waits on (its *upstream*: an operator's input, the
/// promise a `then` result follows, an input of a fan-in), kept so that cancelling the dependent
/// can cancel the upstream when nothing else depends on it.
///
/// Strong while something can still resolve the upstream: the upstream's handler holds the
/// dependent too, a cycle that lasts only until the upstream resolves, the dependent is cancelled,
/// or nothing can resolve the upstream any more but a cancellation. In that last case the
/// upstream is *orphaned* (its resolver was released unresolved, the box it waited on was freed,
/// …: see ``EmptyBox/orphan()``) and tells its dependents, whose references become weak, so that a
/// chain nobody can resolve is freed as soon as nobody holds it, while one somebody holds can
/// still be cancelled through it.
///
/// Both cases are one class reference, so that moving the state that holds it is a plain copy:
/// a weak reference lives in a ``WeakUpstream`` of its own, made only when the upstream is
/// orphaned. (A weak reference gives its target a side table and makes every count on it slower,
/// which is why the common case keeps a strong one.)
@usableFromInline
enum Upstream: Sendable {
    case strong(AnyBox)
    case orphaned(WeakUpstream)

    /// The upstream, while it lives.
    @usableFromInline
    var box: AnyBox? {
        switch self {
        case .strong(let box): box
        case .orphaned(let weak): weak.box
        }
    }
}

/// The weak reference to an orphaned upstream (see ``Upstream``).
@usableFromInline
final class WeakUpstream: Sendable {
    weak let box: AnyBox?

    init(_ box: AnyBox) {
        self.box = box
    }
}

extension Optional where Wrapped == Upstream {
    /// Makes a strong reference to `upstream` weak (see ``Upstream``); returns the strong
    /// reference, for the caller to release after its lock, since it may be the last one.
    @usableFromInline
    mutating func weaken(_ upstream: AnyBox) -> AnyBox? {
        guard case .strong(let box)? = self, box === upstream else { return nil }
        self = .orphaned(WeakUpstream(box))
        return box
    }
}
