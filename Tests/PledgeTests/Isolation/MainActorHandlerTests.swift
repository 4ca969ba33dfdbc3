import Dispatch
import Pledge
import Testing

/// Main-actor state for the tests below: touched only from closures isolated to the main actor,
/// each of which also checks, at run time, that it runs on the main queue, on the main actor.
@MainActor
private final class MainActorModel {
    var steps: [String] = []
    var onMainQueue = true

    func record(_ step: String) {
        MainActor.preconditionIsolated()
        steps.append(step)
        onMainQueue = onMainQueue && TestQueues.isOn(.main)
    }
}

/// Handlers written on the main actor, with no `on:` or with `on: .main`, run on the main queue,
/// isolated to the main actor, in the chain's order. (Swift Testing's entry point drains the main
/// queue, on Linux too.)
@Suite struct MainActorHandlerTests {
    /// Every operator of one chain, resolved off the main queue as a network reply is.
    @MainActor
    @Test(arguments: [false, true])
    func aChainWrittenOnTheMainActorRunsOnTheMainQueueInOrder(onMain: Bool) async {
        let model = MainActorModel()
        let (head, resolver) = Promise<Int>.pending()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            if onMain {
                head.get(on: .main) { _ in model.record("get") }
                    .tap(on: .main) { _ in model.record("tap") }
                    .map(on: .main) { value -> Int in
                        model.record("map")
                        return value + 1
                    }
                    .compactMap(on: .main) { value -> Int? in
                        model.record("compactMap")
                        return value
                    }
                    .validate(on: .main) { _ in
                        model.record("validate")
                        return true
                    }
                    .then(on: .main) { value -> Promise<Int> in
                        model.record("then")
                        return .value(value * 10)
                    }
                    .ensure(on: .main) { model.record("ensure") }
                    .ensureThen(on: .main) {
                        model.record("ensureThen")
                        return Guarantee()
                    }
                    .done(on: .main) { value in
                        model.record("done \(value)")
                        throw TestError.boom
                    }
                    .recover(on: .main) { _ in model.record("recover") }
                    .done(on: .main) {
                        model.record("end")
                        continuation.resume()
                    }
            } else {
                head.get { _ in model.record("get") }
                    .tap { _ in model.record("tap") }
                    .map { value -> Int in
                        model.record("map")
                        return value + 1
                    }
                    .compactMap { value -> Int? in
                        model.record("compactMap")
                        return value
                    }
                    .validate { _ in
                        model.record("validate")
                        return true
                    }
                    .then { value -> Promise<Int> in
                        model.record("then")
                        return .value(value * 10)
                    }
                    .ensure { model.record("ensure") }
                    .ensureThen {
                        model.record("ensureThen")
                        return Guarantee()
                    }
                    .done { value in
                        model.record("done \(value)")
                        throw TestError.boom
                    }
                    .recover { _ in model.record("recover") }
                    .done {
                        model.record("end")
                        continuation.resume()
                    }
            }
            DispatchQueue.global().async { resolver.fulfill(1) }
        }
        #expect(
            model.steps == [
                "get", "tap", "map", "compactMap", "validate", "then", "ensure", "ensureThen", "done 20", "recover",
                "end",
            ])
        #expect(model.onMainQueue)
    }

    @MainActor
    @Test func catchAndFinallyRunOnTheMainActor() async {
        let model = MainActorModel()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Promise<Int>(error: TestError.boom)
                .catch { _ in model.record("catch") }
                .finally { model.record("finally") }
            Promise<Int>(error: TestError.boom)
                .catch(on: .main) { _ in model.record("catch on main") }
                .finally(on: .main) {
                    model.record("finally on main")
                    continuation.resume()
                }
        }
        // Two chains, each in its order.
        #expect(model.steps.filter { !$0.hasSuffix("on main") } == ["catch", "finally"])
        #expect(model.steps.filter { $0.hasSuffix("on main") } == ["catch on main", "finally on main"])
        #expect(model.onMainQueue)
    }

    @MainActor
    @Test func guaranteesAndSequenceHelpersRunOnTheMainActor() async {
        let model = MainActorModel()
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<[Int], Never>) in
            Guarantee.value([3, 1, 2])
                .map { values -> [Int] in
                    model.record("map")
                    return values
                }
                .mapValues { value -> Int in
                    model.record("mapValues")
                    return value * 2
                }
                .filterValues { _ in
                    model.record("filterValues")
                    return true
                }
                .sortedValues { first, second in
                    model.record("sortedValues")
                    return first < second
                }
                .thenMap { value -> Guarantee<Int> in
                    model.record("thenMap")
                    return .value(value)
                }
                .then(on: .main) { values -> Guarantee<[Int]> in
                    model.record("then")
                    return .value(values)
                }
                .done { values in
                    model.record("done")
                    continuation.resume(returning: values)
                }
        }
        #expect(result == [2, 4, 6])
        #expect(model.steps.filter { $0 != "sortedValues" }.count == 12)
        #expect(model.steps.first == "map" && model.steps.last == "done")
        #expect(model.onMainQueue)
    }

    /// Outside any actor, a closure marked `@MainActor` is accepted, with `on: .main` and
    /// without, and runs on the main actor.
    @Test func aMainActorClosureIsAcceptedFromNonisolatedCode() async {
        let places = await withCheckedContinuation { (continuation: CheckedContinuation<[Bool], Never>) in
            Promise.value(1)
                .map { @MainActor _ in
                    MainActor.preconditionIsolated()
                    return [TestQueues.isOn(.main)]
                }
                .map(on: .main) { @MainActor places in
                    MainActor.preconditionIsolated()
                    return places + [TestQueues.isOn(.main)]
                }
                .done(on: nil) { continuation.resume(returning: $0) }
                .catch { _ in }
        }
        #expect(places == [true, true])
    }

    /// A closure written outside any actor runs where it always did: on `conf.Q`, or on `on:`.
    @Test func nonisolatedClosuresKeepTheirQueues() async {
        let queue = TestQueues.serial("main-actor.other")
        let places = await withCheckedContinuation { (continuation: CheckedContinuation<[Bool], Never>) in
            Promise.value(1)
                .map(on: queue) { _ in [TestQueues.isOn(queue)] }
                .map(on: nil) { $0 }
                .map { $0 + [TestQueues.isOn(PMKConfiguration.defaultQueue)] }
                .get { _ in }
                .done(on: nil) { continuation.resume(returning: $0) }
                .catch { _ in }
        }
        #expect(places == [true, true])
    }

    /// A cancelled step with a main-actor closure never calls it.
    @MainActor
    @Test func aCancelledMainActorStepNeverRunsItsClosure() async {
        let model = MainActorModel()
        let (head, resolver) = Promise<Int>.pending()
        let step = head.map { value -> Int in
            model.record("map")
            return value
        }
        step.cancel()
        resolver.fulfill(1)
        let rejected = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            step.catch(policy: .allErrors) { error in continuation.resume(returning: error.isCancelled) }
        }
        #expect(rejected)
        #expect(model.steps.isEmpty)
    }

    /// `wait()` on the main thread runs the chain's main-actor handlers itself, in order: in a
    /// command-line tool, whose `main.swift` is on the main actor, nothing else drains the main
    /// queue.
    @MainActor
    @Test(.timeLimit(.minutes(1))) func waitOnTheMainThreadRunsMainActorHandlers() throws {
        let model = MainActorModel()
        let (head, resolver) = Promise<Int>.pending()
        let chain = head.map { value -> Int in
            model.record("map")
            return value + 1
        }.then { value -> Promise<Int> in
            model.record("then")
            return after(seconds: 0).map(on: nil) { value * 10 }
        }.get { _ in model.record("get") }
        DispatchQueue.global().async { resolver.fulfill(1) }
        #expect(try chain.wait() == 20)
        #expect(model.steps == ["map", "then", "get"])
        #expect(try Promise.value(3).map { $0 + 1 }.wait() == 4)
    }

    /// A lazy promise starts when a main-actor handler is attached, and its handler runs there.
    @MainActor
    @Test func aLazyPromiseStartsForAMainActorHandler() async {
        let model = MainActorModel()
        let lazy = Promise<Int>.lazy { resolver in
            DispatchQueue.global().async { resolver.fulfill(7) }
        }
        let value = await withCheckedContinuation { (continuation: CheckedContinuation<Int, Never>) in
            lazy.done { value in
                model.record("done")
                continuation.resume(returning: value)
            }.catch { _ in }
        }
        #expect(value == 7)
        #expect(model.steps == ["done"])
        #expect(model.onMainQueue)
    }
}
