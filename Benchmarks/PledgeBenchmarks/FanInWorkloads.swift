import Dispatch
import Pledge
import Synchronization

// W4: waiting for many results at once, each produced on another thread.

enum FanInWorkloads {
    /// The thread that fulfils W4's promises (and leaves the baseline's group).
    static let fulfiller = DispatchQueue(label: "pledge-bench.w4")

    static func benchmarks(_ scale: Scale) -> [Benchmark] {
        [fanIn(scale)]
    }

    /// W4: `count` pending promises, `when(fulfilled:)` over them, every promise fulfilled from
    /// another thread; the main thread waits for the combined result. Per element, making the
    /// promises included.
    static func fanIn(_ scale: Scale) -> Benchmark {
        let count = scale.pick(full: 10_000, quick: 2_000)
        return Benchmark(
            id: "W4",
            subject: Workload(
                name: "when(fulfilled:) over \(count) promises", unit: "ns/element",
                sample: .sync { promiseFanIn(count) }),
            baseline: Workload(
                name: "DispatchGroup: \(count) x enter/leave, wait", unit: "ns/element",
                sample: .sync { groupFanIn(count) }),
            references: [
                Workload(
                    name: "floor: 3 objects/element made, set on the other thread, freed",
                    unit: "ns/element", sample: .sync { objectFloor(count) }),
                AsyncWorkloads.taskGroup(count),
            ])
    }

    /// Runs W4 once; returns nanoseconds per element.
    static func promiseFanIn(_ count: Int) -> Double {
        timeUntilFinished(per: count, expecting: count - 1, "W4 when(fulfilled:)") { completion in
            let (promises, resolvers) = makePendingPromises(count)
            let all = when(fulfilled: promises).done(on: nil) { values in
                // O(1) checks only: the values are in input order.
                completion.finish(with: values.count == count ? values[count - 1] : -1)
            }
            fulfiller.async { [resolvers] in
                for (index, resolver) in resolvers.enumerated() {
                    resolver.fulfill(index)
                }
            }
            return (promises, all)
        }
    }

    /// The least W4 can cost with PromiseKit's object model: per element, the three objects
    /// that `pending()` must make (a promise, its resolver, its box; sized like Pledge's), the
    /// box's lock taken and its value set from the fulfilling thread, and a countdown; the
    /// objects are freed where W4 frees them. No handler, no fan-in state, no result array.
    /// Shown for context, so that readers can tell the cost of the objects the API requires
    /// from Pledge's own.
    static func objectFloor(_ count: Int) -> Double {
        let finished = DispatchSemaphore(value: 0)
        return nanoseconds(per: count) {
            var promises: [FloorPromise<FloorBox>] = []
            var resolvers: [FloorResolver] = []
            promises.reserveCapacity(count)
            resolvers.reserveCapacity(count)
            for _ in 0..<count {
                let box = FloorBox()
                promises.append(FloorPromise(box))
                resolvers.append(FloorResolver(box))
            }
            let countdown = FloorCountdown(count)
            fulfiller.async { [resolvers] in
                for (index, resolver) in resolvers.enumerated() {
                    resolver.box.set(index)
                    if countdown.arrive() { finished.signal() }
                }
            }
            resolvers = []
            finished.wait()
            blackHole(promises.last?.box.value == count - 1)
        }
    }

    /// W4's baseline: one `enter` per element, one `leave` per element on the other thread, and
    /// a `wait` for the group to empty.
    static func groupFanIn(_ count: Int) -> Double {
        let group = DispatchGroup()
        return nanoseconds(per: count) {
            for _ in 0..<count {
                group.enter()
            }
            fulfiller.async {
                for _ in 0..<count {
                    group.leave()
                }
            }
            group.wait()
        }
    }
}

/// `--probe w4 N`: W4's shape on one thread, for counting allocations: `n` pending promises,
/// `when(fulfilled:)` over them, every one fulfilled, and the result checked.
func fanInElements(_ n: Int) {
    let (promises, resolvers) = makePendingPromises(n)
    let all = when(fulfilled: promises)
    for (index, resolver) in resolvers.enumerated() {
        resolver.fulfill(index)
    }
    blackHole(all.value?.count == n)
}

/// W4's floor: a box the size of Pledge's pending box (value, state word, three words of
/// handlers), set once under a lock bit.
private final class FloorBox: @unchecked Sendable {
    // Safety: `value` is written once, by the fulfilling thread while it holds the lock bit,
    // and read by the main thread only after the semaphore that the countdown signals.
    var value = 0
    var tag: UInt8 = 0
    let state = Atomic<UInt32>(0)
    var handlers: (AnyObject?, AnyObject?, AnyObject?) = (nil, nil, nil)

    func set(_ newValue: Int) {
        state.withFloorLock(publishing: 2) {
            value = newValue
            tag = 1
        }
    }
}

/// W4's floor: the object a resolver is.
private final class FloorResolver: Sendable {
    let box: FloorBox
    init(_ box: FloorBox) { self.box = box }
}

/// W4's floor: counts the elements set; the last one reports it.
private final class FloorCountdown: Sendable {
    let remaining: Atomic<Int>
    init(_ count: Int) { remaining = Atomic(count) }

    func arrive() -> Bool {
        remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0
    }
}
