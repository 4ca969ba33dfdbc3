import Dispatch
import Pledge
import Testing

extension FiringTests {
    /// A `then` whose closure runs in a block on a queue returns a promise that is firing on
    /// another thread, stuck in a handler. The block's thread attaches the handler that seals the
    /// `then`'s promise while no thread runs its lane, so it must run that handler itself (help):
    /// the `then`'s promise resolves without waiting for the stuck handler. The block's run starts
    /// with the work its operation handed back; work scheduled instead of handed back would lie
    /// below that run's stack height and never run.
    @Test func aQueuedThenFollowingAPromiseFiringOnAnotherThreadResolvesWithoutWaitingForIt() {
        let firing = BlockedFiring()
        #expect(firing.resolve())
        let queue = DispatchQueue(label: "firing.follow-while-firing")
        let resolved = DispatchSemaphore(value: 0)

        let followed = Promise.value(0).then(on: queue) { _ in firing.promise }
        followed.pipe { _ in resolved.signal() }

        // The stuck handler has not returned: only the block's thread can have run this one.
        #expect(resolved.wait(timeout: .testTimeout) == .success)
        #expect(followed.value == 1)
        firing.release()
        #expect(firing.waitUntilResolved())
    }
}
