import Dispatch
import Pledge
import Synchronization

// W3: every step of a chain hops onto a serial queue, the cost users pay with the default
// `on:` queues.

enum QueueWorkloads {
    /// The serial queue W3's steps run on.
    static let serial = DispatchQueue(label: "pledge-bench.w3")

    static func benchmarks(_ scale: Scale) -> [Benchmark] {
        [queueHops(scale)]
    }

    /// W3: a chain of `map(on: q)` steps on one serial queue, built on a pending promise, then
    /// fulfilled; the main thread waits for the last step. Per step, building included.
    static func queueHops(_ scale: Scale) -> Benchmark {
        let steps = scale.pick(full: 10_000, quick: 2_000)
        return Benchmark(
            id: "W3",
            subject: Workload(
                name: "\(steps)-step chain of map(on: serial queue)", unit: "ns/step",
                sample: .sync { promiseHops(steps) }),
            baseline: Workload(
                name: "\(steps) nested q.async", unit: "ns/step",
                sample: .sync { nestedAsyncHops(steps) }),
            references: [oneBlockPerStep(steps), AsyncWorkloads.actorHops(steps)])
    }

    /// For W3: the same chain with `conf.chainsShareBlocks` off, so that every step is a block of
    /// its own, as in PromiseKit: what sharing blocks saves.
    static func oneBlockPerStep(_ steps: Int) -> Workload {
        Workload(
            name: "the same, one block per step (chainsShareBlocks off)", unit: "ns/step",
            sample: .sync {
                conf.chainsShareBlocks = false
                defer { conf.chainsShareBlocks = true }
                return promiseHops(steps)
            })
    }

    /// Builds and runs W3's chain; returns nanoseconds per step.
    static func promiseHops(_ steps: Int) -> Double {
        let finished = DispatchSemaphore(value: 0)
        let last = LastValue()
        let elapsed = nanoseconds(per: steps) {
            let (first, resolver) = Promise<Int>.pending()
            var promise = first
            for _ in 0..<steps {
                promise = promise.map(on: serial) { $0 &+ 1 }
            }
            let done = promise.done(on: nil) { value in
                last.value.store(value, ordering: .releasing)
                finished.signal()
            }
            resolver.fulfill(0)
            finished.wait()
            blackHole(done)
        }
        let value = last.value.load(ordering: .acquiring)
        Failures.shared.check(value == steps, "W3 chain ended with \(value), expected \(steps)")
        return elapsed
    }

    /// W3's baseline: each block adds one and dispatches the next onto the same queue.
    static func nestedAsyncHops(_ steps: Int) -> Double {
        let finished = DispatchSemaphore(value: 0)
        let last = LastValue()
        let elapsed = nanoseconds(per: steps) {
            serial.async { hop(0, remaining: steps, finished, last) }
            finished.wait()
        }
        let value = last.value.load(ordering: .acquiring)
        Failures.shared.check(value == steps, "W3 baseline ended with \(value), expected \(steps)")
        return elapsed
    }

    private static func hop(_ value: Int, remaining: Int, _ finished: DispatchSemaphore, _ last: LastValue) {
        guard remaining > 0 else {
            last.value.store(value, ordering: .releasing)
            finished.signal()
            return
        }
        serial.async { hop(value &+ 1, remaining: remaining - 1, finished, last) }
    }
}

/// Where the last block of a chain leaves its value for the waiting thread to check.
final class LastValue: Sendable {
    let value = Atomic<Int>(-1)
}

/// `--probe w3 N`: W3's chain of `n` `map(on: serial queue)` steps, resolved and waited for.
func queueHopSteps(_ n: Int) {
    let finished = DispatchSemaphore(value: 0)
    let (first, resolver) = Promise<Int>.pending()
    var promise = first
    for _ in 0..<n {
        promise = promise.map(on: QueueWorkloads.serial) { $0 &+ 1 }
    }
    let done = promise.done(on: nil) { _ in finished.signal() }
    resolver.fulfill(0)
    finished.wait()
    blackHole(done)
}
