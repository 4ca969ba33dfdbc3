import Dispatch
import Pledge
import Testing

@Suite struct PromiseTests {
    // MARK: Making promises

    @Test func valueMakesAFulfilledPromise() {
        let promise = Promise.value("ready")

        #expect(promise.value == "ready")
    }

    @Test func initWithErrorMakesARejectedPromise() {
        let promise = Promise<Int>(error: TestError.boom)

        #expect(promise.error as? TestError == .boom)
    }

    @Test func voidPromisesCanBeMadeFulfilledWithoutAValue() {
        let made = Promise()
        let valued: Promise<Void> = Promise.value

        #expect(made.isFulfilled)
        #expect(valued.isFulfilled)
    }

    @Test func pendingMakesAPendingPromiseAndTheResolverThatSettlesIt() {
        let (promise, resolver) = Promise<Int>.pending()
        #expect(promise.isPending)

        resolver.fulfill(3)

        #expect(promise.value == 3)
    }

    // MARK: init(resolver:)

    @Test func initWithResolverRunsItsBodySynchronously() {
        let ran = AtomicFlag()

        let promise = Promise<Int> { seal in
            ran.set()
            seal.fulfill(1)
        }

        #expect(ran.isSet)
        #expect(promise.value == 1)
    }

    @Test func initWithResolverRejectsWhenItsBodyThrows() {
        let promise = Promise<Int> { _ in throw TestError.boom }

        #expect(promise.error as? TestError == .boom)
    }

    @Test func initWithResolverIgnoresAThrowAfterTheBodyResolved() {
        let promise = Promise<Int> { seal in
            seal.fulfill(1)
            throw TestError.boom
        }

        #expect(promise.value == 1)
    }

    @Test func initWithResolverLetsTheBodyResolveLaterFromAnotherQueue() {
        let queue = TestQueues.serial("promise.resolver-later")

        let promise = Promise<Int> { seal in queue.async { seal.fulfill(9) } }

        #expect(promise.settledValue() == 9)
    }

    // MARK: init(_ bridge:)

    @Test func bridgingAPromiseFollowsIt() {
        let (original, resolver) = Promise<Int>.pending()

        let bridged = Promise(original)

        #expect(bridged.isPending)
        resolver.fulfill(2)
        #expect(bridged.value == 2)
    }

    @Test func bridgingARejectedPromiseIsRejected() {
        let bridged = Promise(Promise<Int>(error: TestError.boom))

        #expect(bridged.error as? TestError == .boom)
    }

    @Test func bridgingAGuaranteeFollowsIt() {
        let (guarantee, resolve) = Guarantee<String>.pending()

        let bridged = Promise(guarantee)

        #expect(bridged.isPending)
        resolve("g")
        #expect(bridged.value == "g")
    }

    @Test func bridgingAThenableFromOutsidePledgeFollowsIt() {
        let foreign = ForeignThenable<Int>()

        let bridged = Promise(foreign)

        #expect(bridged.isPending)
        foreign.resolve(.failure(TestError.other))
        #expect(bridged.error as? TestError == .other)
    }

    // MARK: pipe and result

    @Test func pipeOnAResolvedPromiseCallsItsBodyAtOnce() {
        let seen = Locked<Int?>(nil)

        Promise.value(4).pipe { seen.value = try? $0.get() }

        #expect(seen.value == 4)
    }

    @Test func pipeOnAPendingPromiseCallsItsBodyWhenItResolves() {
        let (promise, resolver) = Promise<Int>.pending()
        let seen = Locked<TestError?>(nil)

        promise.pipe { result in
            if case .failure(let error) = result { seen.value = error as? TestError }
        }
        #expect(seen.value == nil)
        resolver.reject(TestError.boom)

        #expect(seen.value == .boom)
    }

    @Test func pipeCallsItsBodyOnTheThreadThatResolves() {
        let queue = TestQueues.serial("promise.pipe")
        let (promise, resolver) = Promise<Int>.pending()
        let onQueue = Locked<Bool?>(nil)
        let done = DispatchSemaphore(value: 0)

        promise.pipe { _ in
            onQueue.value = TestQueues.isOn(queue)
            done.signal()
        }
        queue.async { resolver.fulfill(1) }

        #expect(done.wait(timeout: .testTimeout) == .success)
        #expect(onQueue.value == true)
    }

    @Test func resultIsTheValueOrTheErrorOnceResolved() throws {
        let (pending, resolver) = Promise<Int>.pending()
        #expect(pending.result == nil)

        resolver.fulfill(1)

        #expect(try pending.result?.get() == 1)
        #expect(throws: TestError.boom) { try Promise<Int>(error: TestError.boom).result?.get() }
    }

    // MARK: Descriptions

    @Test func descriptionShowsTheState() {
        let (pending, resolver) = Promise<Int>.pending()

        #expect(pending.description == "Promise(…Int)")
        #expect(Promise.value(42).description == "Promise(42)")
        #expect(Promise<Int>(error: TestError.boom).description == "Promise(boom)")
        resolver.fulfill(0)
    }

    /// `dump` and `Mirror` show the state, never the storage: the value slot of a pending
    /// promise's box holds a placeholder, and reflecting it used to crash.
    @Test func dumpAndMirrorShowTheStateOfPendingAndResolvedPromises() {
        let (pending, resolver) = Promise<[String]>.pending()
        var pendingDump = ""
        dump(pending, to: &pendingDump)
        let children = Array(Mirror(reflecting: pending).children)

        #expect(children.count == 1)
        #expect(children.first?.label == "result")
        #expect(pendingDump.contains("result: nil"))

        resolver.fulfill(["resolved"])
        var resolvedDump = ""
        dump(pending, to: &resolvedDump)
        var rejectedDump = ""
        dump(Promise<Int>(error: TestError.boom), to: &rejectedDump)

        #expect(resolvedDump.contains("\"resolved\""))
        #expect(rejectedDump.contains("boom"))
    }

    @Test func debugDescriptionShowsTheTypeAndTheState() {
        let (pending, resolver) = Promise<Int>.pending()

        #expect(pending.debugDescription == "Promise<Int>.pending(handlers: 0)")
        _ = pending.map(on: nil) { $0 }
        _ = pending.done(on: nil) { _ in }
        #expect(pending.debugDescription == "Promise<Int>.pending(handlers: 2)")
        #expect(Promise.value("x").debugDescription == "Promise<String>.fulfilled(x)")
        #expect(Promise<Int>(error: TestError.boom).debugDescription == "Promise<Int>.rejected(TestError.boom)")
        resolver.fulfill(0)
    }

    @Test func stringInterpolationUsesTheDescription() {
        #expect("\(Promise.value(1))" == "Promise(1)")
    }

    // MARK: Sharing

    @Test func aPromiseCanBeSharedAcrossThreads() {
        let (promise, resolver) = Promise<Int>.pending()
        let results = Recorder<Int>()

        TestQueues.serial("promise.shared").async { resolver.fulfill(5) }
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            if let value = promise.settledValue() { results.append(value) }
        }

        #expect(results.all == Array(repeating: 5, count: 8))
    }
}
