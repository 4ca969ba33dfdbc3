import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A reusable barrier for a fixed number of threads: nobody leaves ``arriveAndWait()`` until
/// every party has arrived, so the code each thread runs next really overlaps.
///
/// Built on `Atomic` (not `Mutex`, which ThreadSanitizer does not model on Linux): the last
/// arrival publishes a new generation with a release store, and the waiters spin on an acquire
/// load, yielding the processor so that twenty threads on two cores still make progress.
///
/// The barrier is a rendezvous, not a lock: it orders what each thread did *before* arriving
/// with what every thread does *after* leaving, and nothing else. Work between two barriers is
/// left to race, which is the point.
final class RendezvousBarrier: Sendable {
    /// How many threads must arrive before any of them may leave.
    let parties: Int

    private let arrived = Atomic<Int>(0)
    private let generation = Atomic<Int>(0)

    init(parties: Int) {
        precondition(parties > 0, "a barrier needs at least one party")
        self.parties = parties
    }

    /// Blocks (spinning, then yielding) until all ``parties`` threads have called this method
    /// for the current round. The barrier resets itself, ready for the next round.
    func arriveAndWait() {
        // Read the round before arriving: it cannot advance until this thread has arrived.
        let round = generation.load(ordering: .acquiring)
        if arrived.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue == parties {
            // Last one in: reset the count for the next round, then release everybody. The
            // release store orders the reset before any waiter's next arrival.
            arrived.store(0, ordering: .relaxed)
            generation.wrappingAdd(1, ordering: .releasing)
            return
        }
        var spins = 0
        while generation.load(ordering: .acquiring) == round {
            spins += 1
            if spins > 64 { sched_yield() }
        }
    }
}

/// A one-shot starting gate: threads that call ``wait()`` spin until ``open()`` is called, so
/// that they all start at (nearly) the same instant.
final class RendezvousGate: Sendable {
    private let waiting = Atomic<Int>(0)
    private let isOpen = Atomic<Bool>(false)

    init() {}

    /// Announces that the calling thread is at the gate, then spins until the gate opens.
    func wait() {
        waiting.wrappingAdd(1, ordering: .releasing)
        var spins = 0
        while !isOpen.load(ordering: .acquiring) {
            spins += 1
            if spins > 64 { sched_yield() }
        }
    }

    /// Spins until `count` threads are waiting at the gate, then opens it for all of them.
    func open(whenWaiting count: Int) {
        var spins = 0
        while waiting.load(ordering: .acquiring) < count {
            spins += 1
            if spins > 64 { sched_yield() }
        }
        isOpen.store(true, ordering: .releasing)
    }
}
