import Dispatch
import Pledge
import Synchronization

// W3: every step of a chain hops onto a serial queue, the cost users pay with the default
// `on:` queues. W8: the same hops through a custom `Dispatcher` wrapping a serial queue.

enum QueueWorkloads {
    /// The serial queue W3's steps run on.
    static let serial = DispatchQueue(label: "pledge-bench.w3")

    static func benchmarks(_ scale: Scale) -> [Benchmark] {
        [queueHops(scale), dispatcherHops(scale)]
    }

    /// W8: W3's chain with every step given a custom ``Dispatcher`` that wraps a serial queue,
    /// beside the same chain on that queue directly. Per step, building included.
    static func dispatcherHops(_ scale: Scale) -> Benchmark {
        let steps = scale.pick(full: 10_000, quick: 2_000)
        return Benchmark(
            id: "W8",
            subject: Workload(
                name: "\(steps)-step chain of map(on: custom dispatcher)", unit: "ns/step",
                sample: .sync { dispatcherHopSteps(steps) }),
            baseline: Workload(
                name: "\(steps)-step chain of map(on: its serial queue)", unit: "ns/step",
                sample: .sync { promiseHops(steps) }))
    }

    /// Builds and runs W8's chain; returns nanoseconds per step.
    static func dispatcherHopSteps(_ steps: Int) -> Double {
        let dispatcher = SerialDispatcher(queue: serial)
        return timeUntilFinished(per: steps, expecting: steps, "W8 chain") { completion in
            let (first, resolver) = Promise<Int>.pending()
            var promise = first
            for _ in 0..<steps {
                promise = promise.map(on: dispatcher) { $0 &+ 1 }
            }
            let done = promise.done(on: nil) { completion.finish(with: $0) }
            resolver.fulfill(0)
            return done
        }
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
            references: [objectFloor(steps), AsyncWorkloads.actorHops(steps)])
    }

    /// For W3: the least W3 can cost with PromiseKit's object model, shown for context, as W1's
    /// and W4's floors are. Per step, the calling thread makes the two objects that a `map(on: q)`
    /// step must make (a box sized like Pledge's, holding its queue, and a promise) and links
    /// the box to the one before under that box's lock bit, dropping the step's promise before
    /// the next, as W3's loop does. Then blocks on the queue walk the chain, one block per step
    /// as Pledge dispatches them, each step taking its box's lock bit to set the value, and
    /// freeing the box. No handlers, no trampoline.
    static func objectFloor(_ steps: Int) -> Workload {
        Workload(
            name: "floor: 2 objects/step made here, set and freed on the queue", unit: "ns/step",
            sample: .sync { objectFloorHops(steps) })
    }

    /// Runs W3's floor once; returns nanoseconds per step.
    static func objectFloorHops(_ steps: Int) -> Double {
        timeUntilFinished(per: steps, expecting: steps, "W3 floor") { completion in
            let first = FloorStep(queue: serial)
            var last = first
            var promise = FloorPromise(first)
            for _ in 0..<steps {
                let step = FloorStep(queue: serial)
                last.link(step)
                last = step
                promise = FloorPromise(step)
            }
            // The queue's blocks own the chain from here: each box is freed once it has run.
            let chain = FloorChain(first)
            serial.async { runFloor(chain.take(), value: 0, completion) }
            return promise
        }
    }

    /// Runs one step of W3's floor chain, then hands the rest to a new block.
    private static func runFloor(_ step: FloorStep?, value: Int, _ completion: Completion) {
        guard let step else { return }
        step.set(value)
        guard let next = step.next else {
            completion.finish(with: value)
            return
        }
        let chain = FloorChain(next)
        let resumed = value &+ 1
        serial.async { runFloor(chain.take(), value: resumed, completion) }
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

/// W8's dispatcher: every body is a block on a serial queue, as a user's own wrapper would make.
private struct SerialDispatcher: Dispatcher {
    let queue: DispatchQueue

    func dispatch(_ body: @escaping @Sendable () -> Void) {
        queue.async(execute: body)
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

/// W3's floor: a step's box, the size of Pledge's for a `map(on: q)` on `Int` (88 bytes: a
/// result, a state word with a lock bit, a handler's target and function, an operation, the
/// queue and the box it waits on).
private final class FloorStep: @unchecked Sendable {
    // Safety: `next` is written by the building thread under the lock bit, before the chain is
    // handed to the queue by `async`, which orders that write before every read; `value` and
    // `tag` are written only under the lock bit, by the queue's thread.
    var value = 0
    var tag: UInt8 = 0
    let state = Atomic<UInt32>(0)
    var next: FloorStep?
    var handler: (AnyObject?, AnyObject?) = (nil, nil)
    var operation: (AnyObject?, AnyObject?) = (nil, nil)
    let queue: DispatchQueue
    var source: UnsafeRawPointer?

    init(queue: DispatchQueue) {
        self.queue = queue
    }

    /// Attaches `step` as this box's one handler.
    func link(_ step: FloorStep) {
        state.withFloorLock(publishing: 0) { next = step }
    }

    /// Seals the box with `newValue`.
    func set(_ newValue: Int) {
        state.withFloorLock(publishing: 2) {
            value = newValue
            tag = 1
        }
    }
}

/// W3's floor: hands the rest of a chain to a block without keeping a reference behind.
private final class FloorChain: @unchecked Sendable {
    // Safety: `head` is set by the thread that makes the chain object and taken once by the
    // block it is handed to, after `async` ordered the two.
    private var head: FloorStep?

    init(_ head: FloorStep) { self.head = head }

    func take() -> FloorStep? {
        defer { head = nil }
        return head
    }
}
