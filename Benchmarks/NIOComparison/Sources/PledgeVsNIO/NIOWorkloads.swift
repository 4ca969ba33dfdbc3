import Dispatch
import NIOCore
import NIOEmbedded
import NIOPosix
import Pledge

// pledge-bench's W1–W6 done with SwiftNIO's EventLoopFuture, the futures Pledge's speed targets
// were set against. Each keeps the shape of its Pledge workload, with NIO's idioms where the two
// APIs differ:
// - NIO runs every callback on the future's event loop, so "on: nil" (run where the promise is
//   resolved) has no NIO equivalent; W1 and W2 run on the loop's own thread, where NIO adds and
//   runs callbacks inline, its fastest path.
// - NIO's `whenSuccess` returns nothing where Pledge's `done` returns a promise, so NIO makes one
//   future fewer per `done` in W1, W2, W5 and W6 (its callback still allocates a closure).
// - Work NIO is handed from off its loop (W3's chain built on the main thread; W4's
//   `whenAllSucceed` and fulfilments; W5's fulfilments and `whenSuccess` calls, from two other
//   threads) is queued to the loop with `execute`: that is what NIO does with such calls, and
//   what Pledge's queued or `on: nil` handlers avoid. So W5 keeps three threads busy for NIO
//   (the two and the loop) against two for Pledge.

enum NIOComparison {
    /// The event loop every NIO workload uses: one thread, started once.
    static let loop: any EventLoop = MultiThreadedEventLoopGroup(numberOfThreads: 1).next()

    /// pledge-bench's W1–W6, each with its NIO equivalent as the baseline and its own baseline
    /// (the job without any promise library) kept as a reference. W1 and W2 also show NIO on an
    /// `EmbeddedEventLoop`, its cheapest loop (no thread, no locks; for tests), and W3 the chain
    /// built on the loop itself, where NIO queues no task per step.
    static func suite(_ scale: Scale) -> [Benchmark] {
        let more: [String: Workload] = [
            "W1": resolvedChainOnEmbeddedLoop(scale),
            "W2": pendingThenResolveOnEmbeddedLoop(scale),
            "W3": chainBuiltOnTheLoop(scale),
        ]
        let nio: [String: Workload] = [
            "W1": resolvedChain(scale),
            "W2": pendingThenResolve(scale),
            "W3": chainOnTheLoop(scale),
            "W4": fanIn(scale),
            "W5": contention(scale),
            "W6": memory(scale),
            "W6p": memory(scale),
        ]
        return PledgeBench.suite(scale).compactMap { benchmark in
            guard let workload = nio[benchmark.id] else { return nil }
            return Benchmark(
                id: benchmark.id, subject: benchmark.subject, baseline: workload,
                references: [benchmark.baseline] + (more[benchmark.id].map { [$0] } ?? []),
                family: benchmark.family, warmUp: benchmark.warmUp,
                maxRepetitions: benchmark.maxRepetitions)
        }
    }

    /// Runs `body` on the event loop's thread and returns its result.
    static func onLoop(_ body: @escaping @Sendable () -> Double) -> Double {
        do {
            return try loop.submit(body).wait()
        } catch {
            Failures.shared.check(false, "the NIO event loop failed a task: \(error)")
            return .nan
        }
    }

    /// Waits until the loop has run every task queued before this call (its queue is FIFO), and
    /// returns when it had, in ``now()`` nanoseconds, as read by the loop itself when it ran this
    /// call's task: not when this thread woke up to hear of it.
    static func drainedAt() -> UInt64 {
        // A `Double` holds a `now()` value exactly: it stays far below 2^53 nanoseconds.
        UInt64(onLoop { Double(now()) })
    }

    // MARK: - W1, W2: on the loop

    /// W1: a succeeded future, ten `map`s and a `whenSuccess`, on the loop; per map step.
    static func resolvedChain(_ scale: Scale) -> Workload {
        let iterations = scale.pick(full: 20_000, quick: 2_000)
        return Workload(
            name: "NIO: succeeded future, 10 x map, whenSuccess, on its loop", unit: "ns/map step",
            sample: .sync { onLoop { resolvedChains(iterations, on: Self.loop) } })
    }

