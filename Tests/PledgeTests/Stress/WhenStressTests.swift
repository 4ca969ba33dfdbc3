import Dispatch
import Pledge
import Synchronization
import Testing

/// `when` and `race` with inputs resolved from many threads at once; meant for
/// `swift test --sanitize=thread --filter Stress`.
@Suite struct WhenStressTests {
    private static let count = 10_000

    /// Pending promises and their resolvers.
    private func pendingPromises(_ count: Int) -> (promises: [Promise<Int>], resolvers: [Resolver<Int>]) {
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

    @Test func tenThousandPromisesFulfilledFromAConcurrentQueue() {
        let (promises, resolvers) = pendingPromises(Self.count)
        let all = when(fulfilled: promises)

        DispatchQueue.concurrentPerform(iterations: Self.count) { index in
            resolvers[index].fulfill(index)
        }

        #expect(all.comboValue() == Array(0..<Self.count))
    }

    @Test func attachingWhileOtherThreadsFulfil() {
        // The inputs are fulfilled while `when` is still attaching to them.
        let (promises, resolvers) = pendingPromises(Self.count)
        let fulfilled = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            DispatchQueue.concurrentPerform(iterations: Self.count) { index in
                resolvers[index].fulfill(index)
            }
            fulfilled.signal()
        }

        let all = when(fulfilled: promises)

        #expect(fulfilled.wait(timeout: .now() + comboTimeout) == .success)
        #expect(all.comboValue() == Array(0..<Self.count))
    }

    @Test func oneRejectionAmongTenThousandConcurrentFulfilments() {
        let (promises, resolvers) = pendingPromises(Self.count)
        let all = when(fulfilled: promises)
        let failing = Self.count / 2

        DispatchQueue.concurrentPerform(iterations: Self.count) { index in
            if index == failing {
                resolvers[index].reject(ComboError.numbered(index))
            } else {
                resolvers[index].fulfill(index)
            }
        }

        #expect(all.comboError() as? ComboError == .numbered(failing))
    }

    @Test func resolvedCollectsTenThousandConcurrentResults() {
        let (promises, resolvers) = pendingPromises(Self.count)
        let all = when(resolved: promises)

        DispatchQueue.concurrentPerform(iterations: Self.count) { index in
            if index.isMultiple(of: 3) {
                resolvers[index].reject(ComboError.numbered(index))
            } else {
                resolvers[index].fulfill(index)
            }
        }

        let results = all.comboValue() ?? []
        #expect(results.count == Self.count)
        #expect(
            results.enumerated().allSatisfy { index, result in
                (try? result.get()) == (index.isMultiple(of: 3) ? nil : index)
            })
    }

    @Test func theConcurrencyLimitHoldsWhenInputsResolveOnManyThreads() {
        let total = 2_000
        let limit = 4
        let active = Atomic<Int>(0)
        let peak = Atomic<Int>(0)
        let pulls = Atomic<Int>(0)
        let queue = DispatchQueue(label: "when-stress.workers", attributes: .concurrent)

        let iterator = AnyIterator { () -> Promise<Int>? in
            let index = pulls.add(1, ordering: .sequentiallyConsistent).newValue - 1
            guard index < total else { return nil }
            let now = active.add(1, ordering: .sequentiallyConsistent).newValue
            peak.max(now, ordering: .sequentiallyConsistent)
            let (promise, resolver) = Promise<Int>.pending()
            queue.async {
                active.subtract(1, ordering: .sequentiallyConsistent)
                resolver.fulfill(index)
            }
            return promise
        }

        let all = when(fulfilled: iterator, concurrently: limit)

        #expect(all.comboValue() == Array(0..<total))
        #expect(peak.load(ordering: .sequentiallyConsistent) <= limit)
    }

    @Test func tuplesAndGuaranteesResolvedConcurrently() {
        for _ in 0..<200 {
            let (a, resolveA) = Promise<Int>.pending()
            let (b, resolveB) = Promise<String>.pending()
            let (c, resolveC) = Guarantee<Double>.pending()
            let all = when(fulfilled: a, b, c)
            let guarantees = when(guarantees: [c, c, c])

            DispatchQueue.concurrentPerform(iterations: 3) { index in
                switch index {
                case 0: resolveA.fulfill(1)
                case 1: resolveB.fulfill("b")
                default: resolveC(3)
                }
            }

            #expect(all.comboValue().map { "\($0.0)\($0.1)\($0.2)" } == "1b3.0")
            #expect(guarantees.comboValue() == [3, 3, 3])
        }
    }

    @Test func raceHasExactlyOneWinnerAmongConcurrentFulfilments() {
        let racers = 1_000
        let (promises, resolvers) = pendingPromises(racers)
        let winner = race(promises)
        let firstFulfilled = race(fulfilled: promises)

        DispatchQueue.concurrentPerform(iterations: racers) { index in
            resolvers[index].fulfill(index)
        }

        let value = winner.comboValue()
        #expect(value.map { (0..<racers).contains($0) } == true)
        #expect(firstFulfilled.comboValue().map { (0..<racers).contains($0) } == true)
        // Every loser kept running to its own result.
        #expect(promises.allSatisfy { $0.isFulfilled })
    }

    @Test func raceFulfilledReportsNoWinnerOnceWhenEveryoneRejectsConcurrently() {
        for _ in 0..<100 {
            let (promises, resolvers) = pendingPromises(16)
            let winner = race(fulfilled: promises)
            let reports = Atomic<Int>(0)
            let reported = winner.catch(on: nil, policy: .allErrors) { _ in
                reports.add(1, ordering: .sequentiallyConsistent)
            }

            DispatchQueue.concurrentPerform(iterations: 16) { index in
                resolvers[index].reject(ComboError.numbered(index))
            }

            #expect(comboIsPMKError(winner.comboResult(), .noWinner))
            let finished = DispatchSemaphore(value: 0)
            reported.finally(on: nil) { finished.signal() }
            #expect(finished.wait(timeout: .now() + comboTimeout) == .success)
            #expect(reports.load(ordering: .sequentiallyConsistent) == 1)
        }
    }
}
