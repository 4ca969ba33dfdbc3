import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// Thread helpers for the multi-threaded workloads: run async code from the synchronous main
// thread, keep two threads in step, count down to a signal, and check that every handler ran
// exactly once.

/// Runs `body` in a detached task and blocks the calling thread until it returns.
///
/// The calling thread is the main thread, which is not part of the cooperative pool, so blocking
/// it takes no thread away from the task.
func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
    let finished = DispatchSemaphore(value: 0)
    let slot = ResultSlot<T>()
    Task.detached {
        slot.store(await body())
        finished.signal()
    }
    finished.wait()
    return slot.take()
}

/// Hands one value from a task to the thread waiting for it.
private final class ResultSlot<T: Sendable>: Sendable {
    private let value = Mutex<T?>(nil)

    func store(_ newValue: T) {
        value.withLock { $0 = newValue }
    }

    func take() -> T {
        guard let taken = value.withLock({ $0.take() }) else { preconditionFailure("no result stored") }
        return taken
    }
}

/// A reusable barrier: each of a fixed number of threads waits, spinning, until all have
/// arrived, so that their work really overlaps. Notes when it first opened: when timed work
/// starts.
final class SpinBarrier: Sendable {
    private let parties: Int
    private let arrived = Atomic<Int>(0)
    private let generation = Atomic<Int>(0)
    private let firstOpenedAt = Atomic<UInt64>(0)

    init(parties: Int) {
        self.parties = parties
    }

    /// When the barrier first opened, in ``now()`` nanoseconds; 0 until then.
    var firstOpened: UInt64 { firstOpenedAt.load(ordering: .acquiring) }

    /// Waits until every party has arrived. Yields while waiting: on a busy machine the others
    /// may need this core to get here.
    func arriveAndWait() {
        let current = generation.load(ordering: .acquiring)
        if arrived.add(1, ordering: .acquiringAndReleasing).newValue == parties {
            // The last to arrive resets the count before opening, so nobody can arrive at the
            // next generation early: the others leave only once `generation` has moved on.
            arrived.store(0, ordering: .relaxed)
            if current == 0 { firstOpenedAt.store(now(), ordering: .relaxed) }
            generation.add(1, ordering: .releasing)
            return
        }
        var spins = 0
        while generation.load(ordering: .acquiring) == current {
            spins += 1
            if spins > 100 { sched_yield() }
        }
    }
}

/// Two threads of their own for ``runInStep(count:chunk:_:_:settled:)``.
///
/// Serial queues made with `DispatchQueue(label:)` target the overcommitting root queue, which
/// starts a new thread whenever no idle one is available, so blocks on the two queues run on two
/// distinct threads even when both spin at the barrier (a global concurrent queue is limited to
/// one thread per core and could leave one block waiting for the other forever).
private enum TwoThreads {
    static let first = DispatchQueue(label: "pledge-bench.thread-a")
    static let second = DispatchQueue(label: "pledge-bench.thread-b")
}

/// Runs `first` and `second` over `0..<count` on two threads, in chunks: both threads meet at a
/// barrier before each chunk, so they start together and neither runs more than one chunk
/// ahead; without that, one thread soon outruns the other and they stop touching the same data
/// at the same time. Returns the nanoseconds from the first barrier to both threads finishing.
///
/// - Parameter settled: For work the two threads hand to a third thread (NIO's event loop, say):
///   called once both have finished, it waits for that work and returns when it finished, in
///   ``now()`` nanoseconds. The time then runs to the latest of the three ends.
func runInStep(
    count: Int, chunk: Int,
    _ first: @escaping @Sendable (Range<Int>) -> Void, _ second: @escaping @Sendable (Range<Int>) -> Void,
    settled: (() -> UInt64)? = nil
) -> UInt64 {
    let barrier = SpinBarrier(parties: 2)
    let ends = EndTimes()
    let done = DispatchGroup()
    let chunks = stride(from: 0, to: count, by: chunk).map { $0..<Swift.min($0 + chunk, count) }
    TwoThreads.first.async(group: done) {
        for range in chunks {
            barrier.arriveAndWait()
            first(range)
        }
        ends.first.store(now(), ordering: .releasing)
    }
    TwoThreads.second.async(group: done) {
        for range in chunks {
            barrier.arriveAndWait()
            second(range)
        }
        ends.second.store(now(), ordering: .releasing)
    }
    done.wait()
    var end = max(ends.first.load(ordering: .acquiring), ends.second.load(ordering: .acquiring))
    if let settled { end = max(end, settled()) }
    return end - barrier.firstOpened
}

/// When each of the two threads of ``runInStep(count:chunk:_:_:settled:)`` finished.
private final class EndTimes: Sendable {
    let first = Atomic<UInt64>(0)
    let second = Atomic<UInt64>(0)
}

/// Signals once `count` ticks have arrived, from any threads.
final class Countdown: Sendable {
    private let remaining: Atomic<Int>
    private let zero = DispatchSemaphore(value: 0)

    init(_ count: Int) {
        remaining = Atomic(count)
    }

    func tick() {
        if remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 {
            zero.signal()
        }
    }

    /// Blocks until the last tick.
    func wait() {
        zero.wait()
    }
}

/// One atomic counter per index, to check that every handler ran exactly once.
final class HitCounters: @unchecked Sendable {
    // Safety: `counters` is allocated and initialised in `init`, released in `deinit`, and never
    // reassigned; between the two, every access to an element goes through its `Atomic`, so any
    // thread may record at any index concurrently.
    private let counters: UnsafeMutablePointer<Atomic<UInt8>>
    let count: Int

    init(count: Int) {
        self.count = count
        counters = .allocate(capacity: count)
        for index in 0..<count {
            (counters + index).initialize(to: Atomic(0))
        }
    }

    deinit {
        counters.deinitialize(count: count)
        counters.deallocate()
    }

    /// Notes one run of the handler for `index`.
    @inline(__always)
    func record(_ index: Int) {
        counters[index].wrappingAdd(1, ordering: .relaxed)
    }

    /// How many indices did not see exactly one run. Call after every handler has finished.
    func wrongCounts() -> Int {
        var wrong = 0
        for index in 0..<count where counters[index].load(ordering: .acquiring) != 1 {
            wrong += 1
        }
        return wrong
    }
}

/// How work that ends on another thread hands its last value to the thread timing it.
final class Completion: Sendable {
    let value = Atomic<Int>(-1)
    let finished = DispatchSemaphore(value: 0)

    /// Leaves `last` for the timing thread and wakes it.
    func finish(with last: Int) {
        value.store(last, ordering: .releasing)
        finished.signal()
    }
}

/// Times `start`, which sets off work that ends on another thread with
/// ``Completion/finish(with:)``, until that call; returns nanoseconds per `operations`. Whatever
/// `start` returns is kept alive until then. Afterwards checks that the work ended with
/// `expected`, reporting a failure named `label` otherwise.
func timeUntilFinished<Kept>(
    per operations: Int, expecting expected: Int, _ label: String, _ start: (Completion) -> Kept
) -> Double {
    let completion = Completion()
    let elapsed = nanoseconds(per: operations) {
        let kept = start(completion)
        completion.finished.wait()
        blackHole(kept)
    }
    let value = completion.value.load(ordering: .acquiring)
    Failures.shared.check(value == expected, "\(label) ended with \(value), expected \(expected)")
    return elapsed
}
