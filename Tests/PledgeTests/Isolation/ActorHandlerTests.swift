import Dispatch
import Foundation
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

/// A serial executor that runs its jobs one at a time, alternately on two threads of its own:
/// an actor whose jobs move between threads, as a default actor's may.
private final class AlternatingExecutor: SerialExecutor, @unchecked Sendable {
    // Safety: `slots` and `next` are touched only on `coordinator`, and by the thread a slot's
    // semaphore starts, while `coordinator` waits for it to finish.
    private let coordinator = DispatchQueue(label: "org.pledge.tests.alternating")
    private var slots: [UnownedJob?] = [nil, nil]
    private let starts = [DispatchSemaphore(value: 0), DispatchSemaphore(value: 0)]
    private let finished = DispatchSemaphore(value: 0)
    private var next = 0

    init() {
        for index in 0..<2 {
            Thread { [self] in
                while true {
                    starts[index].wait()
                    let job = slots[index].take()
                    job?.runSynchronously(on: asUnownedSerialExecutor())
                    finished.signal()
                }
            }.start()
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        coordinator.async { [self] in
            let index = next
            next ^= 1
            slots[index] = job
            starts[index].signal()
            finished.wait()
        }
    }
}

private actor HoppingLedger {
    private let executor: AlternatingExecutor
    var names: [String] = []

    init(_ executor: AlternatingExecutor) { self.executor = executor }

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    func attach(_ name: String, to promise: Promise<Int>) -> Promise<Void> {
        promise.done { _ in self.names.append(name) }
    }
}

extension ActorHandlerTests {
    /// The actor attaches A on one thread and, while the promise fires (its sealer held in an
    /// earlier handler), B on another: B's thread helps the actor's lane, A first.
    @Test func anActorsHandlersKeepTheirOrderWhenItsJobsChangeThreads() async throws {
        let ledger = HoppingLedger(AlternatingExecutor())
        let (promise, resolver) = Promise<Int>.pending()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let first = promise.done(on: nil) { _ in
            entered.signal()
            release.wait()
        }
        let a = await ledger.attach("A", to: promise)
        DispatchQueue.global().async { resolver.fulfill(1) }
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                entered.wait()
                continuation.resume()
            }
        }
        let b = await ledger.attach("B", to: promise)
        release.signal()
        try await first.async()
        try await a.async()
        try await b.async()
        #expect(await ledger.names == ["A", "B"])
    }
}

private actor PriorityLedger {
    var numbers: [Int] = []

    func attach(_ number: Int, to promise: Promise<Int>) -> Promise<Void> {
        promise.done { _ in self.numbers.append(number) }
    }

    /// Keeps the actor busy until `go` is signalled, then attaches 2.
    func holdThenAttach(_ promise: Promise<Int>, holding: DispatchSemaphore, go: DispatchSemaphore) -> Promise<Void> {
        holding.signal()
        go.wait()
        return attach(2, to: promise)
    }
}

/// Waits for `semaphore` off the cooperative pool.
private func waitOffThePool(_ semaphore: DispatchSemaphore) async {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
            semaphore.wait()
            continuation.resume()
        }
    }
}

extension ActorHandlerTests {
    /// The resolving thread hands the actor's first handler to it while it is busy in a
    /// high-priority task, which then attaches a second one: handed over from that task, at its
    /// priority, the second reaches the actor ahead of the first, and still runs after it.
    @Test func anActorsHandlersKeepTheirOrderWhateverPriorityTheyAreHandedOverAt() async throws {
        let ledger = PriorityLedger()
        let (promise, resolver) = Promise<Int>.pending()
        let first = await ledger.attach(1, to: promise)
        let handedOver = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        // Runs after the first handler was handed to the actor, and holds the resolving thread.
        let holder = promise.done(on: nil) { _ in
            handedOver.signal()
            release.wait()
        }
        let holding = DispatchSemaphore(value: 0)
        let busy = Task.detached(priority: .high) {
            await ledger.holdThenAttach(promise, holding: holding, go: handedOver)
        }
        await waitOffThePool(holding)
        DispatchQueue.global().async { resolver.fulfill(1) }

        let second = await busy.value
        release.signal()
        try await holder.async()
        try await first.async()
        try await second.async()
        #expect(await ledger.numbers == [1, 2])
    }
}
