import Dispatch
import Pledge

// W9: a chain written on the main actor, as app code is: its handlers run on the main queue,
// isolated to the main actor. The program drains the main queue while the suite runs on another
// thread (see main.swift).

enum MainActorWorkloads {
    static func benchmarks(_ scale: Scale) -> [Benchmark] {
        [mainActorChain(scale)]
    }

    /// W9: a 10-step chain written in a `@MainActor` type, with no `on:`, resolved off the main
    /// queue; beside it, one `DispatchQueue.main.async` per step, each block queueing the next:
    /// its floor. Per step, building included.
    static func mainActorChain(_ scale: Scale) -> Benchmark {
        let rounds = scale.pick(full: 2_000, quick: 200)
        return Benchmark(
            id: "W9",
            subject: Workload(
                name: "\(rounds) x 10-step chain written on the main actor", unit: "ns/step",
                sample: .sync { mainActorSteps(rounds) }),
            baseline: Workload(
                name: "\(rounds) x 10 nested DispatchQueue.main.async", unit: "ns/step",
                sample: .sync { mainQueueHops(rounds) }),
            references: [
                Workload(
                    name: "floor with W9's hand-offs: each 10 blocks sent from another queue", unit: "ns/step",
                    sample: .sync { handedOffMainQueueHops(rounds) })
            ])
    }

    /// Runs W9 once; returns nanoseconds per step.
    static func mainActorSteps(_ rounds: Int) -> Double {
        timeUntilFinished(per: rounds * MainActorChain.steps, expecting: rounds * MainActorChain.steps, "W9 chain") {
            completion in
            let chain = MainActorChain(rounds: rounds, completion)
            DispatchQueue.main.async { MainActor.assumeIsolated { chain.next() } }
            return chain
        }
    }

    /// W9's floor: one main-queue block per step.
    static func mainQueueHops(_ rounds: Int) -> Double {
        let steps = rounds * MainActorChain.steps
        return timeUntilFinished(per: steps, expecting: steps, "W9 floor") { completion in
            DispatchQueue.main.async { hop(0, remaining: steps, completion) }
        }
    }

    /// W9's floor with its hand-offs: per round, the main queue hands off to a global queue,
    /// which starts ten blocks on the main queue, each queueing the next, as W9's rounds do.
    static func handedOffMainQueueHops(_ rounds: Int) -> Double {
        let steps = rounds * MainActorChain.steps
        return timeUntilFinished(per: steps, expecting: steps, "W9 floor with hand-offs") { completion in
            DispatchQueue.main.async { round(0, remaining: rounds, completion) }
        }
    }

    private static func round(_ value: Int, remaining: Int, _ completion: Completion) {
        guard remaining > 0 else {
            completion.finish(with: value)
            return
        }
        DispatchQueue.global().async {
            DispatchQueue.main.async {
                tenHops(value, left: MainActorChain.steps) { round($0, remaining: remaining - 1, completion) }
            }
        }
    }

    private static func tenHops(_ value: Int, left: Int, then next: @escaping @Sendable (Int) -> Void) {
        guard left > 0 else { return next(value) }
        DispatchQueue.main.async { tenHops(value &+ 1, left: left - 1, then: next) }
    }

    private static func hop(_ value: Int, remaining: Int, _ completion: Completion) {
        guard remaining > 0 else {
            completion.finish(with: value)
            return
        }
        DispatchQueue.main.async { hop(value &+ 1, remaining: remaining - 1, completion) }
    }
}

/// W9's app code: a model on the main actor that builds a 10-step chain on a pending promise,
/// has it resolved off the main queue, and builds the next once the last step has run.
@MainActor
final class MainActorChain: Sendable {
    nonisolated static let steps = 10

    private let completion: Completion
    private var remaining: Int
    private var total = 0

    nonisolated init(rounds: Int, _ completion: Completion) {
        self.remaining = rounds
        self.completion = completion
    }

    /// Builds one chain, or reports the total when every round has run.
    func next() {
        guard remaining > 0 else {
            completion.finish(with: total)
            return
        }
        remaining -= 1
        let (first, resolver) = Promise<Int>.pending()
        var promise = first
        for _ in 1..<Self.steps {
            promise = promise.map { value -> Int in
                self.total += 1
                return value &+ 1
            }
        }
        promise.done { _ in
            self.total += 1
            self.next()
        }.catch { _ in }
        DispatchQueue.global().async { resolver.fulfill(0) }
    }
}
