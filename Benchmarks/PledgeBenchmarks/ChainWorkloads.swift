import Dispatch
import Pledge
import Synchronization

// W1 and W2: single-threaded chains with `on: nil`, where Pledge's own bookkeeping is all
// there is to measure. Also the bodies behind `--probe`.

enum ChainWorkloads {
    static func benchmarks(_ scale: Scale) -> [Benchmark] {
        [resolvedChain(scale), pendingThenResolve(scale)]
    }

    /// W1: `Promise.value(i)`, ten `map(on: nil) { $0 + 1 }` and a `done(on: nil)`, per map step.
    static func resolvedChain(_ scale: Scale) -> Benchmark {
        let iterations = scale.pick(full: 20_000, quick: 2_000)
        let steps = iterations * 10
        return Benchmark(
            id: "W1",
            subject: Workload(
                name: "resolved: value, 10 x map(on: nil), done", unit: "ns/map step",
                sample: .sync { nanoseconds(per: steps) { resolvedChainIterations(iterations) } }),
            baseline: Workload(
                name: "10 opaque closure calls", unit: "ns/step",
                sample: .sync { nanoseconds(per: steps) { closureChainIterations(iterations) } }),
            references: [
                Workload(
                    name: "floor: the same calls, each making and freeing 2 objects", unit: "ns/step",
                    sample: .sync { nanoseconds(per: steps) { objectFloorIterations(iterations) } })
            ])
    }

    /// W2: `pending()`, one `map(on: nil)`, one `done(on: nil)`, then fulfil; per iteration.
    static func pendingThenResolve(_ scale: Scale) -> Benchmark {
        let iterations = scale.pick(full: 200_000, quick: 20_000)
        return Benchmark(
            id: "W2",
            subject: Workload(
                name: "pending, map(on: nil), done(on: nil), fulfil", unit: "ns/iteration",
                sample: .sync { nanoseconds(per: iterations) { pendingThenResolveIterations(iterations) } }),
            baseline: Workload(
                name: "callback slot: set, then fire", unit: "ns/iteration",
                sample: .sync { nanoseconds(per: iterations) { callbackSlotIterations(iterations) } }),
            references: [AsyncWorkloads.continuation(scale)])
    }
}

// MARK: - Bodies

/// W1's body: `iterations` resolved chains of ten maps and a done (so 10 map steps each).
func resolvedChainIterations(_ iterations: Int) {
    for i in 0..<iterations {
        var promise = Promise.value(i)
        for _ in 0..<10 {
            promise = promise.map(on: nil) { $0 &+ 1 }
        }
        blackHole(promise.done(on: nil) { blackHole($0) })
    }
}

/// W1's baseline: the same ten additions through a closure the optimiser cannot see into.
func closureChainIterations(_ iterations: Int) {
    let step = opaqueClosure { (value: Int) in value &+ 1 }
    for i in 0..<iterations {
        var value = i
        for _ in 0..<10 {
            value = step(value)
        }
        blackHole(value)
    }
}

/// The least W1 can cost with PromiseKit's object model: the same closure calls, where each
/// of the twelve promises an iteration makes (the first, ten maps, the done) is the two objects
/// that a resolved promise must be, a promise and its sealed box, sized like Pledge's, made and
/// freed one after another as W1 frees them. No handler logic at all. Shown for context, so that
/// readers can tell the cost of the objects the API requires from Pledge's own.
func objectFloorIterations(_ iterations: Int) {
    let step = opaqueClosure { (value: Int) in value &+ 1 }
    for i in 0..<iterations {
        var promise = FloorSealedPromise.make(i)
        for _ in 0..<10 {
            promise = FloorSealedPromise.make(step(promise.box.value))
        }
        blackHole(FloorSealedPromise.make(promise.box.value))
    }
}

/// W1's floor: the object a promise is.
final class FloorSealedPromise: Sendable {
    let box: FloorSealedBox

    init(_ box: FloorSealedBox) {
        self.box = box
    }

    /// A promise and its box on the heap: not inlined, so that the optimiser cannot keep either
    /// on the stack (Pledge's promises escape into the next step, so they cannot be either).
    @inline(never)
    static func make(_ value: Int) -> FloorSealedPromise {
        FloorSealedPromise(FloorSealedBox(value))
    }
}

/// W1's floor: a box born resolved, the size of Pledge's for an `Int` (a result and a state
/// word).
final class FloorSealedBox: Sendable {
    let result: Result<Int, any Error>
    let state: Atomic<UInt32>

    init(_ value: Int) {
        result = .success(value)
        state = Atomic(2)
    }

    var value: Int {
        guard case .success(let value) = result else { return 0 }
        return value
    }
}

/// W2's body: `iterations` times a pending promise, a map, a done, and the fulfilment.
func pendingThenResolveIterations(_ iterations: Int) {
    for i in 0..<iterations {
        let (promise, resolver) = Promise<Int>.pending()
        let done = promise.map(on: nil) { $0 &+ 1 }.done(on: nil) { blackHole($0) }
        resolver.fulfill(i)
        blackHole(done)
    }
}

