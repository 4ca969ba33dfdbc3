import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A rejection reason that says which round or thread produced it.
final class StressReason: Error, Sendable {
    let id: Int

    init(_ id: Int) {
        self.id = id
    }
}

/// An identifier of the calling thread, comparable across threads.
func stressCurrentThreadID() -> UInt {
    #if canImport(Darwin)
        return UInt(bitPattern: pthread_self())
    #else
        return UInt(pthread_self())
    #endif
}

/// An address on the calling thread's stack, to measure how deep the stack is at some point.
///
/// Never inlined, so that every call has a frame of the same shape.
@inline(never)
func stressStackAddress() -> UInt {
    var local = 0
    return withUnsafeMutablePointer(to: &local) { UInt(bitPattern: $0) }
}

/// Records stack addresses from handlers running on another thread, to check afterwards that
/// the stack did not grow with the length of a chain.
final class StressStackProbe: Sendable {
    private let deepest = Atomic<UInt>(UInt.max)
    private let shallowest = Atomic<UInt>(0)

    init() {}

    /// Records the current stack address. The stack grows towards lower addresses on every
    /// platform Pledge supports, so the lowest address is the deepest point.
    func mark() {
        let address = stressStackAddress()
        deepest.min(address, ordering: .relaxed)
        shallowest.max(address, ordering: .relaxed)
    }

    /// How far apart, in bytes, the deepest and the shallowest marks are; `0` with fewer than
    /// two marks.
    var spread: UInt {
        let low = deepest.load(ordering: .relaxed)
        let high = shallowest.load(ordering: .relaxed)
        return low <= high ? high - low : 0
    }
}
