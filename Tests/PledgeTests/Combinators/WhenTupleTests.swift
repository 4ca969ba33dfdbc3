import Pledge
import Testing

@Suite struct WhenTupleTests {
    @Test func twoThenablesOfDifferentTypesArePaired() {
        let (name, resolver) = Promise<String>.pending()
        let both = when(fulfilled: Promise.value(1), name)

        #expect(both.isPending)
        resolver.fulfill("one")

        #expect(both.value?.0 == 1)
        #expect(both.value?.1 == "one")
    }

    @Test func threeFourAndFiveThenablesKeepTheirTypesAndOrder() {
        let three = when(fulfilled: Promise.value(1), Guarantee.value("b"), Promise.value(3.0))
        let four = when(
            fulfilled: Promise.value(1), Promise.value("b"), Promise.value(true), Guarantee.value([4]))
        let five = when(
            fulfilled: Promise.value(1), Promise.value("b"), Promise.value(true), Promise.value([4]),
            Promise<Int?>.value(nil))

        #expect(comboStaticType(three) == "Promise<(Int, String, Double)>")
        #expect(three.value.map { "\($0.0) \($0.1) \($0.2)" } == "1 b 3.0")
        #expect(four.value.map { "\($0.0) \($0.1) \($0.2) \($0.3)" } == "1 b true [4]")
        #expect(
            five.value.map { "\($0.0) \($0.1) \($0.2) \($0.3) \(String(describing: $0.4))" }
                == "1 b true [4] nil")
    }

    @Test func optionalAndExistentialValuesKeepTheirTypes() {
        let pair = when(fulfilled: Promise<Int?>.value(nil), Promise<any Sendable>.value("s"))
        let guarantees = when(guarantees: Guarantee<Int?>.value(nil), Guarantee<Int?>.value(2))

        #expect(pair.value.map { $0.0 == nil && ($0.1 as? String) == "s" } == true)
        #expect(guarantees.value.map { $0.0 == nil && $0.1 == 2 } == true)
    }

    /// An input whose resolver is dropped can never resolve. The tuple must not hold on to it
    /// (it once read the values from the inputs themselves), or the input, the fan-in and
    /// everything their handlers capture would keep each other alive for good.
    @Test func anInputThatCanNeverResolveDoesNotKeepTheTupleAlive() {
        let counter = LifetimeCounter()
        attachToATupleWithAnAbandonedInput(counter)
        #expect(counter.alive == 0)
    }

    private func attachToATupleWithAnAbandonedInput(_ counter: LifetimeCounter) {
        let abandoned = Promise<Int>.pending().promise
        let tracker = LifetimeTracker(counter)
        _ = when(fulfilled: abandoned, Promise.value("x")).done(on: nil) { _ in tracker.touch() }
        _ = when(guarantees: Guarantee<Int>.pending().guarantee, Guarantee.value(1)).done(on: nil) { _ in
            tracker.touch()
        }
        #expect(counter.alive == 1)
    }

    @Test func aRejectionRejectsTheTupleAtOnce() {
        let (slow, slowResolver) = Promise<Int>.pending()
        let (failing, failingResolver) = Promise<String>.pending()
        let both = when(fulfilled: slow, failing)

        failingResolver.reject(ComboError.boom)

        // `slow` is still pending, but the tuple does not wait for it.
        #expect(both.error as? ComboError == .boom)
        slowResolver.fulfill(1)
        #expect(both.error as? ComboError == .boom)
    }

    @Test func everyArityRejectsWithTheFirstError() {
        let bad = Promise<Int>(error: ComboError.boom)
        let good = Promise.value(1)

        #expect(when(fulfilled: good, bad, good).error as? ComboError == .boom)
        #expect(when(fulfilled: good, good, good, bad).error as? ComboError == .boom)
        #expect(when(fulfilled: bad, good, good, good, good).error as? ComboError == .boom)
    }

    @Test func guaranteesOfTwoToFiveTypesGiveAGuaranteeOfATuple() {
        let (late, resolve) = Guarantee<String>.pending()
        let two = when(guarantees: Guarantee.value(1), late)
        let three = when(guarantees: Guarantee.value(1), Guarantee.value("b"), Guarantee.value(3.0))
        let four = when(
            guarantees: Guarantee.value(1), Guarantee.value("b"), Guarantee.value(true), Guarantee.value(4))
        let five = when(
            guarantees: Guarantee.value(1), Guarantee.value("b"), Guarantee.value(true), Guarantee.value(4),
            Guarantee.value(5.5))

        #expect(comboStaticType(two) == "Guarantee<(Int, String)>")
        #expect(two.isPending)
        resolve("two")
        #expect(two.value.map { "\($0.0) \($0.1)" } == "1 two")
        #expect(three.value.map { "\($0.0) \($0.1) \($0.2)" } == "1 b 3.0")
        #expect(four.value.map { "\($0.0) \($0.1) \($0.2) \($0.3)" } == "1 b true 4")
        #expect(five.value.map { "\($0.0) \($0.1) \($0.2) \($0.3) \($0.4)" } == "1 b true 4 5.5")
    }

    @Test func voidPromisesGiveAVoidPromiseUnlessATupleIsAskedFor() {
        // PromiseKit reports these calls as ambiguous; Pledge prefers the `Void` form.
        let two = when(fulfilled: Promise<Void>(), Promise<Void>())
        let void = Promise<Void>()
        let five = when(fulfilled: void, void, void, void, void)
        let tuple: Promise<(Void, Void)> = when(fulfilled: Promise<Void>(), Promise<Void>())

        #expect(comboStaticType(two) == "Promise<()>")
        #expect(comboStaticType(five) == "Promise<()>")
        #expect(two.isFulfilled && five.isFulfilled && tuple.isFulfilled)
    }

    @Test func aVoidPromiseAndAVoidGuaranteeGiveATuple() {
        let both = when(fulfilled: Promise<Void>(), Guarantee<Void>())

        #expect(comboStaticType(both) == "Promise<((), ())>")
        #expect(both.isFulfilled)
    }
}
