import Dispatch
import Pledge
import Testing

/// An actor whose methods attach handlers that touch its state: each handler checks, at run
/// time, that it runs isolated to the actor (see `record`).
private actor Ledger {
    var entries: [Int] = []

    /// Records `entry`, trapping (and failing the run) unless the caller runs on this actor.
    private func record(_ entry: Int) {
        preconditionIsolated()
        entries.append(entry)
    }

    /// Attaches `count` handlers to `promise`, in order, each appending its number.
    func attach(_ count: Int, to promise: Promise<Int>) -> Promise<Void> {
        var ends: [Promise<Void>] = []
        for number in 0..<count {
            ends.append(promise.done { _ in self.record(number) })
        }
        return when(fulfilled: ends)
    }

    /// A chain of every operator, written here.
    func chain(_ promise: Promise<Int>) -> Promise<Int> {
        promise
            .map { value -> Int in
                self.record(1)
                return value + 1
            }
            .then { value -> Promise<Int> in
                self.record(2)
                return .value(value * 10)
            }
            .get { _ in self.record(3) }
            .tap { _ in self.record(4) }
            .compactMap { value -> Int? in
                self.record(5)
                return value
            }
            .ensure { self.record(6) }
            .recover { _ -> Promise<Int> in
                self.record(-1)
                return .value(0)
            }
    }

    func catchAndFinally(_ promise: Promise<Int>) -> Guarantee<Void> {
        let (finished, finish) = Guarantee<Void>.pending()
        promise.catch(policy: .allErrors) { _ in self.record(7) }.finally {
            self.record(8)
            finish(())
        }
        return finished
    }

    func guarantee(_ guarantee: Guarantee<[Int]>) -> Guarantee<[Int]> {
        guarantee.mapValues { value -> Int in
            self.record(value)
            return value
        }.done { _ in self.record(100) }.map { [] }
    }

    /// Attaches a handler that counts one entry: for the stress test.
    func count(_ promise: Promise<Int>) -> Promise<Void> {
        promise.done { _ in self.record(0) }
    }

    func mapThatMustNotRun(_ promise: Promise<Int>) -> Promise<Int> {
        promise.map { value -> Int in
            self.record(-99)
            return value
        }
    }
}

/// Handlers written in an actor's methods run isolated to that actor: in order, exactly once,
/// never blocking a thread to get there.
@Suite struct ActorHandlerTests {
    @Test func handlersOfOneActorOnOnePromiseRunInTheOrderItAttachedThem() async throws {
        let ledger = Ledger()
        let (promise, resolver) = Promise<Int>.pending()
        let all = await ledger.attach(500, to: promise)
        DispatchQueue.global().async { resolver.fulfill(1) }
        try await all.async()
        #expect(await ledger.entries == Array(0..<500))
    }

    @Test func everyOperatorRunsIsolatedToTheActorInTheChainsOrder() async throws {
        let ledger = Ledger()
        let (promise, resolver) = Promise<Int>.pending()
        let end = await ledger.chain(promise)
        DispatchQueue.global().async { resolver.fulfill(1) }
        #expect(try await end.async() == 20)
        #expect(await ledger.entries == [1, 2, 3, 4, 5, 6])
    }

    @Test func catchFinallyAndGuaranteesRunIsolatedToTheActor() async {
        let ledger = Ledger()
        await ledger.catchAndFinally(Promise(error: TestError.boom)).async()
        _ = await ledger.guarantee(.value([10, 20])).async()
        #expect(await ledger.entries == [7, 8, 10, 20, 100])
    }

    /// A handler already settled when attached (a resolved promise) runs on the actor too, and
    /// the actor's call that attached it returns first: nothing blocks.
    @Test func aHandlerOnASettledPromiseRunsOnTheActor() async throws {
        let ledger = Ledger()
        let end = await ledger.chain(.value(4))
        #expect(try await end.async() == 50)
        #expect(await ledger.entries == [1, 2, 3, 4, 5, 6])
    }

    /// A cancelled step written in an actor never runs its closure.
    @Test func aCancelledStepNeverRunsItsClosure() async {
        let ledger = Ledger()
        let (promise, resolver) = Promise<Int>.pending()
        let step = await ledger.mapThatMustNotRun(promise)
        step.cancel()
        resolver.fulfill(1)
        await #expect(throws: PMKError.cancelled) { try await step.async() }
        #expect(await ledger.entries.isEmpty)
    }
}
