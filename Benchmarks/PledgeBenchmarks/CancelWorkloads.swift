import Pledge
import Synchronization

// W7: cancelling a pending chain from its end, which walks the cancellation back to the
// producer one link at a time.

enum CancelWorkloads {
    static func benchmarks(_ scale: Scale) -> [Benchmark] {
        [cancelPendingChain(scale)]
    }

    /// W7: `pending()` with an `onCancel` hook, ten `map(on: nil)`, then `cancel()` on the last
    /// one; per link (ten per iteration). The time includes building the chain, as W2's does.
    static func cancelPendingChain(_ scale: Scale) -> Benchmark {
        let iterations = scale.pick(full: 20_000, quick: 2_000)
        let links = iterations * 10
        return Benchmark(
            id: "W7",
            subject: Workload(
                name: "pending + onCancel, 10 x map(on: nil), cancel the end", unit: "ns/link",
                sample: .sync { nanoseconds(per: links) { cancelChainIterations(iterations) } }),
            baseline: Workload(
                name: "floor: 10 linked nodes, each locked and cleared from the end", unit: "ns/link",
                sample: .sync { nanoseconds(per: links) { cancelFloorIterations(iterations) } }))
    }
}

/// W7's body, and `--probe cancel N`: `iterations` pending chains of ten maps, each cancelled
/// from its end back to its producer.
func cancelChainIterations(_ iterations: Int) {
    for _ in 0..<iterations {
        let (head, resolver) = Promise<Int>.pending()
        resolver.onCancel { blackHole(0) }
        var end = head
        for _ in 0..<10 {
            end = end.map(on: nil) { $0 &+ 1 }
        }
        end.cancel()
        blackHole(head.isCancelled)
    }
}

/// W7's floor: what cancelling ten links costs at the least without promises: ten nodes, each
/// an object holding a closure and a pointer to the node before it, then a walk from the last
/// node back to the first that takes each node's lock bit, marks it and drops its closure.
func cancelFloorIterations(_ iterations: Int) {
    for _ in 0..<iterations {
        let head = CancelFloorNode(upstream: nil, work: opaqueClosure { (value: Int) in value &+ 1 })
        var end = head
        for _ in 0..<10 {
            end = CancelFloorNode(upstream: end, work: opaqueClosure { (value: Int) in value &+ 1 })
        }
        var node: CancelFloorNode? = end
        while let current = node {
            node = current.cancel()
        }
        blackHole(head)
    }
}

/// A link of W7's floor.
private final class CancelFloorNode: @unchecked Sendable {
    // Safety: `work` is written only while the lock bit of `state` is held.
    let upstream: CancelFloorNode?
    let state = Atomic<UInt32>(0)
    var work: ((Int) -> Int)?

    init(upstream: CancelFloorNode?, work: @escaping (Int) -> Int) {
        self.upstream = upstream
        self.work = work
    }

    /// Marks the node cancelled under its lock bit and drops its closure; returns the node
    /// before it.
    func cancel() -> CancelFloorNode? {
        while !state.compareExchange(expected: 0, desired: 4, ordering: .acquiring).exchanged {}
        let dropped = work
        work = nil
        state.store(1, ordering: .releasing)
        blackHole(dropped)
        return upstream
    }
}
