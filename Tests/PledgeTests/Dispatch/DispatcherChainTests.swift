import Dispatch
import Pledge
import Synchronization
import Testing

/// The dispatchers that limit or drop work, used as operators' `on:`.
@Suite struct DispatcherChainTests {
    @Test func anOperatorOnAnInvalidatedQueueRejectsWithCancelledAndNeverRuns() {
        let queue = InvalidatableQueue(queue: DispatchQueue(label: "chain.invalidated"))
        queue.invalidate()
        let (head, resolver) = Promise<Int>.pending()
        let hooks = Atomic<Int>(0)
        resolver.onCancel { hooks.add(1, ordering: .relaxed) }
        let ran = Atomic<Int>(0)
        let end = head.map(on: queue) { value -> Int in
            ran.add(1, ordering: .relaxed)
            return value
        }

        resolver.fulfill(1)

        #expect(end.settledError() as? PMKError == .cancelled)
        #expect(ran.load(ordering: .relaxed) == 0)
        #expect(head.value == 1)
        #expect(hooks.load(ordering: .relaxed) == 0)
    }

    @Test func workQueuedBeforeInvalidationIsDroppedAndRejected() {
        let inner = DispatchQueue(label: "chain.invalidated-later")
        let queue = InvalidatableQueue(queue: inner)
        let blocker = DispatchSemaphore(value: 0)
        inner.async { blocker.wait() }
        let ran = Atomic<Int>(0)
        let end = Promise.value(1).map(on: queue) { value -> Int in
            ran.add(1, ordering: .relaxed)
            return value
        }

        queue.invalidate()
        blocker.signal()

        #expect(end.settledError() as? PMKError == .cancelled)
        #expect(ran.load(ordering: .relaxed) == 0)
    }

    @Test func aGuaranteesOperatorOnAnInvalidatedQueueStaysPendingAndIsFreed() {
        let queue = InvalidatableQueue(queue: DispatchQueue(label: "chain.invalidated-guarantee"))
        queue.invalidate()
        let counter = LifetimeCounter()
        weak var weakEnd: Guarantee<Int>?
        do {
            let tracker = LifetimeTracker(counter)
            let end = Guarantee.value(1).map(on: queue) { value -> Int in
                tracker.touch()
                return value
            }
            weakEnd = end
            // Dropped at once (the queue was invalidated before): nothing will resolve it.
            #expect(end.isPending)
        }
        // Released, with the closure, and nothing logged: it has no resolver to complain.
        #expect(weakEnd == nil)
        #expect(counter.alive == 0)
    }

    @Test func aConcurrencyLimitedChainRunsEveryStepInOrder() {
        let dispatcher = ConcurrencyLimitedDispatcher(limit: 2, queue: .global())
        var end = Promise.value(0)
        for _ in 0..<100 { end = end.map(on: dispatcher) { $0 + 1 } }

        #expect(end.settledValue() == 100)
    }

    @Test func aRateLimitedChainRunsEveryStep() {
        let dispatcher = RateLimitedDispatcher(maxDispatches: 50, perInterval: .milliseconds(10), queue: .global())
        var end = Promise.value(0)
        for _ in 0..<20 { end = end.map(on: dispatcher) { $0 + 1 } }

        #expect(end.settledValue() == 20)
    }
}
