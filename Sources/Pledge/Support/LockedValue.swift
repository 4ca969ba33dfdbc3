/// A value and the lock that guards it, reachable only through ``withLock(_:)``.
///
/// Used for state that is shared across threads but read rarely enough that a lock per access
/// is the simplest correct answer (``PMKConfiguration``, the state of `Promise.async()`).
/// `body` must not release a value whose `deinit` might be user code: take such values out
/// and let them go after the lock.
@usableFromInline
final class LockedValue<Value>: @unchecked Sendable {
    // Safety: `value` is only touched inside `withLock`, which holds `lock` for the whole access.
    // `Value` may be non-Sendable only where the owner documents how it is handed over.
    @exclusivity(unchecked)
    @usableFromInline
    var value: Value

    @usableFromInline
    let lock = SpinLock()

    @inlinable
    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value. `body` must not call user code.
    @inlinable
    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
