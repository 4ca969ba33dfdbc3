import Dispatch
import Pledge
import Testing

@Suite struct WhenTests {
    // MARK: when(fulfilled: [U])

    @Test func valuesComeBackInInputOrderWhateverTheOrderOfFulfilment() {
        let pending = (0..<4).map { _ in Promise<Int>.pending() }
        let all = when(fulfilled: pending.map(\.promise))

        for index in [2, 0, 3] { pending[index].resolver.fulfill(index * 10) }
        #expect(all.isPending)
        pending[1].resolver.fulfill(10)

        #expect(all.value == [0, 10, 20, 30])
    }

    @Test func anEmptyArrayIsFulfilledWithAnEmptyArrayAtOnce() {
        let all = when(fulfilled: [Promise<Int>]())

        #expect(all.value == [])
    }

    @Test func theFirstRejectionRejectsAtOnceAndLaterResultsAreIgnored() {
        let (first, firstResolver) = Promise<Int>.pending()
        let (second, secondResolver) = Promise<Int>.pending()
        let (third, thirdResolver) = Promise<Int>.pending()
        let all = when(fulfilled: [first, second, third])

        secondResolver.reject(ComboError.numbered(2))
        #expect(all.error as? ComboError == .numbered(2))

        // The other inputs keep running; their results no longer matter.
        thirdResolver.reject(ComboError.numbered(3))
        firstResolver.fulfill(1)
        #expect(all.error as? ComboError == .numbered(2))
        #expect(first.value == 1)
        #expect(third.error as? ComboError == .numbered(3))
    }

    @Test func alreadyResolvedInputsResolveTheResultAtOnce() {
        #expect(when(fulfilled: [Promise.value(1), Promise.value(2)]).value == [1, 2])
        let rejected = when(fulfilled: [Promise.value(1), Promise(error: ComboError.boom)])
        #expect(rejected.error as? ComboError == .boom)
    }

    @Test func everyInputIsAttachedEvenAfterAnEarlyRejection() {
        // As in PromiseKit: an array's inputs are all attached at once, so an input already
        // rejected does not keep the fan-in from attaching to the ones after it.
        let rejected = ForeignThenable<Int>()
        rejected.resolve(.failure(ComboError.boom))
        let later = ForeignThenable<Int>()
        let all = when(fulfilled: [rejected, later])

        #expect(all.error as? ComboError == .boom)
        #expect(later.waitingCount == 1)
        later.resolve(.success(2))
        #expect(all.error as? ComboError == .boom)
    }

    @Test func aRejectionOfTheLastOutstandingInputRejects() {
        let (first, firstResolver) = Promise<Int>.pending()
        let all = when(fulfilled: [Promise.value(1), first])
        let resolved = when(resolved: [Promise.value(1), first])

        firstResolver.reject(ComboError.boom)

        #expect(all.error as? ComboError == .boom)
        #expect(resolved.value?.count == 2)
        #expect(resolved.value?.first.flatMap { try? $0.get() } == 1)
    }

    @Test func optionalValuesKeepTheirNils() {
        let all = when(fulfilled: [Promise<Int?>.value(nil), Promise.value(2)])

        #expect(all.value == [nil, 2])
    }

    @Test func guaranteesAndForeignThenablesCanBeWaitedFor() {
        let first = ForeignThenable<Int>()
        let second = ForeignThenable<Int>()
        let foreign = when(fulfilled: [first, second])
        let guarantees = when(fulfilled: [Guarantee.value(1), Guarantee.value(2)])

        second.resolve(.success(8))
        #expect(foreign.isPending)
        first.resolve(.success(7))

        #expect(foreign.value == [7, 8])
        #expect(guarantees.value == [1, 2])
    }

    // MARK: overload resolution

    @Test func anArrayLiteralOfOneTypeGetsTypedValues() {
        let p1 = Promise.value(1)
        let p2 = Promise.value(2)

        // Would not compile if the existential form were picked.
        let typed: Promise<[Int]> = when(fulfilled: [p1, p2])

        #expect(typed.value == [1, 2])
        #expect(comboStaticType(when(fulfilled: [p1, p2])) == comboStaticType(Promise<[Int]>.value([])))
    }

    @Test func aMappedArrayGetsTypedValues() {
        let numbers = [1, 2, 3]

        let inline = when(fulfilled: numbers.map { Promise.value($0 * 2) })
        let promises = numbers.map { Guarantee.value($0) }
        let stored = when(fulfilled: promises)

        #expect(comboStaticType(inline) == "Promise<Array<Int>>")
        #expect(comboStaticType(stored) == "Promise<Array<Int>>")
        #expect(inline.value == [2, 4, 6])
        #expect(stored.value == [1, 2, 3])
    }

    @Test func mixedThenablesGetExistentialValuesInInputOrder() {
        let (text, textResolver) = Promise<String>.pending()
        let all = when(fulfilled: [Promise.value(1), text, Guarantee.value(2.5)])

        #expect(comboStaticType(all) == comboStaticType(Promise<[any Sendable]>.value([])))
        textResolver.fulfill("two")

        let values = all.value
        #expect(values?.count == 3)
        #expect(values?[0] as? Int == 1)
        #expect(values?[1] as? String == "two")
        #expect(values?[2] as? Double == 2.5)
    }

