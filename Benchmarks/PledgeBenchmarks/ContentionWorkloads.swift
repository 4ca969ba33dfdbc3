import Pledge
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// W5: two threads race on the same promises, one resolving while the other attaches, which is
// where the box's lock and its state machine earn their keep.

enum ContentionWorkloads {
    /// Promises per chunk between two barriers: large enough that the barriers cost next to
    /// nothing (about 1 µs each), small enough that the threads stay close.
    static let chunk = 1_000

    static func benchmarks(_ scale: Scale) -> [Benchmark] {
        [contention(scale)]
    }

    /// W5: thread A fulfils promise `i` while thread B attaches `done(on: nil)` to promise `i`,
    /// over `count` promises made beforehand; per promise. The threads meet at a barrier every
    /// ``chunk`` promises, so they keep racing on the same promises instead of drifting apart
    /// (one thread running ahead turns the race into two uncontended loops, and the time into a
    /// coin toss between two modes). Checks that every handler ran exactly once, with its own
    /// promise's value.
    static func contention(_ scale: Scale) -> Benchmark {
        let count = scale.pick(full: 1_000_000, quick: 100_000)
        return Benchmark(
            id: "W5",
            subject: Workload(
                name: "2 threads: fulfil i | done(on: nil) on i", unit: "ns/promise",
                sample: .sync { promiseContention(count) }),
            baseline: Workload(
                name: "the same on locked callback slots", unit: "ns/promise",
                sample: .sync { slotContention(count) }))
    }

    /// Runs W5 once; returns nanoseconds per promise. Making and freeing the promises is not
    /// timed.
    static func promiseContention(_ count: Int) -> Double {
        let (promises, resolvers) = makePendingPromises(count)
        let hits = HitCounters(count: count)
        let elapsed = runInStep(
            count: count, chunk: chunk,
            { [resolvers] range in
                for index in range {
                    resolvers[index].fulfill(index)
                }
            },
            { [promises] range in
                for index in range {
                    // Each handler records the value it got: promise `i` holds `i`, so a handler
                    // that ran twice, never, or with another promise's value leaves a count
                    // other than 1 somewhere.
                    _ = promises[index].done(on: nil) { hits.record($0) }
                }
            })
        verify(hits, "W5 Pledge")
        return Double(elapsed) / Double(count)
    }

    /// W5's baseline: the same two-thread pattern on minimal lock-protected callback slots.
    static func slotContention(_ count: Int) -> Double {
        var slots: [LockedSlot] = []
        slots.reserveCapacity(count)
        for _ in 0..<count {
            slots.append(LockedSlot())
        }
        let hits = HitCounters(count: count)
        let elapsed = runInStep(
            count: count, chunk: chunk,
            { [slots] range in
                for index in range {
                    slots[index].fulfill(index)
                }
            },
            { [slots] range in
                for index in range {
                    slots[index].attach { hits.record($0) }
                }
            })
        verify(hits, "W5 baseline")
        return Double(elapsed) / Double(count)
    }

    private static func verify(_ hits: HitCounters, _ label: String) {
        let wrong = hits.wrongCounts()
        Failures.shared.check(
            wrong == 0, "\(label): \(wrong) of \(hits.count) handlers did not run exactly once with their own value")
    }
}

/// The least a thread-safe pending value can be: a lock around "nothing yet", one waiting
/// callback, or the value. One callback only, as in W5.
///
/// The lock spins (see ``SpinLocked``) rather than being a `Synchronization.Mutex`: on Linux a
/// contended `Mutex` parks the thread in the kernel, and how long that takes swings with the
/// scheduler, which made this baseline vary by 3x between samples on a busy machine. Pledge's
/// boxes use a spinning lock too, so the two wait alike, and their ratio shows what Pledge adds
/// on top of the locking.
final class LockedSlot: Sendable {
    private enum State {
        case empty
        case waiting(@Sendable (Int) -> Void)
        case fulfilled(Int)
    }

    private let state = SpinLocked(State.empty)

    /// Stores the value and runs the waiting callback, if any, after unlocking.
    func fulfill(_ value: Int) {
        let callback: (@Sendable (Int) -> Void)? = state.withLock { state in
            switch state {
            case .empty:
                state = .fulfilled(value)
                return nil
            case .waiting(let callback):
                state = .fulfilled(value)
                return callback
            case .fulfilled:
                return nil
            }
        }
        callback?(value)
    }

    /// Runs `callback` at once, after unlocking, when the value is there; stores it otherwise.
    func attach(_ callback: @escaping @Sendable (Int) -> Void) {
        let value: Int? = state.withLock { state in
            switch state {
            case .empty, .waiting:
                state = .waiting(callback)
                return nil
            case .fulfilled(let value):
                return value
            }
        }
        if let value { callback(value) }
    }
}

/// A value behind a test-and-test-and-set spin lock that yields the processor when the lock
/// stays busy: the smallest lock there is, one atomic flag stored inline.
final class SpinLocked<Value>: @unchecked Sendable {
    // Safety: `value` is read and written only inside `withLock`, between a successful
    // acquiring compare-exchange of `locked` and the releasing store that clears it.
    private let locked = Atomic<Bool>(false)
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        var spins = 0
        while !locked.compareExchange(
            expected: false, desired: true, successOrdering: .acquiring, failureOrdering: .relaxed
        ).exchanged {
            while locked.load(ordering: .relaxed) {
                spins += 1
                if spins > 100 { sched_yield() }
            }
        }
        defer { locked.store(false, ordering: .releasing) }
        return body(&value)
    }
}
