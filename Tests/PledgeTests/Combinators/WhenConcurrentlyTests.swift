import Pledge
import Testing

@Suite struct WhenConcurrentlyTests {
    @Test func theLimitIsReachedAtOnceAndNeverExceeded() {
        let source = ComboPendingSource(count: 10)
        let all = when(fulfilled: source.makeIterator(), concurrently: 3)

        #expect(source.pulls == 3)
        for index in 0..<10 {
            source.fulfil(index)
            // Each fulfilment frees one place, which is filled at once while inputs remain.
            #expect(source.pulls == min(10, index + 4))
        }

        #expect(source.peak == 3)
        #expect(all.value == Array(0..<10))
    }

    @Test func valuesComeBackInIterationOrderWhateverTheOrderOfFulfilment() {
        let source = ComboPendingSource(count: 4)
        let all = when(fulfilled: source.makeIterator(), concurrently: 4)

        for index in [3, 1, 2, 0] { source.fulfil(index) }

        #expect(all.value == [0, 1, 2, 3])
    }

    @Test func theIteratorIsNotPulledAfterARejection() {
        let source = ComboPendingSource(count: 10)
        let all = when(fulfilled: source.makeIterator(), concurrently: 2)

        source.reject(1)
        #expect(all.error as? ComboError == .numbered(1))
        #expect(source.pulls == 2)

        // Inputs already pulled keep running, but free places are not filled any more.
        source.fulfil(0)
        #expect(source.pulls == 2)
    }

    @Test func anInlineRejectionStopsThePullingAtOnce() {
        let pulls = Locked(0)
        let iterator = AnyIterator { () -> Promise<Int>? in
            let index = pulls.withLock { count -> Int in
                count += 1
                return count - 1
            }
            return index == 2 ? Promise(error: ComboError.numbered(2)) : Promise.value(index)
        }

        let all = when(fulfilled: iterator, concurrently: 5)

        #expect(all.error as? ComboError == .numbered(2))
        #expect(pulls.withLock { $0 } == 3)
    }

    @Test(arguments: [0, -1, Int.min])
    func aLimitBelowOneRejectsWithBadInputWithoutPulling(limit: Int) {
        let source = ComboPendingSource(count: 3)

        let all = when(fulfilled: source.makeIterator(), concurrently: limit)

        #expect(comboIsPMKError(all.result, .badInput))
        #expect(source.pulls == 0)
    }

    @Test func anEmptyIteratorIsFulfilledWithAnEmptyArrayAtOnce() {
        let all = when(fulfilled: [Promise<Int>]().makeIterator(), concurrently: 2)

        #expect(all.value == [])
    }

    @Test func aLimitAboveTheCountPullsEverything() {
        let source = ComboPendingSource(count: 3)
        let all = when(fulfilled: source.makeIterator(), concurrently: 100)

        #expect(source.pulls == 3)
        for index in 0..<3 { source.fulfil(index) }
        #expect(all.value == [0, 1, 2])
    }

    @Test func manyResolvedInputsAreConsumedWithoutRecursion() {
        let count = 100_000
        let iterator = (0..<count).lazy.map { Promise.value($0) }.makeIterator()

        let all = when(fulfilled: iterator, concurrently: 1)

        #expect(all.value?.count == count)
        #expect(all.value?.last == count - 1)
    }

    // MARK: when(resolved:concurrently:)

    @Test func resolvedKeepsPullingAfterARejectionAndRespectsTheLimit() {
        let source = ComboPendingSource(count: 5)
        let all = when(resolved: source.makeIterator(), concurrently: 2)

        #expect(source.pulls == 2)
        source.reject(0)
        #expect(source.pulls == 3)
        for index in 1..<5 { index.isMultiple(of: 2) ? source.reject(index) : source.fulfil(index) }

        #expect(source.peak == 2)
        let results = all.value ?? []
        #expect(results.map { try? $0.get() } == [nil, 1, nil, 3, nil])
        let errors = results.compactMap { result -> ComboError? in
            guard case .failure(let error) = result else { return nil }
            return error as? ComboError
        }
        #expect(errors == [.numbered(0), .numbered(2), .numbered(4)])
    }

    /// The result cannot fail, so a limit below 1 counts as 1 (and is logged, see
    /// `WhenConcurrentlyLogTests`): every input still gets its result. (This once gave a single
    /// `badInput` result, whatever the number of inputs.)
    @Test(arguments: [0, -3])
    func resolvedWithALimitBelowOneWaitsForOneAtATime(limit: Int) {
        let source = ComboPendingSource(count: 3)

        let all = when(resolved: source.makeIterator(), concurrently: limit)

        #expect(source.pulls == 1)
        source.fulfil(0)
        #expect(source.pulls == 2)
        source.reject(1)
        source.fulfil(2)
        #expect(source.peak == 1)
        let results = all.value ?? []
        #expect(results.map { try? $0.get() } == [0, nil, 2])
    }

    /// The same for the lazy form: a second call neither frees a place under the limit nor ends
    /// the wait early.
    @Test func aThenableThatCallsBackTwiceCountsOnce() {
        let twice = ForeignThenable<Int>(callingEachHandler: 2)
        let second = ForeignThenable<Int>()
        let third = ForeignThenable<Int>()
        let all = when(fulfilled: [twice, second, third].makeIterator(), concurrently: 1)

        twice.resolve(.success(1))

        #expect(all.isPending)
        #expect(second.waitingCount == 1)
        #expect(third.waitingCount == 0)
        second.resolve(.success(2))
        third.resolve(.success(3))
        #expect(all.value == [1, 2, 3])
    }
}

extension ConfigurationTests {
    @Suite struct WhenConcurrentlyLogTests {
        @Test func resolvedWithALimitBelowOneLogsBadInput() {
            LogCapture.capture { log in
                let source = ComboPendingSource(count: 1)
                let all = when(resolved: source.makeIterator(), concurrently: 0)
                source.fulfil(0)

                #expect(all.value?.count == 1)
                #expect(log.eventsFromThisTest(ofKind: .badInput).count == 1)
            }
        }
    }
}
