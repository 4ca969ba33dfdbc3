import Dispatch
import Pledge
import Testing

@Suite struct GuaranteeTests {
    // MARK: Making guarantees

    @Test func valueMakesAResolvedGuarantee() {
        #expect(Guarantee.value(1).value == 1)
    }

    @Test func voidGuaranteesCanBeMadeWithoutAValue() {
        let made = Guarantee()
        let valued: Guarantee<Void> = Guarantee.value

        #expect(made.isFulfilled)
        #expect(valued.isFulfilled)
    }

    @Test func initWithResolverRunsItsBodySynchronously() {
        let ran = AtomicFlag()

        let guarantee = Guarantee<Int> { resolve in
            ran.set()
            resolve(2)
        }

        #expect(ran.isSet)
        #expect(guarantee.value == 2)
    }

    @Test func initWithResolverLetsTheBodyResolveLater() {
        let queue = TestQueues.serial("guarantee.later")

        let guarantee = Guarantee<Int> { resolve in queue.async { resolve(3) } }

        #expect(guarantee.settledValue() == 3)
    }

    @Test func pendingMakesAPendingGuaranteeAndItsResolveFunction() {
        let (guarantee, resolve) = Guarantee<String>.pending()
        #expect(guarantee.isPending)

        resolve("now")

        #expect(guarantee.value == "now")
    }

    @Test func onlyTheFirstResolveCounts() {
        let (guarantee, resolve) = Guarantee<Int>.pending()

        resolve(1)
        resolve(2)

        #expect(guarantee.value == 1)
    }

    @Test func pipeAlwaysGivesASuccess() throws {
        let seen = Locked<Int?>(nil)

        Guarantee.value(4).pipe { seen.value = try? $0.get() }

        #expect(seen.value == 4)
        #expect(try Guarantee.value(5).result?.get() == 5)
    }

    // MARK: done, get, map, then

    @Test func doneGivesTheValueToItsBody() {
        let seen = Locked<Int?>(nil)

        let finished = Guarantee<Int>.value(6).done(on: nil) { seen.value = $0 }

        #expect(type(of: finished) == Guarantee<Void>.self)
        #expect(seen.value == 6)
        #expect(finished.isFulfilled)
    }

    @Test func getLooksAtTheValueAndPassesItOn() {
        let seen = Locked<Int?>(nil)

        let passed = Guarantee<Int>.value(7).get(on: nil) { seen.value = $0 }

        #expect(type(of: passed) == Guarantee<Int>.self)
        #expect(seen.value == 7)
        #expect(passed.value == 7)
    }

    @Test func mapTransformsTheValue() {
        let mapped = Guarantee.value(2).map(on: nil) { $0 * 21 }

        #expect(type(of: mapped) == Guarantee<Int>.self)
        #expect(mapped.value == 42)
    }

    @Test func thenContinuesWithTheGuaranteeItsBodyReturns() {
        let (inner, resolve) = Guarantee<String>.pending()

        let chained = Guarantee.value(1).then(on: nil) { _ in inner }

        #expect(type(of: chained) == Guarantee<String>.self)
        #expect(chained.isPending)
        resolve("inner")
        #expect(chained.value == "inner")
    }

    @Test func asVoidDiscardsTheValue() {
        let voided = Guarantee.value(1).asVoid()

        #expect(type(of: voided) == Guarantee<Void>.self)
        #expect(voided.isFulfilled)
    }

    @Test(arguments: ["done", "get", "map", "then"])
    func handlersRunOnTheGivenQueueAndDispatchEvenWhenResolved(handler: String) {
        let queue = TestQueues.serial("guarantee.\(handler)")
        queue.suspend()
        let onQueue = Locked<Bool?>(nil)
        let record: @Sendable (Int) -> Void = { _ in onQueue.value = TestQueues.isOn(queue) }
        let guarantee = Guarantee.value(1)

        let result: Guarantee<Void>
        switch handler {
        case "done": result = guarantee.done(on: queue, record)
        case "get": result = guarantee.get(on: queue, record).asVoid()
        case "map": result = guarantee.map(on: queue, record)
        default: result = guarantee.then(on: queue) { value in Guarantee.value(record(value)) }
        }

        #expect(result.isPending)
        #expect(onQueue.value == nil)
        queue.resume()
        #expect(result.settledResult() != nil)
        #expect(onQueue.value == true)
    }

    @Test func handlersOnNilRunOnTheThreadThatResolves() {
        let queue = TestQueues.serial("guarantee.resolving")
        let (guarantee, resolve) = Guarantee<Int>.pending()

        let mapped = guarantee.map(on: nil) { _ in TestQueues.isOn(queue) }
        queue.async { resolve(1) }

        #expect(mapped.settledValue() == true)
    }

    // MARK: Throwing closures

    @Test func aThrowingClosureTurnsAGuaranteeChainIntoAPromise() {
        let mapped = Guarantee.value(1).map(on: nil) { value throws -> Int in
            guard value > 0 else { throw TestError.boom }
            return value
        }
        let done = Guarantee.value(1).done(on: nil) { _ throws in throw TestError.boom }
        let gotten = Guarantee.value(1).get(on: nil) { _ throws in }
        let chained = Guarantee.value(1).then(on: nil) { _ throws in Guarantee.value(2) }

        #expect(type(of: mapped) == Promise<Int>.self)
        #expect(type(of: done) == Promise<Void>.self)
        #expect(type(of: gotten) == Promise<Int>.self)
        #expect(type(of: chained) == Promise<Int>.self)
        #expect(mapped.value == 1)
        #expect(done.error as? TestError == .boom)
    }

    @Test func operatorsOnlyPromisesHaveYieldPromisesOnAGuarantee() {
        let tapped = Guarantee.value(1).tap(on: nil) { _ in }
        let compacted = Guarantee.value("12").compactMap(on: nil) { Int($0) }

        #expect(type(of: tapped) == Promise<Int>.self)
        #expect(tapped.value == 1)
        #expect(compacted.value == 12)
    }

    @Test func thenReturningAPromiseYieldsAPromise() {
        let chained = Guarantee.value(1).then(on: nil) { Promise.value($0 + 1) }

        #expect(type(of: chained) == Promise<Int>.self)
        #expect(chained.value == 2)
    }

    // MARK: Descriptions

    /// `dump` and `Mirror` show the state, never the storage (see `PromiseTests`).
    @Test func dumpAndMirrorShowTheStateOfPendingAndResolvedGuarantees() {
        let (pending, resolve) = Guarantee<String>.pending()
        var pendingDump = ""
        dump(pending, to: &pendingDump)

        #expect(Mirror(reflecting: pending).children.first?.label == "value")
        #expect(pendingDump.contains("value: nil"))

        resolve("sealed")
        var resolvedDump = ""
        dump(pending, to: &resolvedDump)

        #expect(resolvedDump.contains("\"sealed\""))
    }

    @Test func descriptionShowsTheState() {
        let (pending, resolve) = Guarantee<Int>.pending()

        #expect(pending.description == "Guarantee(…Int)")
        #expect(Guarantee.value(3).description == "Guarantee(3)")
        #expect(pending.debugDescription == "Guarantee<Int>.pending(handlers: 0)")
        #expect(Guarantee.value("x").debugDescription == "Guarantee<String>.fulfilled(x)")
        resolve(0)
    }
}
