import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A small lock on one atomic word: test-and-test-and-set, yielding the processor while the lock
/// stays busy. Pledge's one lock: every box, fan-in and ``LockedValue`` takes one.
///
/// Not `Synchronization.Mutex`: with Swift 6.3.1 on Linux, ThreadSanitizer does not model it and
/// reports false races on what it guards. Not `pthread_mutex_t`: it needs a stable address, a
/// second allocation per box. An atomic word lives inline, costs one compare-and-swap and one
/// release store, and ThreadSanitizer models it exactly. The sections it guards are a few loads
/// and stores, never user code. It does not donate priority: where priorities are strict, a
/// preempted low-priority holder delays waiters until it runs again.
@usableFromInline
struct SpinLock: ~Copyable, Sendable {
    @usableFromInline
    let word = Atomic<Bool>(false)

    @inlinable
    init() {}

    @inlinable
    borrowing func lock() {
        if !word.compareExchange(expected: false, desired: true, successOrdering: .acquiring, failureOrdering: .relaxed)
            .exchanged
        {
            lockContended()
        }
    }

    /// The slow path of ``lock()``: waiters read the word until it looks free before trying
    /// again, so they share its cache line instead of fighting over it, and yield the processor
    /// once the wait gets long.
    @usableFromInline
    borrowing func lockContended() {
        var spins = 0
        repeat {
            while word.load(ordering: .relaxed) {
                spins += 1
                if spins > 100 { sched_yield() }
            }
        } while !word.compareExchange(
            expected: false, desired: true, successOrdering: .acquiring, failureOrdering: .relaxed
        )
        .exchanged
    }

    @inlinable
    borrowing func unlock() {
        word.store(false, ordering: .releasing)
    }

    /// Runs `body` while holding the lock; `body` must not call user code.
    @inlinable
    borrowing func withLock<Value, E: Error>(_ body: () throws(E) -> Value) throws(E) -> Value {
        lock()
        defer { unlock() }
        return try body()
    }
}