    @Test func mixedThenablesRejectWithTheFirstError() {
        let inputs: [any Thenable] = [Promise<Int>(error: ComboError.boom), Guarantee.value("x")]

        let all = when(fulfilled: inputs)

        #expect(all.error as? ComboError == .boom)
    }

    // MARK: Void

    @Test func voidPromisesInAVariadicListGiveAVoidPromise() {
        let (first, firstResolver) = Promise<Void>.pending()
        let all = when(fulfilled: first, Promise<Void>(), Promise<Void>())

        #expect(comboStaticType(all) == "Promise<()>")
        #expect(all.isPending)
        firstResolver.fulfill()
        #expect(all.isFulfilled)
    }

    @Test func voidPromisesInAnArrayGiveAVoidPromise() {
        let all = when(fulfilled: [Promise<Void>(), Promise<Void>()])
        let rejected = when(fulfilled: [Promise<Void>(), Promise<Void>(error: ComboError.boom)])
        let empty = when(fulfilled: [Promise<Void>]())

        #expect(comboStaticType(all) == "Promise<()>")
        #expect(all.isFulfilled)
        #expect(rejected.error as? ComboError == .boom)
        #expect(empty.isFulfilled)
    }

    // MARK: when(resolved:)

    @Test func resolvedCollectsEveryResultInInputOrder() throws {
        let (slow, slowResolver) = Promise<Int>.pending()
        let all = when(resolved: slow, Promise(error: ComboError.boom), Promise.value(3))

        #expect(all.isPending)
        slowResolver.fulfill(1)

        let results = all.value ?? []
        #expect(results.count == 3)
        #expect(try results[0].get() == 1)
        #expect(throws: ComboError.boom) { try results[1].get() }
        #expect(try results[2].get() == 3)
    }

    @Test func resolvedResolvesExactlyWhenTheLastInputResolves() {
        let pending = (0..<3).map { _ in Promise<Int>.pending() }
        let all = when(resolved: pending.map(\.promise))

        pending[0].resolver.reject(ComboError.numbered(0))
        pending[2].resolver.fulfill(2)
        #expect(all.isPending)
        pending[1].resolver.fulfill(1)

        // Sealed inline by the last resolution: no queue involved.
        #expect(all.value?.map { try? $0.get() } == [nil, 1, 2])
    }

    @Test func resolvedOfAnEmptyArrayIsEmptyAtOnce() {
        let all: Guarantee<[Result<Int, Error>]> = when(resolved: [])

        #expect(all.value?.isEmpty == true)
    }

    @Test func resolvedAcceptsAnyThenable() {
        let all = when(resolved: [Guarantee.value(1), Guarantee.value(2)])
        let variadic = when(resolved: Guarantee.value("a"), Guarantee.value("b"))

        #expect(all.value?.map { try? $0.get() } == [1, 2])
        #expect(variadic.value?.map { try? $0.get() } == ["a", "b"])
    }

    // MARK: when(guarantees:) and when(_:)

    @Test func guaranteesCollectValuesInInputOrder() {
        let (late, resolve) = Guarantee<Int>.pending()
        let all = when(guarantees: [late, Guarantee.value(2)])

        #expect(all.isPending)
        resolve(1)

        #expect(comboStaticType(all) == "Guarantee<Array<Int>>")
        #expect(all.value == [1, 2])
        #expect(when(guarantees: [Guarantee<Int>]()).value == [])
    }

    @Test func voidGuaranteesGiveAVoidGuarantee() {
        let (late, resolve) = Guarantee<Void>.pending()
        let all = when(guarantees: [late, Guarantee()])

        #expect(comboStaticType(all) == "Guarantee<()>")
        #expect(all.isPending)
        resolve(())
        #expect(all.isResolved)
    }

    @Test func variadicGuaranteesCollectValues() {
        let values = when(Guarantee.value(1), Guarantee.value(2), Guarantee.value(3))
        let voids = when(Guarantee(), Guarantee())

        #expect(values.value == [1, 2, 3])
        #expect(comboStaticType(voids) == "Guarantee<()>")
        #expect(voids.isResolved)
    }

    @Test func theResultResolvesOnTheThreadOfTheLastInput() {
        let key = DispatchSpecificKey<Int>()
        let queue = DispatchQueue(label: "when.last-input")
        queue.setSpecific(key: key, value: 7)
        let (late, resolver) = Promise<Int>.pending()
        let sawQueue = Locked<Int?>(nil)

        let done = when(fulfilled: [Promise.value(1), late]).done(on: nil) { _ in
            sawQueue.withLock { $0 = DispatchQueue.getSpecific(key: key) }
        }
        queue.async { resolver.fulfill(2) }

        #expect(done.comboResult() != nil)
        #expect(sawQueue.withLock { $0 } == 7)
    }

    /// A thenable outside Pledge that calls its handlers twice breaks `pipe`'s contract; its first
    /// outcome counts, so `when` still waits for the other inputs, and sees their rejection.
    @Test func aThenableThatCallsBackTwiceCountsOnce() {
        let twice = ForeignThenable<Int>(callingEachHandler: 2)
        let other = ForeignThenable<Int>()
        let all = when(fulfilled: [twice, other])

        twice.resolve(.success(1))

        #expect(all.isPending)
        other.resolve(.failure(TestError.boom))
        #expect(all.error as? TestError == .boom)
    }
}
