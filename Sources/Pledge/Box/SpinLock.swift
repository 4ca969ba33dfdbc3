import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A small lock built on one atomic word: test-and-test-and-set, yielding the processor when the
/// lock stays busy (see `Atomic.takeLockBit(_:)`).
///
/// Used by the fan-in behind `when` and by `LockedValue`; an ``EmptyBox`` takes the same lock
/// bit in its state word instead of a separate lock.
///
/// Why not `Synchronization.Mutex`: with Swift 6.3.1 on Linux, ThreadSanitizer does not model
/// it and reports false races on state it protects, so a TSan run could prove nothing about
/// the state it guards. Why not `pthread_mutex_t`: it must live at a stable address, which costs
/// a second allocation per owner. An atomic word lives inline in its owner,
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
    let word: Atomic<UInt32>

    @inlinable
    init() {
        word = Atomic(0)
    }

    @inlinable
    borrowing func lock() {
        _ = word.takeLockBit(1)
    }

    @inlinable
    borrowing func unlock() {
        word.store(0, ordering: .releasing)
    }

    /// Runs `body` while holding the lock.
    @inlinable
    borrowing func withLock<Value, E: Error>(_ body: () throws(E) -> Value) throws(E) -> Value {
        lock()
        defer { unlock() }
        return try body()
    }
}

extension Atomic where Value == UInt32 {
    /// Sets `bit` in this word, waiting while another thread holds it: the acquiring half of a
    /// lock that lives in one bit of a word whose other bits may hold state of their own (an
    /// ``EmptyBox``'s phase). Drop it with a release store of the word without the bit.
    ///
    /// Test-and-test-and-set: waiters read the word until the bit looks clear before trying
    /// again, so they share the cache line instead of fighting over it with writes, and yield
    /// the processor once the wait gets long.
    ///
    /// - Returns: the word as it was when the bit was taken (without the bit). Its other bits
    ///   cannot change until the holder stores the word again.
    @inlinable
    func takeLockBit(_ bit: UInt32) -> UInt32 {
        let current = load(ordering: .relaxed)
        if current & bit == 0,
            compareExchange(
                expected: current, desired: current | bit, successOrdering: .acquiring, failureOrdering: .relaxed
            ).exchanged
        {
            return current
        }
        return takeLockBitContended(bit)
    }

    @usableFromInline
    func takeLockBitContended(_ bit: UInt32) -> UInt32 {
        var spins = 0
        while true {
            var current = load(ordering: .relaxed)
            while current & bit != 0 {
                spins += 1
                if spins > 100 { sched_yield() }
                current = load(ordering: .relaxed)
            }
            if compareExchange(
                expected: current, desired: current | bit, successOrdering: .acquiring, failureOrdering: .relaxed
            ).exchanged {
                return current
            }
        }
    }
}
