import Dispatch
import Pledge

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
            references: [AsyncWorkloads.taskGroup(count)])
    }

    /// Runs W4 once; returns nanoseconds per element.
    static func promiseFanIn(_ count: Int) -> Double {
        let finished = DispatchSemaphore(value: 0)
        let last = LastValue()
        let elapsed = nanoseconds(per: count) {
            let (promises, resolvers) = makePendingPromises(count)
            let all = when(fulfilled: promises).done(on: nil) { values in
                // O(1) checks only: the values are in input order.
                last.value.store(values.count == count ? values[count - 1] : -1, ordering: .releasing)
                finished.signal()
            }
            fulfiller.async { [resolvers] in
                for (index, resolver) in resolvers.enumerated() {
                    resolver.fulfill(index)
                }
            }
            finished.wait()
            blackHole(all)
        }
        let value = last.value.load(ordering: .acquiring)
        Failures.shared.check(value == count - 1, "W4 when(fulfilled:) gave a wrong last value \(value)")
        return elapsed
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
