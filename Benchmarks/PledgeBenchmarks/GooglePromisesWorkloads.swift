import Dispatch
import Pledge

// G1 to G4: the shapes google/promises publishes for its own library and for PromiseKit, so
// Pledge's numbers can be set next to theirs. Each against raw GCD doing the same.

enum GooglePromisesWorkloads {
    /// The serial queue of G1 to G3.
    static let serial = DispatchQueue(label: "pledge-bench.google.serial")
    /// The concurrent queue G4's handlers run on.
    static let concurrent = DispatchQueue(label: "pledge-bench.google.concurrent", attributes: .concurrent)

    static func benchmarks(_ scale: Scale) -> [Benchmark] {
        (1...3).map { roundTrip(blocks: $0, scale) } + [resolveMany(scale)]
    }

    /// G1, G2, G3: a resolved promise into `blocks` chained blocks on a serial queue, the
    /// caller waiting on a semaphore until the last one ran; per round trip.
    static func roundTrip(blocks: Int, _ scale: Scale) -> Benchmark {
        let iterations = scale.pick(full: 5_000, quick: 500)
        let shape = blocks == 1 ? "done(on: q)" : "\(blocks - 1) x map(on: q), done(on: q)"
        return Benchmark(
            id: "G\(blocks)",
            subject: Workload(
                name: "value, \(shape), wait", unit: "ns/round trip",
                sample: .sync { promiseRoundTrips(blocks: blocks, iterations) }),
            baseline: Workload(
                name: "\(blocks) chained q.async, wait", unit: "ns/round trip",
                sample: .sync { gcdRoundTrips(blocks: blocks, iterations) }))
    }

    /// G4: `count` pending promises, each with a `done(on: concurrent queue)`, all fulfilled,
    /// until every handler ran; total milliseconds, making the promises included.
    static func resolveMany(_ scale: Scale) -> Benchmark {
        let count = scale.pick(full: 10_000, quick: 2_000)
        return Benchmark(
            id: "G4",
            subject: Workload(
                name: "resolve \(count) pending, handlers on concurrent q", unit: "ms/run",
                sample: .sync { promiseResolveMany(count) }),
            baseline: Workload(
                name: "fire \(count) slots, each q.async to it", unit: "ms/run",
                sample: .sync { gcdResolveMany(count) }))
    }

    // MARK: - Bodies

    static func promiseRoundTrips(blocks: Int, _ iterations: Int) -> Double {
        let arrived = DispatchSemaphore(value: 0)
        return nanoseconds(per: iterations) {
            for i in 0..<iterations {
                var promise = Promise.value(i)
                for _ in 1..<blocks {
                    promise = promise.map(on: serial) { $0 &+ 1 }
                }
                let done = promise.done(on: serial) { value in
                    blackHole(value)
                    arrived.signal()
                }
                arrived.wait()
                blackHole(done)
            }
        }
    }

    static func gcdRoundTrips(blocks: Int, _ iterations: Int) -> Double {
        let arrived = DispatchSemaphore(value: 0)
        return nanoseconds(per: iterations) {
            for i in 0..<iterations {
                serial.async { chain(i, remaining: blocks - 1, arrived) }
                arrived.wait()
            }
        }
    }

    /// One block of the GCD chain: passes the value on to the next block, or signals.
    private static func chain(_ value: Int, remaining: Int, _ arrived: DispatchSemaphore) {
        guard remaining > 0 else {
            blackHole(value)
            arrived.signal()
            return
        }
        serial.async { chain(value &+ 1, remaining: remaining - 1, arrived) }
    }

    static func promiseResolveMany(_ count: Int) -> Double {
        let countdown = Countdown(count)
        let start = now()
        var resolvers: [Resolver<Int>] = []
        resolvers.reserveCapacity(count)
        for _ in 0..<count {
            let (promise, resolver) = Promise<Int>.pending()
            _ = promise.done(on: concurrent) { value in
                blackHole(value)
                countdown.tick()
            }
            resolvers.append(resolver)
        }
        for (index, resolver) in resolvers.enumerated() {
            resolver.fulfill(index)
        }
        countdown.wait()
        return Double(now() - start) / 1_000_000
    }

    static func gcdResolveMany(_ count: Int) -> Double {
        let countdown = Countdown(count)
        let start = now()
        var slots: [CallbackSlot] = []
        slots.reserveCapacity(count)
        for _ in 0..<count {
            let slot = CallbackSlot()
            slot.callback = { value in
                concurrent.async {
                    blackHole(value)
                    countdown.tick()
                }
            }
            slots.append(slot)
        }
        for (index, slot) in slots.enumerated() {
            slot.fire(index)
        }
        countdown.wait()
        return Double(now() - start) / 1_000_000
    }
}
