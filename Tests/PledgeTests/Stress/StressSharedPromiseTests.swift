import Dispatch
import Pledge
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Twenty threads attach handlers to one pending promise while another thread resolves it,
/// round after round.
///
/// A barrier releases all twenty-one threads at once each round. Each attaching thread attaches
/// the first half of its handlers, then waits until the promise reports that it is resolved
/// and attaches the second half. The resolving thread waits for all the first halves, adds one
/// handler that yields the processor, and resolves. So every round has handlers stored while
/// pending, handlers attached while the resolving thread is still running earlier ones, and
/// handlers attached after everything has run.
@Suite("Stress — many threads attach to one promise while it resolves")
struct StressSharedPromiseTests {
    /// How the attaching threads attach their handlers.
    enum Mix: String, CaseIterable, Sendable, CustomStringConvertible {
        /// Only `pipe`: the primitive, which always goes through the box's handler list.
        case pipeOnly
        /// `pipe`, `map(on: nil)`, `done(on: nil)`, `tap(on: nil)` and `catch(on: nil)` in turn.
        case mixed
        /// As `mixed`, on a promise that a block on a serial queue fulfils (in even rounds) and
        /// whose first handler, for that queue, waits as the block's tail while the others run
        /// and more are attached.
        case mixedWithATail

        var description: String { rawValue }
    }

    /// What one run of ``run(mix:)`` observed.
    struct Report {
        var finished: Bool
        /// Handlers that did not run exactly as often as they should (once, or never for a
        /// handler of the other outcome): `(round, thread, handler, runs)`.
        var miscounted: [(Int, Int, Int, Int)]
        /// Handlers that were given another result than the round's.
        var wrongResults: Int
        /// Handlers that ran after a handler their thread attached later.
        var outOfOrder: Int
    }

    static let attachers = 20
    static let handlersPerThread = 25
    /// How many handlers each thread attaches before the promise is resolved.
    static let firstHalf = handlersPerThread / 2

    @Test("every handler runs exactly once, with the round's result", arguments: Mix.allCases)
    func everyHandlerRunsExactlyOnce(mix: Mix) {
        let report = Self.run(mix: mix)

        #expect(report.finished, "the threads did not finish in time")
        #expect(report.wrongResults == 0)
        #expect(report.miscounted.isEmpty, "(round, thread, handler, runs): \(report.miscounted.prefix(10))")
    }

    /// With `.mixed`, an `on: nil` operator attached while the promise is still running earlier
    /// handlers must queue behind them, not run at once (see
    /// `APlus2_2_6HandlerOrderTests.inlineHandlersAttachedWhileFiringDoNotOvertake`).
    @Test("handlers attached by one thread run in the order that thread attached them", arguments: Mix.allCases)
    func handlersOfOneThreadRunInItsOrder(mix: Mix) {
        let report = Self.run(mix: mix)

        #expect(report.finished, "the threads did not finish in time")
        #expect(report.outOfOrder == 0, "handlers that overtook one attached earlier by the same thread")
    }

