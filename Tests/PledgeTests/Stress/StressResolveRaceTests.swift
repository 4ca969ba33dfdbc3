import Pledge
import Testing

/// Many threads try to resolve the same promise at the same instant: exactly one wins, the
/// others are ignored, and everybody agrees on the winner.
@Suite("Stress — many threads resolve one promise at once")
struct StressResolveRaceTests {
    static let resolvers = 8

    /// Encodes an outcome as a non-zero number: thread `t` fulfilling is `t + 1`, rejecting is
    /// `-(t + 1)`. Zero means "nothing seen".
    private static func code(_ result: Result<Int, Error>?) -> Int {
        switch result {
        case .success(let thread)?: return thread + 1
        case .failure(let error)?: return -(((error as? StressReason)?.id ?? -1_000) + 1)
        case nil: return 0
        }
    }

    @Test("exactly one resolution wins a promise, and every thread sees the same one")
    func exactlyOneResolutionWinsAPromise() {
        let rounds = RendezvousScale.scaled(1_000, minimum: 100)
        let pending = (0..<rounds).map { _ in Promise<Int>.pending() }
        // Per round: what the `pipe` handler saw, and how many times each kind of handler ran.
        let seenByHandler = RendezvousCounters(count: rounds)
        let pipeRuns = RendezvousCounters(count: rounds)
        let mapRuns = RendezvousCounters(count: rounds)
        let catchRuns = RendezvousCounters(count: rounds)
        for (round, (promise, _)) in pending.enumerated() {
            promise.pipe { result in
                pipeRuns.add(1, at: round)
                seenByHandler.add(Self.code(result), at: round)
            }
            _ = promise.map(on: nil) { _ in mapRuns.add(1, at: round) }
            promise.catch(on: nil, policy: .allErrors) { _ in catchRuns.add(1, at: round) }
        }
        // Per (round, thread): the outcome that thread read right after its own attempt.
        let seenByThread = RendezvousCounters(count: rounds * Self.resolvers)
        let barrier = RendezvousBarrier(parties: Self.resolvers)

        let finished = RendezvousThreads.run(count: Self.resolvers) { thread in
            for round in 0..<rounds {
                let (promise, resolver) = pending[round]
                barrier.arriveAndWait()
                if thread.isMultiple(of: 2) {
                    resolver.fulfill(thread)
                } else {
                    resolver.reject(StressReason(thread))
                }
                seenByThread.add(Self.code(promise.result), at: round * Self.resolvers + thread)
            }
        }

        #expect(finished, "the threads did not finish in time")
        var disagreements: [Int] = []
        var winners = Set<Int>()
        for round in 0..<rounds {
            let winner = Self.code(pending[round].promise.result)
            winners.insert(winner)
            let agreed =
                winner != 0 && seenByHandler[round] == winner && pipeRuns[round] == 1
                && mapRuns[round] == (winner > 0 ? 1 : 0) && catchRuns[round] == (winner < 0 ? 1 : 0)
                && (0..<Self.resolvers).allSatisfy { seenByThread[round * Self.resolvers + $0] == winner }
            if !agreed { disagreements.append(round) }
        }
        #expect(disagreements.isEmpty, "rounds where the outcome was not unique: \(disagreements.prefix(10))")
        // Different threads won different rounds: the attempts really raced.
        #expect(winners.count > 1)
    }

    @Test("exactly one value wins a guarantee, and every thread sees the same one")
    func exactlyOneValueWinsAGuarantee() {
        let rounds = RendezvousScale.scaled(1_000, minimum: 100)
        let pending = (0..<rounds).map { _ in Guarantee<Int>.pending() }
        let seenByHandler = RendezvousCounters(count: rounds)
        let handlerRuns = RendezvousCounters(count: rounds)
        for (round, (guarantee, _)) in pending.enumerated() {
            guarantee.done(on: nil) { value in
                handlerRuns.add(1, at: round)
                seenByHandler.add(value + 1, at: round)
            }
        }
        let seenByThread = RendezvousCounters(count: rounds * Self.resolvers)
        let barrier = RendezvousBarrier(parties: Self.resolvers)

        let finished = RendezvousThreads.run(count: Self.resolvers) { thread in
            for round in 0..<rounds {
                let (guarantee, resolve) = pending[round]
                barrier.arriveAndWait()
                resolve(thread)
                seenByThread.add((guarantee.value ?? -1) + 1, at: round * Self.resolvers + thread)
            }
        }

        #expect(finished, "the threads did not finish in time")
        var disagreements: [Int] = []
        for round in 0..<rounds {
            let winner = (pending[round].guarantee.value ?? -1) + 1
            let agreed =
                winner != 0 && handlerRuns[round] == 1 && seenByHandler[round] == winner
                && (0..<Self.resolvers).allSatisfy { seenByThread[round * Self.resolvers + $0] == winner }
            if !agreed { disagreements.append(round) }
        }
        #expect(disagreements.isEmpty, "rounds where the value was not unique: \(disagreements.prefix(10))")
    }
}
