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
        timeUntilFinished(per: steps, expecting: steps, "W3 chain") { completion in
            let (first, resolver) = Promise<Int>.pending()
            var promise = first
            for _ in 0..<steps {
                promise = promise.map(on: serial) { $0 &+ 1 }
            }
            let done = promise.done(on: nil) { completion.finish(with: $0) }
            resolver.fulfill(0)
            return done
        }
    }

    /// W3's baseline: each block adds one and dispatches the next onto the same queue.
    static func nestedAsyncHops(_ steps: Int) -> Double {
        timeUntilFinished(per: steps, expecting: steps, "W3 baseline") { completion in
            serial.async { hop(0, remaining: steps, completion) }
        }
    }

    private static func hop(_ value: Int, remaining: Int, _ completion: Completion) {
        guard remaining > 0 else {
            completion.finish(with: value)
            return
        }
        serial.async { hop(value &+ 1, remaining: remaining - 1, completion) }
    }
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