    /// Runs the rounds. Even rounds fulfil, odd rounds reject.
    static func run(mix: Mix) -> Report {
        let rounds = RendezvousScale.scaled(200, minimum: 20)
        let perRound = attachers * handlersPerThread
        precondition(firstHalf > 0 && firstHalf < handlersPerThread)
        let pending = (0..<rounds).map { _ in Promise<Int>.pending() }
        let tailQueue = DispatchQueue(label: "stress.shared-promise.tail")
        let promises =
            mix == .mixedWithATail
            ? pending.map { gate in
                let promise = gate.promise.map(on: tailQueue) { $0 }
                promise.done(on: tailQueue) { _ in }.ignoreErrors()
                return promise
            }
            : pending.map(\.promise)
        let resolvers = pending.map(\.resolver)
        // One counter per handler: how many times it ran.
        let runs = RendezvousCounters(count: rounds * perRound)
        // One counter per (round, thread): one more than the index of the last handler that ran.
        let progress = RendezvousCounters(count: rounds * attachers)
        // One counter per round: how many handlers are attached so far.
        let attached = RendezvousCounters(count: rounds)
        let wrongResults = RendezvousTally()
        let outOfOrder = RendezvousTally()
        let barrier = RendezvousBarrier(parties: attachers + 1)

        let finished = RendezvousThreads.run(count: attachers + 1) { thread in
            for round in 0..<rounds {
                barrier.arriveAndWait()
                let promise = promises[round]
                if thread == attachers {
                    // The resolver: wait for the first halves, then resolve.
                    var spins = 0
                    while attached[round] < attachers * firstHalf {
                        spins += 1
                        if spins > 64 { sched_yield() }
                    }
                    // A handler that gives the processor away a few times keeps the promise
                    // in its "still running handlers" phase long enough for the attachers to
                    // run during it, even on two cores.
                    promise.pipe { _ in
                        for _ in 0..<4 { sched_yield() }
                    }
                    if round.isMultiple(of: 2) {
                        resolvers[round].fulfill(round)
                    } else {
                        resolvers[round].reject(StressReason(round))
                    }
                    continue
                }
                for handler in 0..<handlersPerThread {
                    if handler == firstHalf {
                        // Start the second half as soon as resolution has begun.
                        var spins = 0
                        while promise.isPending {
                            spins += 1
                            if spins > 64 { sched_yield() }
                        }
                    }
                    let slot = (round * attachers + thread) * handlersPerThread + handler
                    let orderSlot = round * attachers + thread
                    @Sendable func ran(_ result: Result<Int, Error>) {
                        switch result {
                        case .success(let value) where value == round: break
                        case .failure(let error as StressReason) where error.id == round: break
                        default: wrongResults.add()
                        }
                        runs.add(1, at: slot)
                        // Move this thread's progress mark to just past this handler; if it was
                        // already past, a handler attached later ran first.
                        var seen = progress[orderSlot]
                        while case (false, let original) = progress.compareExchange(
                            at: orderSlot, expected: seen, desired: max(seen, handler + 1))
                        {
                            seen = original
                        }
                        if seen > handler { outOfOrder.add() }
                    }
                    attach(kindOf: handler, mix: mix, to: promise, ran)
                    attached.add(1, at: round)
                }
            }
        }

        var report = Report(
            finished: finished, miscounted: [], wrongResults: wrongResults.total, outOfOrder: outOfOrder.total)
        for round in 0..<rounds {
            let fulfilled = round.isMultiple(of: 2)
            for thread in 0..<attachers {
                for handler in 0..<handlersPerThread {
                    let slot = (round * attachers + thread) * handlersPerThread + handler
                    let expected = runsFor(kindOf: handler, mix: mix, fulfilled: fulfilled)
                    if runs[slot] != expected {
                        report.miscounted.append((round, thread, handler, runs[slot]))
                    }
                }
            }
        }
        return report
    }

    /// Attaches handler number `index` of a thread with the operator `mix` picks for it.
    private static func attach(
        kindOf index: Int, mix: Mix, to promise: Promise<Int>,
        _ ran: @escaping @Sendable (Result<Int, Error>) -> Void
    ) {
        switch (mix, index % 5) {
        case (.pipeOnly, _), (_, 0): promise.pipe(to: ran)
        case (_, 1): _ = promise.map(on: nil) { ran(.success($0)) }
        case (_, 2): _ = promise.done(on: nil) { ran(.success($0)) }
        case (_, 3): _ = promise.tap(on: nil, ran)
        default: promise.catch(on: nil, policy: .allErrors) { ran(.failure($0)) }
        }
    }

    /// How many times handler number `index` should run.
    private static func runsFor(kindOf index: Int, mix: Mix, fulfilled: Bool) -> Int {
        switch (mix, index % 5) {
        case (.pipeOnly, _), (_, 0), (_, 3): return 1
        case (_, 1), (_, 2): return fulfilled ? 1 : 0
        default: return fulfilled ? 0 : 1
        }
    }
}
