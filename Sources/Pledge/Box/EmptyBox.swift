/// A box that starts pending, stores handlers, and is sealed exactly once.
///
/// All state lives in one small enum guarded by a ``SpinLock``. Every transition happens under
/// the lock and returns what must happen next; handlers run only after the lock is released.
///
/// Sealing moves the box to `firing`, not straight to `resolved`: a handler attached by another
/// thread while the sealer is still running earlier handlers is queued behind them instead of
/// overtaking them, so handlers always start in the order they were attached.
@usableFromInline
final class EmptyBox<R: Sendable>: Box<R>, @unchecked Sendable {
    @usableFromInline
    enum State {
        case pending(Handlers<R>)
        /// Sealed; the handlers here are due and will be run by the sealing thread.
        case firing(R, Handlers<R>)
        case resolved(R)
    }

    // Safety: `state` is read and written only inside `withLock`, which holds `lock` for the
    // whole access; the lock's acquire/release atomics order every access (and ThreadSanitizer
    // models them). Exclusivity is therefore guaranteed by the lock, and the dynamic check is
    // switched off because it costs a runtime call on every access in the hot path.
    @exclusivity(unchecked)
    @usableFromInline
    var state: State

    @usableFromInline
    let lock = SpinLock()

    @inlinable
    init() {
        state = .pending(Handlers())
        super.init(isSealedBox: false)
    }

    /// Runs `body` with exclusive access to the state. `body` is library code that never calls
    /// out to user code.
    @inlinable
    func withLock<Value>(_ body: (inout State) -> Value) -> Value {
        lock.lock()
        defer { lock.unlock() }
        return body(&state)
    }

    @inlinable
    func inspectState() -> Sealant<R> {
        withLock { state in
            switch state {
            case .pending: return .pending
            case .firing(let value, _), .resolved(let value): return .resolved(value)
            }
        }
    }

    @inlinable
    func attach(_ handler: @escaping BoxHandler<R>) -> _PledgeStep? {
        let ready: R? = withLock { state in
            switch state {
            case .pending(var handlers):
                state = .pending(Handlers())  // drop the second reference so `append` does not copy
                handlers.append(handler)
                state = .pending(handlers)
                return nil
            case .firing(let value, var handlers):
                state = .resolved(value)  // placeholder, as above
                handlers.append(handler)
                state = .firing(value, handlers)
                return nil
            case .resolved(let value):
                return value
            }
        }
        guard let ready else { return nil }
        return handler(ready)
    }

    @inlinable
    func resolveEmpty(_ value: R) -> _PledgeStep? {
        let due: Bool = withLock { state in
            guard case .pending(let handlers) = state else { return false }
            if handlers.isEmpty {
                state = .resolved(value)
                return false
            }
            state = .firing(value, handlers)
            return true
        }
        return due ? _PledgeStep(self, fire: { EmptyBox.fire($0, &$1) }) : nil
    }

    /// Takes the due handlers, or finishes the transition to `resolved` when none are left.
    @inlinable
    func takeDue() -> (R, Handlers<R>)? {
        withLock { state in
            guard case .firing(let value, let handlers) = state else { return nil }
            if handlers.isEmpty {
                state = .resolved(value)
                return nil
            }
            state = .firing(value, Handlers())
            return (value, handlers)
        }
    }

    /// Runs the handlers of a box in the `firing` state until none are left, then marks it
    /// resolved. Called only by the trampoline, on the thread that sealed the box.
    @inlinable
    static func fire(_ object: AnyObject, _ stack: inout [_PledgeStep]) -> _PledgeStep? {
        // Safety: only `resolveEmpty` creates steps for this function, always with an
        // `EmptyBox<R>` of exactly this type.
        let box = unsafeDowncast(object, to: EmptyBox<R>.self)
        var next: _PledgeStep? = nil
        while let (value, handlers) = box.takeDue() {
            guard let step = handlers.run(value, &stack) else { continue }
            if next == nil {
                next = step
            } else {
                stack.append(step)
            }
        }
        return next
    }
}