/// The task-locals of W2c: a request id, as a server names it for its logs.
enum BenchmarkRequest {
    @TaskLocal static var id: String?
}

/// W2c: W2 with a task-local named with `conf.propagate` and bound while the chain is built, so
/// that both handlers carry it: what a server pays per operator for its logs' request id.
func pendingThenResolveInContextIterations(_ iterations: Int) {
    conf.propagate(BenchmarkRequest.$id)
    BenchmarkRequest.$id.withValue("request-7") {
        for i in 0..<iterations {
            let (promise, resolver) = Promise<Int>.pending()
            let done = promise.map(on: nil) { $0 &+ 1 }.done(on: nil) { blackHole($0) }
            resolver.fulfill(i)
            blackHole(done)
        }
    }
}

/// W2n: W2 with the task-local of W2c named but not bound, as in code outside any request: each
/// handler looks for it and carries nothing.
func pendingThenResolveNamedIterations(_ iterations: Int) {
    conf.propagate(BenchmarkRequest.$id)
    pendingThenResolveIterations(iterations)
}

/// W2's baseline: a heap-allocated callback slot, set and then fired.
func callbackSlotIterations(_ iterations: Int) {
    for i in 0..<iterations {
        let slot = CallbackSlot()
        slot.callback = opaqueClosure { (value: Int) in blackHole(value &+ 1) }
        slot.fire(i)
        blackHole(slot)
    }
}

/// `--probe path N`: `map { }.done { }` on a pending promise with the default queues, fulfilled
/// by the thread that attached them, waiting for the end each time: the path a new reader
/// follows first, whose functions `.ci/check-path` counts.
func defaultQueuePathIterations(_ iterations: Int) {
    let finished = DispatchSemaphore(value: 0)
    for i in 0..<iterations {
        let (promise, resolver) = Promise<Int>.pending()
        _ = promise.map { $0 &+ 1 }.done { _ in finished.signal() }
        resolver.fulfill(i)
        finished.wait()
    }
}

/// `--probe map N`: `n` `map(on: nil)` steps on an already-resolved promise.
func mapSteps(_ n: Int) {
    var promise = Promise.value(0)
    for _ in 0..<n {
        promise = promise.map(on: nil) { $0 &+ 1 }
    }
    blackHole(promise)
}

/// `--probe then N`: `n` iterations of a `then(on: nil)` whose body returns a pending promise,
/// fulfilled after the body ran, so the operator's promise follows it (`Box.forward`).
func thenFollowIterations(_ iterations: Int) {
    for i in 0..<iterations {
        let (promise, resolver) = Promise<Int>.pending()
        let (inner, innerResolver) = Promise<Int>.pending()
        let done = promise.then(on: nil) { _ in inner }.done(on: nil) { blackHole($0) }
        resolver.fulfill(i)
        innerResolver.fulfill(i)
        blackHole(done)
    }
}

// MARK: - Baseline helpers

/// The least a callback-based pending value can cost: one object holding one closure. Not
/// thread-safe; see `LockedSlot` for the two-thread baseline.
final class CallbackSlot {
    var callback: ((Int) -> Void)?

    func fire(_ value: Int) {
        callback?(value)
        callback = nil
    }
}

/// Hides a closure from the optimiser so that a baseline cannot be folded away.
@inline(never)
func opaqueClosure<A, B>(_ body: @escaping (A) -> B) -> (A) -> B {
    body
}

/// `count` pending promises and their resolvers, in matching order (W4, W5).
func makePendingPromises(_ count: Int) -> (promises: [Promise<Int>], resolvers: [Resolver<Int>]) {
    var promises: [Promise<Int>] = []
    var resolvers: [Resolver<Int>] = []
    promises.reserveCapacity(count)
    resolvers.reserveCapacity(count)
    for _ in 0..<count {
        let (promise, resolver) = Promise<Int>.pending()
        promises.append(promise)
        resolvers.append(resolver)
    }
    return (promises, resolvers)
}

/// `--probe timeout N` and `--probe timeout-for N`: `n` pending promises, each given a minute
/// with `timeout(seconds:)` or `timeout(for:)` and fulfilled at once, which disarms the timer:
/// the two forms run on the same timers and should count the same.
func timeoutIterations(_ iterations: Int, duration: Bool) {
    for i in 0..<iterations {
        let (promise, resolver) = Promise<Int>.pending()
        let limited = duration ? promise.timeout(for: .seconds(60)) : promise.timeout(seconds: 60)
        resolver.fulfill(i)
        blackHole(limited)
    }
}

/// `--probe await N`: `async()` on a pending promise that a lazy body fulfils as the wait attaches,
/// in one task: the waiter's part of what a server's handler pays to await a chain.
func awaitPendingIterations(_ iterations: Int) {
    runBlocking {
        for i in 0..<iterations {
            let value = try? await Promise<Int>.lazy { seal in seal.fulfill(i) }.async()
            blackHole(value)
        }
    }
}
