import Dispatch
import Pledge
import Synchronization
import Testing

/// Cancelling an operator whose input has been freed: the operator's link to its input must be
/// gone by then, so that cancelling never reads the freed input. Meant to run under
/// AddressSanitizer with freed memory filled (`max_free_fill_size`), so that a stale link is
/// reported rather than read back as an object being freed.
extension CancelTests {
    /// The input is fulfilled, its operator's block is queued on a blocked queue, and the input
    /// is freed: cancelling the operator before the block runs must not reach the input.
    @Test func cancellingAQueuedOperatorWhoseInputWasFreedDoesNotReachTheInput() {
        let queue = DispatchQueue(label: "cancel.queued-freed-input")
        let blocker = DispatchSemaphore(value: 0)
        let blocked = DispatchSemaphore(value: 0)
        queue.async {
            blocked.signal()
            _ = blocker.wait(timeout: .testTimeout)
        }
        blocked.wait()
        let called = Atomic<Int>(0)
        let end: Promise<Int> = {
            let (head, resolver) = Promise<Int>.pending()
            let end = head.map(on: queue) { value -> Int in
                called.add(1, ordering: .relaxed)
                return value
            }
            // Its block is queued behind the blocker; the head goes as this closure returns.
            resolver.fulfill(1)
            return end
        }()

        end.cancel()
        blocker.signal()
        queue.sync {}

        #expect(called.load(ordering: .relaxed) == 0)
        #expect(end.isCancelled)
    }

    /// The input is freed unresolved (its resolver dropped): cancelling its operator afterwards
    /// must not reach the input.
    @Test func cancellingAnOperatorWhoseInputWasFreedUnresolvedDoesNotReachTheInput() {
        let called = Atomic<Int>(0)
        let end: Promise<Int> = {
            let (head, _) = Promise<Int>.pending()
            return head.map(on: nil) { value -> Int in
                called.add(1, ordering: .relaxed)
                return value
            }
        }()

        end.cancel()

        #expect(called.load(ordering: .relaxed) == 0)
        #expect(end.isCancelled)
    }
}
