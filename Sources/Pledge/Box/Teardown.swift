#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Releases the handlers of abandoned boxes iteratively, so that dropping a long pending chain
/// does not recurse once per link.
///
/// A pending box owns its handlers, each handler owns the next box of the chain, and so on:
/// releasing the first box of an abandoned chain of a million links would otherwise run a
/// million nested `deinit`s and overflow the stack. Instead, a box that dies with handlers
/// parks them here. The first park on a thread releases parked items from a loop; parks made by
/// the `deinit`s that this triggers only append to that thread's list.
///
/// Only abandoned boxes (never sealed, with handlers) take this path; resolved boxes have
/// already handed their handlers to the trampoline.
enum Teardown {
    /// The items waiting to be released on one thread, while that thread drains them.
    final class Drain {
        var items: [Any] = []
    }

    /// The thread-local slot holding the current thread's `Drain` while it drains.
    static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// Releases `item` (a box's handlers) now, or after the release that is running already on
    /// this thread.
    static func park(_ item: consuming Any) {
        if let current = pthread_getspecific(key) {
            // Safety: the slot only ever holds a `Drain` set by the loop below on this same
            // thread, which keeps that `Drain` alive until it clears the slot.
            let drain = Unmanaged<Drain>.fromOpaque(current).takeUnretainedValue()
            drain.items.append(item)
            return
        }
        let drain = Drain()
        // Moved into the list, so that the loop below holds the only reference.
        drain.items.append(consume item)
        // Safety: `drain` outlives the slot: the slot is cleared before this function returns,
        // and `withExtendedLifetime` keeps `drain` alive until then.
        withExtendedLifetime(drain) {
            pthread_setspecific(key, Unmanaged.passUnretained(drain).toOpaque())
            // Each popped item is released at the end of its iteration, after the access to
            // `items` has ended; releasing it may park more items on `drain`.
            while let item = drain.items.popLast() {
                _ = item
            }
            pthread_setspecific(key, nil)
        }
    }
}
