/// A ``Lock`` behind a reference, for state that several objects share or that is read rarely
/// enough that a lock per access is the simplest correct answer (``PMKConfiguration``, the
/// state of `Promise.async()`, the actors' queues of bodies).
///
/// `body` must not release a value whose `deinit` might be user code: take such values out and
/// let them go after the lock.
///
/// `package`: PledgeTesting keeps its state in one too.
@usableFromInline
package final class LockedValue<Value>: Sendable {
    @usableFromInline
    let lock: Lock<Value>

    @inlinable
    package init(_ value: consuming sending Value) {
        lock = Lock(value)
    }

    /// Runs `body` with exclusive access to the value. `body` must not call user code.
    @inlinable
    package func withLock<Result>(_ body: (inout sending Value) -> sending Result) -> sending Result {
        lock.withLock(body)
    }
}