    /// W2: `makePromise`, one `map`, one `whenSuccess`, then `succeed`, on the loop; per
    /// iteration.
    static func pendingThenResolve(_ scale: Scale) -> Workload {
        let iterations = scale.pick(full: 200_000, quick: 20_000)
        return Workload(
            name: "NIO: makePromise, map, whenSuccess, succeed, on its loop", unit: "ns/iteration",
            sample: .sync { onLoop { pendingThenResolved(iterations, on: Self.loop) } })
    }

    /// W1 on an `EmbeddedEventLoop` made and used on the main thread.
    static func resolvedChainOnEmbeddedLoop(_ scale: Scale) -> Workload {
        let iterations = scale.pick(full: 20_000, quick: 2_000)
        let loop = EmbeddedEventLoop()
        return Workload(
            name: "NIO: the same on an EmbeddedEventLoop", unit: "ns/map step",
            sample: .sync { resolvedChains(iterations, on: loop) })
    }

    /// W2 on an `EmbeddedEventLoop` made and used on the main thread.
    static func pendingThenResolveOnEmbeddedLoop(_ scale: Scale) -> Workload {
        let iterations = scale.pick(full: 200_000, quick: 20_000)
        let loop = EmbeddedEventLoop()
        return Workload(
            name: "NIO: the same on an EmbeddedEventLoop", unit: "ns/iteration",
            sample: .sync { pendingThenResolved(iterations, on: loop) })
    }

    /// W1's body on `loop`, from the thread `loop` runs on; returns nanoseconds per map step.
    /// Generic, so that the `EmbeddedEventLoop` row calls that type directly, not through `any`.
    private static func resolvedChains<Loop: EventLoop>(_ iterations: Int, on loop: Loop) -> Double {
        nanoseconds(per: iterations * 10) {
            for i in 0..<iterations {
                var future = loop.makeSucceededFuture(i)
                for _ in 0..<10 {
                    future = future.map { $0 &+ 1 }
                }
                future.whenSuccess { blackHole($0) }
            }
        }
    }

    /// W2's body on `loop`, from the thread `loop` runs on; returns nanoseconds per iteration.
    private static func pendingThenResolved<Loop: EventLoop>(_ iterations: Int, on loop: Loop) -> Double {
        nanoseconds(per: iterations) {
            for i in 0..<iterations {
                let promise = loop.makePromise(of: Int.self)
                promise.futureResult.map { $0 &+ 1 }.whenSuccess { blackHole($0) }
                promise.succeed(i)
            }
        }
    }

    // MARK: - W3: a chain run on the loop

    /// W3: a chain of `map`s on a pending promise of the loop, built on the main thread, then
    /// succeeded; the main thread waits for the last step. Per step, building included, as in
    /// Pledge's W3.
    static func chainOnTheLoop(_ scale: Scale) -> Workload {
        let steps = scale.pick(full: 10_000, quick: 2_000)
        return Workload(
            name: "NIO: \(steps)-step map chain built off its loop", unit: "ns/step",
            sample: .sync { mapChain(steps, builtOnLoop: false) })
    }

    /// W3's chain built on the loop's thread, so that NIO stores each callback at once instead
    /// of queueing a task to add it.
    static func chainBuiltOnTheLoop(_ scale: Scale) -> Workload {
        let steps = scale.pick(full: 10_000, quick: 2_000)
        return Workload(
            name: "NIO: the same chain built on its loop", unit: "ns/step",
            sample: .sync { mapChain(steps, builtOnLoop: true) })
    }

    /// Builds W3's chain, on the main thread or on the loop's, succeeds its promise from the
    /// main thread and waits for the last step; returns nanoseconds per step.
    private static func mapChain(_ steps: Int, builtOnLoop: Bool) -> Double {
        let loop = Self.loop  // read once, outside the timed region
        return timeUntilFinished(per: steps, expecting: steps, "NIO W3 chain") { completion in
            let promise = loop.makePromise(of: Int.self)
            let build: @Sendable () -> Double = {
                var future = promise.futureResult
                for _ in 0..<steps {
                    future = future.map { $0 &+ 1 }
                }
                future.whenSuccess { completion.finish(with: $0) }
                return 0
            }
            _ = builtOnLoop ? onLoop(build) : build()
            promise.succeed(0)
        }
    }

