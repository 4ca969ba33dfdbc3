import Synchronization

/// A box that starts pending, stores handlers, and is sealed exactly once.
///
/// The handler list is guarded by a ``SpinLock``; every transition happens under the lock and
/// returns what must happen next, and handlers run only after the lock is released. The value
/// is written once, under the lock, before the phase leaves `pending` with a release store, so
/// readers that see a sealed phase read it without locking.
///
/// Sealing moves the box to `firing`, not straight to `resolved`: a handler attached by another
/// thread while the sealer is still running earlier handlers is queued behind them instead of
/// overtaking them, so handlers always start in the order they were attached.
///
/// Field types are chosen so that the unspecialised `deinit` needs no generic metadata lookup:
/// `value` has the bare generic type `R` (whose metadata the class already holds) and
/// `Handlers` has a fixed layout. A pending box therefore holds a placeholder value, never
/// read (see ``pendingBox()``).
@usableFromInline
final class EmptyBox<R: Sendable>: Box<R>, @unchecked Sendable {
    @usableFromInline
    let lock = SpinLock()

    // Safety: `handlers` is read and written only while `lock` is held; the lock's
    // acquire/release atomics order every access (and ThreadSanitizer models them). The dynamic
    // exclusivity check is switched off because the lock already guarantees exclusivity and the
    // check costs a runtime call on every access.
    @exclusivity(unchecked)
    @usableFromInline
    var handlers = Handlers<R>()

    // Safety: written once, under `lock`, while the phase is `pending`; the release store that
    // ends `pending` publishes it, and it is read only after an acquire load sees a sealed
    // phase. The placeholder it holds before that is never read.
    @exclusivity(unchecked)
    @usableFromInline
    var value: R

    deinit {
        // An abandoned box still owns its handlers, and through them the rest of its chain:
        // release those iteratively (see `Teardown`). A sealed box has none left.
        if !handlers.isEmpty {
            var abandoned = Handlers<R>()
            swap(&abandoned, &handlers)
            // Moved, not copied: no reference may stay behind in this frame, or releasing it
            // here would recurse after all.
            Teardown.park(consume abandoned)
        }
    }

    /// Makes a pending box; `placeholder` fills the value slot until the box is sealed and is
    /// never read.
    @inlinable
    init(placeholder: R) {
        value = placeholder
        super.init(phase: BoxPhase.pending, isSealedBox: false)
    }

    @inlinable
    func attach(_ handler: @escaping BoxHandler<R>) -> _PledgeStep? {
        if phase.load(ordering: .acquiring) != BoxPhase.resolved {
            lock.lock()
            if phase.load(ordering: .relaxed) != BoxPhase.resolved {
                handlers.append(handler)
                lock.unlock()
                return nil
            }
            lock.unlock()
        }
        return handler(value)
    }

    @inlinable
    func resolveEmpty(_ newValue: R) -> _PledgeStep? {
        lock.lock()
        guard phase.load(ordering: .relaxed) == BoxPhase.pending else {
            lock.unlock()
            return nil
        }
        value = newValue
        let due = !handlers.isEmpty
        phase.store(due ? BoxPhase.firing : BoxPhase.resolved, ordering: .releasing)
        lock.unlock()
        return due ? _PledgeStep(self, fire: { EmptyBox.fire($0, &$1) }) : nil
    }

    /// Takes the due handlers, or finishes the transition to `resolved` when none are left.
    @inlinable
    func takeDue() -> Handlers<R>? {
        lock.lock()
        defer { lock.unlock() }
        if handlers.isEmpty {
            phase.store(BoxPhase.resolved, ordering: .releasing)
            return nil
        }
        var due = Handlers<R>()
        swap(&due, &handlers)
        return due
    }

    /// Runs the handlers of a box in the `firing` phase until none are left, then marks it
    /// resolved. Called only by the trampoline, on the thread that sealed the box.
    @inlinable
    static func fire(_ object: AnyObject, _ stack: inout [_PledgeStep]) -> _PledgeStep? {
        // Safety: only `resolveEmpty` creates steps for this function, always with an
        // `EmptyBox<R>` of exactly this type.
        let box = unsafeDowncast(object, to: EmptyBox<R>.self)
        var next: _PledgeStep? = nil
        while let handlers = box.takeDue() {
            guard let step = handlers.run(box.value, &stack) else { continue }
            if next == nil {
                next = step
            } else {
                stack.append(step)
            }
        }
        return next
    }
}

/// Fills the value slot of pending `Result` boxes; never read. A class instance, made once, so
/// that making a pending box allocates nothing for it.
@usableFromInline
let pendingPlaceholder: any Error = PendingPlaceholder()

@usableFromInline
final class PendingPlaceholder: Error, Sendable {}

/// Makes a pending box for a promise or a guarantee.
@inlinable
func pendingBox<T>() -> EmptyBox<Result<T, Error>> {
    EmptyBox(placeholder: .failure(pendingPlaceholder))
}
