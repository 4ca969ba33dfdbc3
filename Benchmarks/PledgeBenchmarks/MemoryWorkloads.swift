import Pledge

// W6: what a pending promise costs in memory while it waits, which bounds how many a server can
// keep in flight.

enum MemoryWorkloads {
    static func benchmarks(_ scale: Scale) -> [Benchmark] {
        guard HeapGauge.source != nil else {
            Console.out("note: W6 skipped: no way to measure the heap on this platform")
            return []
        }
        let count = scale.pick(full: 1_000_000, quick: 100_000)
        return [
            memory(id: "W6", name: "pending promise + done(on: nil) handler", count: count) {
                _ = $0.done(on: nil) { blackHole($0) }
            },
            memory(id: "W6p", name: "pending promise + pipe(to:) handler", count: count) {
                $0.pipe { blackHole($0) }
            },
        ]
    }

    /// Heap bytes per pending promise with the handler `attach` adds, over `count` promises.
    ///
    /// Counted: everything the loop allocates and keeps, that is, the promise, its resolver,
    /// its box, the stored handler and what the handler holds (for `done`, the box of the
    /// promise it returns; the returned `Promise` object itself is dropped, as callers usually
    /// do). Measured a few times without warm-up: the numbers barely move.
    private static func memory(
        id: String, name: String, count: Int, attach: @escaping (Promise<Int>) -> Void
    ) -> Benchmark {
        Benchmark(
            id: id,
            subject: Workload(
                name: "\(name), x\(count)", unit: "B/promise",
                sample: .sync { bytesPerPendingPromise(count, attach: attach) }),
            baseline: Workload(
                name: "callback slot holding one closure", unit: "B/slot",
                sample: .sync { bytesPerCallbackSlot(count) }),
            warmUp: false,
            maxRepetitions: 3)
    }

    private static func bytesPerPendingPromise(_ count: Int, attach: (Promise<Int>) -> Void) -> Double {
        var promises: [Promise<Int>] = []
        var resolvers: [Resolver<Int>] = []
        promises.reserveCapacity(count)
        resolvers.reserveCapacity(count)
        HeapGauge.settle()
        guard let before = HeapGauge.bytesInUse() else { return 0 }
        for _ in 0..<count {
            let (promise, resolver) = Promise<Int>.pending()
            attach(promise)
            promises.append(promise)
            resolvers.append(resolver)
        }
        let after = HeapGauge.bytesInUse() ?? before
        // Settle every promise before letting go, so none is logged as deallocated while pending.
        for (index, resolver) in resolvers.enumerated() {
            resolver.fulfill(index)
        }
        blackHole(promises)
        return Double(after - before) / Double(count)
    }

    /// W6's baseline: a minimal pending value, one object with one closure (which captures
    /// nothing, as W6's handlers do not).
    private static func bytesPerCallbackSlot(_ count: Int) -> Double {
        var slots: [CallbackSlot] = []
        slots.reserveCapacity(count)
        HeapGauge.settle()
        guard let before = HeapGauge.bytesInUse() else { return 0 }
        for _ in 0..<count {
            let slot = CallbackSlot()
            slot.callback = { blackHole($0) }
            slots.append(slot)
        }
        let after = HeapGauge.bytesInUse() ?? before
        for (index, slot) in slots.enumerated() {
            slot.fire(index)
        }
        return Double(after - before) / Double(count)
    }
}