    // MARK: - W4: fan-in

    /// W4: `count` promises of the loop, `whenAllSucceed` over them, each succeeded from W4's
    /// fulfilling thread; the main thread waits. Per element, making the promises included.
    static func fanIn(_ scale: Scale) -> Workload {
        let count = scale.pick(full: 10_000, quick: 2_000)
        return Workload(
            name: "NIO: whenAllSucceed over \(count) promises", unit: "ns/element",
            sample: .sync {
                let loop = Self.loop  // read once, outside the timed region
                return timeUntilFinished(per: count, expecting: count - 1, "NIO W4 whenAllSucceed") { completion in
                    var promises: [EventLoopPromise<Int>] = []
                    promises.reserveCapacity(count)
                    for _ in 0..<count {
                        promises.append(loop.makePromise(of: Int.self))
                    }
                    let all = EventLoopFuture.whenAllSucceed(promises.map(\.futureResult), on: loop)
                    all.whenSuccess { values in
                        completion.finish(with: values.count == count ? values[count - 1] : -1)
                    }
                    FanInWorkloads.fulfiller.async { [promises] in
                        for (index, promise) in promises.enumerated() {
                            promise.succeed(index)
                        }
                    }
                    return promises
                }
            })
    }

    // MARK: - W5: contention

    /// W5: thread A succeeds promise `i` while thread B adds a `whenSuccess` to promise `i`,
    /// neither on the loop, in the same chunks as Pledge's W5; per promise, until the loop has
    /// run every callback. Checks that each callback ran exactly once with its own value.
    static func contention(_ scale: Scale) -> Workload {
        let count = scale.pick(full: 1_000_000, quick: 100_000)
        return Workload(
            name: "NIO: 2 threads: succeed i | whenSuccess on i", unit: "ns/promise",
            sample: .sync {
                var promises: [EventLoopPromise<Int>] = []
                promises.reserveCapacity(count)
                for _ in 0..<count {
                    promises.append(loop.makePromise(of: Int.self))
                }
                let hits = HitCounters(count: count)
                // Timed until the loop has run the last callback the two threads queued.
                let elapsed = runInStep(
                    count: count, chunk: ContentionWorkloads.chunk,
                    { [promises] range in
                        for index in range {
                            promises[index].succeed(index)
                        }
                    },
                    { [promises] range in
                        for index in range {
                            promises[index].futureResult.whenSuccess { hits.record($0) }
                        }
                    }, settled: drainedAt)
                let wrong = hits.wrongCounts()
                Failures.shared.check(
                    wrong == 0, "NIO W5: \(wrong) of \(count) callbacks did not run exactly once with their own value")
                return Double(elapsed) / Double(count)
            })
    }

    // MARK: - W6: memory

    /// W6: heap bytes per pending promise of the loop with one `whenSuccess` callback, made on
    /// the loop (so that adding the callback stores it instead of queueing a task).
    static func memory(_ scale: Scale) -> Workload {
        let count = scale.pick(full: 1_000_000, quick: 100_000)
        return Workload(
            name: "NIO: pending promise + whenSuccess, x\(count)", unit: "B/promise",
            sample: .sync {
                onLoop {
                    let loop = Self.loop
                    var promises: [EventLoopPromise<Int>] = []
                    promises.reserveCapacity(count)
                    HeapGauge.settle()
                    guard let before = HeapGauge.bytesInUse() else { return 0 }
                    for _ in 0..<count {
                        let promise = loop.makePromise(of: Int.self)
                        promise.futureResult.whenSuccess { blackHole($0) }
                        promises.append(promise)
                    }
                    let after = HeapGauge.bytesInUse() ?? before
                    for (index, promise) in promises.enumerated() {
                        promise.succeed(index)
                    }
                    return Double(after - before) / Double(count)
                }
            })
    }
}
