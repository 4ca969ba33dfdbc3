import Dispatch
import Pledge
import Synchronization
import Testing

/// Threads cancel, resolve and attach to the same promises at the same instant: exactly one
/// outcome wins each promise, `onCancel` runs exactly when the cancellation won, and every
/// handler runs exactly once. Meant to run under ThreadSanitizer and AddressSanitizer.
@Suite("Stress — cancel racing resolution, attachment and abandonment")
struct StressCancelTests {
    /// Thread 0 cancels, thread 1 fulfils, thread 2 rejects, thread 3 attaches; all at once.
    static let threads = 4

    @Test("cancel racing fulfil, reject and attach: one outcome, onCancel iff it was the cancellation")
    func cancelRacingResolutionAndAttachment() {
        let rounds = RendezvousScale.scaled(1_000, minimum: 100)
        let pending = (0..<rounds).map { _ in Promise<Int>.pending() }
        let hooks = RendezvousCounters(count: rounds)
        let pipeRuns = RendezvousCounters(count: rounds)
        let lateRuns = RendezvousCounters(count: rounds)
        let mapClosureRuns = RendezvousCounters(count: rounds)
        let mapOutcomes = RendezvousCounters(count: rounds)
        for (round, (promise, resolver)) in pending.enumerated() {
            resolver.onCancel { hooks.add(1, at: round) }
            promise.pipe { _ in pipeRuns.add(1, at: round) }
            promise.map(on: nil) { _ in mapClosureRuns.add(1, at: round) }.pipe { result in
                mapOutcomes.add(result.isCancellation ? 2 : 1, at: round)
            }
        }
        let barrier = RendezvousBarrier(parties: Self.threads)

        let finished = RendezvousThreads.run(count: Self.threads) { thread in
            for round in 0..<rounds {
                let (promise, resolver) = pending[round]
                barrier.arriveAndWait()
                switch thread {
                case 0: promise.cancel()
                case 1: resolver.fulfill(round)
                case 2: resolver.reject(StressReason(thread))
                default: promise.catch(on: nil, policy: .allErrors) { _ in lateRuns.add(1, at: round) }
                }
            }
        }

        #expect(finished, "the threads did not finish in time")
        var wrong: [Int] = []
        var kinds = Set<Int>()
        for round in 0..<rounds {
            let result = pending[round].promise.result
            let cancelled = result?.isCancellation == true
            let fulfilled = (try? result?.get()) != nil
            kinds.insert(cancelled ? 0 : fulfilled ? 1 : 2)
            let right =
                result != nil && hooks[round] == (cancelled ? 1 : 0) && pipeRuns[round] == 1
                && lateRuns[round] == (fulfilled ? 0 : 1) && mapClosureRuns[round] == (fulfilled ? 1 : 0)
                && mapOutcomes[round] == (cancelled ? 2 : 1)
            if !right { wrong.append(round) }
        }
        #expect(wrong.isEmpty, "rounds with a wrong count: \(wrong.prefix(10))")
        // Cancellation won some rounds and lost others: the attempts really raced.
        #expect(kinds.count > 1)
    }

    @Test("cancelling a chain's end while its head resolves: every closure runs at most once, the end settles once")
    func cancelRacingTheHeadOfAChain() {
        let rounds = RendezvousScale.scaled(1_000, minimum: 100)
        let links = 8
        let pending = (0..<rounds).map { _ in Promise<Int>.pending() }
        let closureRuns = RendezvousCounters(count: rounds * links)
        let endRuns = RendezvousCounters(count: rounds)
        let hooks = RendezvousCounters(count: rounds)
        let ends: [Promise<Int>] = pending.enumerated().map { round, pair in
            pair.resolver.onCancel { hooks.add(1, at: round) }
            var end = pair.promise
            for link in 0..<links {
                let slot = round * links + link
                end =
                    link.isMultiple(of: 2)
                    ? end.map(on: nil) { value in
                        closureRuns.add(1, at: slot)
                        return value
                    }
                    : end.then(on: nil) { value in
                        closureRuns.add(1, at: slot)
                        return Promise.value(value)
                    }
            }
            end.pipe { _ in endRuns.add(1, at: round) }
            return end
        }
        let barrier = RendezvousBarrier(parties: 2)

        let finished = RendezvousThreads.run(count: 2) { thread in
            for round in 0..<rounds {
                barrier.arriveAndWait()
                if thread == 0 { ends[round].cancel() } else { pending[round].resolver.fulfill(round) }
            }
        }

        #expect(finished, "the threads did not finish in time")
        var wrong: [Int] = []
        for round in 0..<rounds {
            let headCancelled = pending[round].promise.isCancelled
            let runs = (0..<links).map { closureRuns[round * links + $0] }
            // Each closure ran at most once, and only in a prefix of the chain.
            let prefix = runs.prefix { $0 == 1 }.count
            let right =
                runs.allSatisfy { $0 <= 1 } && runs.dropFirst(prefix).allSatisfy { $0 == 0 } && endRuns[round] == 1
                && hooks[round] == (headCancelled ? 1 : 0) && (!headCancelled || prefix == 0)
                && ends[round].isResolved
            if !right { wrong.append(round) }
        }
        #expect(wrong.isEmpty, "rounds with a wrong count: \(wrong.prefix(10))")
    }
}

