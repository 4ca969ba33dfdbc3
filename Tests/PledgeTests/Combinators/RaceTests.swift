import Pledge
import Testing

@Suite struct RaceTests {
    @Test func theFirstFulfilmentWinsAndLosersKeepRunning() {
        let (slow, slowResolver) = Promise<Int>.pending()
        let (fast, fastResolver) = Promise<Int>.pending()
        let winner = race(slow, fast)

        fastResolver.fulfill(2)
        #expect(winner.value == 2)

        // The loser keeps running; its result is ignored.
        slowResolver.fulfill(1)
        #expect(slow.value == 1)
        #expect(winner.value == 2)
    }

    @Test func theFirstRejectionWinsToo() {
        let (slow, slowResolver) = Promise<Int>.pending()
        let (fast, fastResolver) = Promise<Int>.pending()
        let winner = race([slow, fast])

        fastResolver.reject(ComboError.boom)
        slowResolver.fulfill(1)

        #expect(winner.error as? ComboError == .boom)
    }

    @Test func anAlreadyResolvedInputWinsAtOnce() {
        let winner = race([Promise<Int>.pending().promise, Promise.value(7), Promise.value(8)])

        #expect(winner.value == 7)
    }

    @Test func anEmptyArrayRejectsWithBadInput() {
        let winner = race([Promise<Int>]())

        #expect(comboIsPMKError(winner.result, .badInput))
    }

    @Test func guaranteesRaceToAGuarantee() {
        let (slow, _) = Guarantee<String>.pending()
        let (fast, resolveFast) = Guarantee<String>.pending()
        let winner = race(slow, fast)

        #expect(comboStaticType(winner) == "Guarantee<String>")
        resolveFast("fast")
        #expect(winner.value == "fast")
    }

    @Test func raceFulfilledIgnoresRejectionsUntilAFulfilment() {
        let pending = (0..<3).map { _ in Promise<Int>.pending() }
        let winner = race(fulfilled: pending.map(\.promise))

        pending[0].resolver.reject(ComboError.numbered(0))
        pending[2].resolver.reject(ComboError.numbered(2))
        #expect(winner.isPending)
        pending[1].resolver.fulfill(1)

        #expect(winner.value == 1)
    }

    @Test func raceFulfilledRejectsWithNoWinnerWhenEveryInputRejects() {
        let pending = (0..<3).map { _ in Promise<Int>.pending() }
        let winner = race(fulfilled: pending.map(\.promise))

        for (index, input) in pending.enumerated() {
            #expect(winner.isPending)
            input.resolver.reject(ComboError.numbered(index))
        }

        #expect(comboIsPMKError(winner.result, .noWinner))
    }

    @Test func raceFulfilledKeepsTheFirstValueWhenLaterOnesArrive() {
        let pending = (0..<2).map { _ in Promise<Int>.pending() }
        let winner = race(fulfilled: pending.map(\.promise))

        pending[1].resolver.fulfill(1)
        pending[0].resolver.fulfill(0)

        #expect(winner.value == 1)
    }

    @Test func raceFulfilledOfAnEmptyArrayRejectsWithBadInput() {
        #expect(comboIsPMKError(race(fulfilled: [Promise<Int>]()).result, .badInput))
    }

    @Test func raceFulfilledWithResolvedInputs() {
        #expect(race(fulfilled: [Promise(error: ComboError.boom), Promise.value(2)]).value == 2)
        let allRejected = race(
            fulfilled: [Promise<Int>(error: ComboError.boom), Promise(error: ComboError.numbered(1))])
        #expect(comboIsPMKError(allRejected.result, .noWinner))
    }

    @Test func raceWorksOnForeignThenables() {
        let first = ForeignThenable<Int>()
        let second = ForeignThenable<Int>()
        let winner = race(first, second)

        second.resolve(.success(2))
        first.resolve(.success(1))

        #expect(winner.value == 2)
    }

    /// A thenable outside Pledge that calls its handlers twice is still one input: its two
    /// rejections do not make every input rejected.
    @Test func aThenableThatRejectsTwiceCountsAsOneRejection() {
        let twice = ForeignThenable<Int>(callingEachHandler: 2)
        let other = ForeignThenable<Int>()
        let winner = race(fulfilled: [twice, other])

        twice.resolve(.failure(TestError.boom))

        #expect(winner.isPending)
        other.resolve(.success(5))
        #expect(winner.value == 5)
    }
}

extension ConfigurationTests {
    @Suite struct RaceLogTests {
        /// A guarantee cannot be rejected, so a race of no guarantees stays pending: it is
        /// reported (it used to be silent).
        @Test func racingNoGuaranteesLogsBadInput() {
            LogCapture.capture { log in
                let none: Guarantee<Int> = race()

                #expect(none.isPending)
                #expect(log.eventsFromThisTest(ofKind: .badInput).count == 1)
            }
        }

        @Test func racingGuaranteesLogsNothing() {
            LogCapture.capture { log in
                #expect(race(Guarantee.value(1), Guarantee.value(2)).value == 1)
                #expect(log.eventsFromThisTest(ofKind: .badInput).isEmpty)
            }
        }
    }
}
