import Dispatch
import Synchronization

/// A one-shot rendezvous for work items on a dispatch queue: nobody leaves ``arriveAndWait()``
/// until every party has arrived, or until a timeout passes.
///
/// Unlike ``RendezvousBarrier``, which spins, the waiters sleep on a semaphore. A thread pool
/// that sizes itself by how many of its threads are runnable (libdispatch's on Linux) then adds
/// threads for the later parties; spinning waiters would look busy and could leave the last
/// party without a thread, forever. The timeout turns such a starvation into a failed
/// expectation instead of a hang.
final class BlockingRendezvous: Sendable {
    /// How many work items must arrive before any of them may leave.
    let parties: Int

    private let arrived = Atomic<Int>(0)
    private let released = DispatchSemaphore(value: 0)

    init(parties: Int) {
        precondition(parties > 0, "a rendezvous needs at least one party")
        self.parties = parties
    }

    /// Sleeps until all ``parties`` have called this method, or `timeout` seconds have passed.
    ///
    /// - Returns: Whether every party arrived in time.
    @discardableResult
    func arriveAndWait(timeout: Double = 30) -> Bool {
        if arrived.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue == parties {
            for _ in 1..<parties { released.signal() }
            return true
        }
        return released.wait(timeout: .now() + timeout) == .success
    }
}
