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
/// Why not `Synchronization.Mutex`: with Swift 6.3.1 on Linux, ThreadSanitizer does not model it
/// and reports false races on the state it guards, so a TSan run could prove nothing about that
/// state. Why not `pthread_mutex_t`: it must live at a stable address, which costs every box a
/// second allocation. An atomic word lives inline in its owner, costs one compare-and-swap to
/// take and one release store to drop, and ThreadSanitizer models its orderings exactly.
///
/// The critical sections it guards are a few loads and stores and never call user code, so
/// waits are short. It does not donate priority: on a platform with strict thread priorities, a
/// low-priority holder preempted inside those few instructions delays higher-priority waiters
/// until it runs again; Linux's scheduler does not starve it.
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
