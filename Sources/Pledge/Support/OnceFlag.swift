import Synchronization

/// Lets exactly one of the calls that try to claim it through.
@usableFromInline
final class OnceFlag: Sendable {
    @usableFromInline
    let claimed = Atomic<Bool>(false)

    @inlinable
    init() {}

    /// Whether this call is the first to claim the flag.
    @inlinable
    func claim() -> Bool {
        !claimed.exchange(true, ordering: .acquiringAndReleasing)
    }
}
