import Synchronization

/// Pledge's one lock: a value reachable only inside ``withLock(_:)``, which holds the lock for the
/// whole access. Every box, fan-in and ``LockedValue`` keeps its mutable state in one.
///
/// It is `Synchronization.Mutex`: `os_unfair_lock` on Apple platforms, a futex on Linux; both
/// donate the waiter's priority to the holder, so a preempted holder is not the inversion a
/// spinning lock is. It guards a few loads and stores: `body` must not run user code or call
/// back into code that may take a Pledge lock.
///
/// On Linux, ThreadSanitizer does not see the ordering a contended `Mutex` gives (it happens in
/// the uninstrumented standard library and the kernel); `order`, an atomic word read on entry
/// and written on exit, shows it, for two plain moves on x86 and a byte of layout padding.
@usableFromInline
struct Lock<State: ~Copyable>: ~Copyable, Sendable {
    #if !canImport(Darwin)
        @usableFromInline
        let order = Atomic<UInt8>(0)
    #endif

    @usableFromInline
    let mutex: Mutex<State>

    @inlinable
    init(_ state: consuming sending State) {
        mutex = Mutex(state)
    }

    /// Runs `body` with exclusive access to the state.
    @inlinable
    borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending State) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        #if canImport(Darwin)
            try mutex.withLock(body)
        #else
            // A `body` that throws skips the store: ThreadSanitizer then sees less ordering than
            // there is, never more. Pledge's bodies do not throw.
            try mutex.withLock { (state: inout sending State) throws(E) -> sending Result in
                _ = order.load(ordering: .acquiring)
                let result = try body(&state)
                order.store(0, ordering: .releasing)
                return result
            }
        #endif
    }
}
