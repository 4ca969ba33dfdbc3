import Dispatch
import Synchronization

/// Counts completions from any thread and lets a test wait, without polling, until an
/// expected number of them has happened.
///
/// The count is an `Atomic` updated with acquire-release ordering, and ``wait(timeout:)`` ends
/// with an acquire load of it, so everything the completing threads did before completing
/// happens before `wait` returns, in a way ThreadSanitizer sees without modelling Dispatch.
final class CompletionCount: Sendable {
    /// How many completions ``wait(timeout:)`` waits for.
    let expected: Int

    private let count = Atomic<Int>(0)
    private let reached = DispatchSemaphore(value: 0)

    init(expecting expected: Int) {
        self.expected = expected
    }

    /// Records one completion.
    func complete() {
        if count.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue == expected {
            reached.signal()
        }
    }

    /// How many completions have been recorded so far.
    var completed: Int {
        count.load(ordering: .acquiring)
    }

    /// Waits until ``expected`` completions have been recorded, or `timeout` seconds have passed.
    ///
    /// - Returns: Whether they all arrived in time.
    func wait(timeout: Double = 60) -> Bool {
        if expected > 0 { _ = reached.wait(timeout: .now() + timeout) }
        return completed >= expected
    }
}