extension Result {
    fileprivate var isCancellation: Bool {
        if case .failure(let error) = self { return error.isCancelled }
        return false
    }
}

extension ConfigurationTests {
    /// In the serialized suite: abandoning a promise logs, and the log is captured.
    @Suite("Stress — cancel racing the abandonment of the promise it depends on")
    struct StressCancelAbandonTests {
        @Test("cancel racing the abandonment of the promise it depends on")
        func cancelRacingAbandonment() {
            let rounds = RendezvousScale.scaled(2_000, minimum: 200)
            let counter = LifetimeCounter()
            var resolvers: [Resolver<Int>?] = []
            let ends: [Promise<Int>] = (0..<rounds).map { _ in
                let (head, resolver) = Promise<Int>.pending()
                let tracker = LifetimeTracker(counter)
                resolvers.append(resolver)
                return head.map(on: nil) { value in
                    tracker.touch()
                    return value
                }
            }
            let heads = Locked(resolvers)
            resolvers = []
            let barrier = RendezvousBarrier(parties: 2)

            // Each abandoned head logs `pendingPromiseDeallocated`: captured, not printed.
            let finished = LogCapture.capture { _ in
                RendezvousThreads.run(count: 2) { thread in
                    for round in 0..<rounds {
                        barrier.arriveAndWait()
                        if thread == 0 {
                            ends[round].cancel()
                        } else {
                            // Drops the last reference to the head: it is freed unresolved.
                            let resolver = heads.withLock { $0[round].take() }
                            _ = resolver
                        }
                    }
                }
            }

            #expect(finished, "the threads did not finish in time")
            #expect(ends.allSatisfy { $0.isCancelled })
            #expect(counter.alive == 0)
        }

        @Test("cancelling a when while its inputs are fulfilled and abandoned")
        func cancelRacingAWhensInputs() {
            let rounds = RendezvousScale.scaled(2_000, minimum: 200)
            var fulfilled: [Resolver<Int>] = []
            var abandoned: [Resolver<Int>?] = []
            let hooks = RendezvousCounters(count: rounds)
            var waiting: [Promise<Int>] = []
            // Kept, so that none is released pending (which would log); all end cancelled.
            var kept: [Resolver<Int>] = []
            let alls: [Promise<[Int]>] = (0..<rounds).map { round in
                let a = Promise<Int>.pending()
                let b = Promise<Int>.pending()
                let c = Promise<Int>.pending()
                c.resolver.onCancel { hooks.add(1, at: round) }
                fulfilled.append(a.resolver)
                abandoned.append(b.resolver)
                waiting.append(c.promise)
                kept.append(c.resolver)
                return when(fulfilled: [a.promise, b.promise, c.promise])
            }
            let toFulfil = fulfilled
            let toAbandon = Locked(abandoned)
            abandoned = []
            let barrier = RendezvousBarrier(parties: 3)

            let finished = LogCapture.capture { _ in
                RendezvousThreads.run(count: 3) { thread in
                    for round in 0..<rounds {
                        barrier.arriveAndWait()
                        switch thread {
                        case 0: alls[round].cancel()
                        case 1: toFulfil[round].fulfill(round)
                        default:
                            let resolver = toAbandon.withLock { $0[round].take() }
                            _ = resolver
                        }
                    }
                }
            }

            #expect(finished, "the threads did not finish in time")
            #expect(alls.allSatisfy { $0.isCancelled })
            #expect(waiting.allSatisfy { $0.isCancelled })
            #expect((0..<rounds).allSatisfy { hooks[$0] == 1 })
            withExtendedLifetime(kept) {}
        }
    }
}

extension StressCancelTests {
    /// `cancel()` racing a queued `then` whose closure returns a pending promise: the cancel may
    /// take back the handler the `then`'s box attached to that promise while the box is still
    /// finishing its operation. Taking it back touches only the link, never the operation (a
    /// race ThreadSanitizer reports), and whenever the closure ran, the promise it returned ends
    /// cancelled, since its only would-be dependent is.
    @Test("cancel racing a then that follows the pending promise its closure returned")
    func cancelRacingFollow() {
        let rounds = RendezvousScale.scaled(2_000, minimum: 200)
        let queue = DispatchQueue(label: "stress.cancel-racing-follow")
        for _ in 0..<rounds {
            let (inner, _) = Promise<Int>.pending()
            let (gate, open) = Promise<Void>.pending()
            let called = Atomic<Bool>(false)
            let outer = gate.then(on: queue) { () -> Promise<Int> in
                called.store(true, ordering: .relaxed)
                return inner
            }
            let go = DispatchSemaphore(value: 0)
            let finished = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                go.wait()
                outer.cancel()
                finished.signal()
            }
            open.fulfill(())
            go.signal()
            #expect(finished.wait(timeout: .testTimeout) == .success)
            queue.sync {}
            #expect(outer.isCancelled)
            if called.load(ordering: .relaxed) {
                #expect(inner.isCancelled, "the promise the closure returned outlived its only dependent")
            }
        }
    }
}
