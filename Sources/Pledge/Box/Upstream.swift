/// A dependent's reference to the promise it waits on (its *upstream*: an operator's input, the
/// promise a `then` result follows, an input of a fan-in), kept so that cancelling the dependent
/// can cancel the upstream when nothing else depends on it.
///
/// Strong while something can still resolve the upstream: the upstream's handler holds the
/// dependent too, a cycle that lasts only until the upstream resolves, the dependent is cancelled,
/// or the upstream is *orphaned*, resolvable only by a cancellation (see ``EmptyBox/orphan()``).
/// Then it tells its dependents, whose references become weak, so that a chain nobody can resolve
/// is freed once nobody holds it, while one somebody holds can still be cancelled through it.
///
/// Either case is one class reference, so that moving the state that holds it is a plain copy.
/// The weak one lives in a ``WeakUpstream``, made only on orphaning: a weak reference gives its
/// target a side table, which makes every count on it slower.
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

    init(_ box: AnyBox) { self.box = box }
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

extension EmptyBox {
    /// This box's producer is gone (its resolver, the box it waits on, …): only a cancellation can
    /// resolve it now. Its dependents are told, so that their references to it become weak (see
    /// ``Upstream``).
    @usableFromInline
    final func orphan() {
        guard isPending else { return }  // Sealed (say, a cancelled dependent): nothing to do.
        let dependents = core.withLock { $0.orphan() }
        for handler in dependents { handler.orphaned(self) }
    }

    /// Keeps only a weak reference to `upstream`, which nothing can resolve any more but a
    /// cancellation, if this box still depends on it (see ``Upstream``).
    @usableFromInline
    final func weaken(_ upstream: AnyBox) {
        let strong = core.withLock { $0.upstream.weaken(upstream) }
        // After the lock, from a loop: it may be the last reference to `upstream`.
        if let strong { ThreadRun.release(strong) }
    }
}

extension AnyBox.Core {
    /// Marks a pending box orphaned (see ``Upstream``) and hands back its handlers, to be told.
    mutating func orphan() -> [Handler] {
        switch exchange(&state, with: .settled) {
        case .pending(let waiting):
            let handlers: [Handler] =
                switch waiting {
                case .none: []
                case .one(let handler): [handler]
                case .many(let list): list.handlers
                }
            state = .orphaned(waiting)
            return handlers
        case let other:
            state = other
            return []
        }
    }
}
