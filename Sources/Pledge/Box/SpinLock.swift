import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A small lock built on one `Atomic<Bool>`: test-and-test-and-set with exponential backoff,
/// yielding the processor when the lock stays busy.
///
/// Used by the fan-in behind `when` and by `LockedValue`; an ``EmptyBox`` uses the same
/// technique on a bit of its state word instead.
///
/// Why not `Synchronization.Mutex`: with Swift 6.3.1 on Linux, ThreadSanitizer does not model
/// it and reports false races on state it protects, so a TSan run could prove nothing about
/// the state it guards. Why not `pthread_mutex_t`: it must live at a stable address, which costs
/// a second allocation per owner. An atomic flag lives inline in its owner,
/// costs one compare-and-swap to take and one release store to drop, and its acquire/release
/// orderings are exactly what ThreadSanitizer models, so the stress tests under
/// `--sanitize=thread` check every access to the guarded state.
///
/// Critical sections guarded by this lock are a handful of loads and stores and never call user
/// code, so contention is short; yielding keeps an oversubscribed machine making progress.
/// A spin lock does not donate priority: on a platform with strict thread priorities (Apple's
/// QoS classes), a low-priority holder preempted inside those few instructions delays
/// higher-priority waiters until it runs again. Linux's scheduler, Pledge's main target, does
/// not starve it.
@usableFromInline
struct SpinLock: ~Copyable, Sendable {
    @usableFromInline
    let flag: Atomic<Bool>

    @inlinable
    init() {
        flag = Atomic(false)
    }

    @inlinable
    borrowing func lock() {
        if flag.compareExchange(
            expected: false, desired: true, successOrdering: .acquiring, failureOrdering: .relaxed
        ).exchanged {
            return
        }
        lockContended()
    }

    @usableFromInline
    borrowing func lockContended() {
        var spins = 0
        while true {
            // Wait until the flag looks free before trying again, so waiters read the cache
            // line instead of fighting over it with writes.
            while flag.load(ordering: .relaxed) {
                spins += 1
                if spins > 100 { sched_yield() }
            }
            if flag.compareExchange(
                expected: false, desired: true, successOrdering: .acquiring, failureOrdering: .relaxed
            ).exchanged {
                return
            }
        }
    }

    @inlinable
    borrowing func unlock() {
        flag.store(false, ordering: .releasing)
    }

    /// Runs `body` while holding the lock.
    @inlinable
    borrowing func withLock<Value, E: Error>(_ body: () throws(E) -> Value) throws(E) -> Value {
        lock()
        defer { unlock() }
        return try body()
    }
}
