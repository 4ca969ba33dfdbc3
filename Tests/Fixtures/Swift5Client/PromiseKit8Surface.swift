// PromiseKit 8.2's public API, called the way PromiseKit code calls it (its README, its tests),
// in Swift 5 mode. Each function exercises one area; none of them is run. If a line here stops
// compiling, PromiseKit 8 code that did the same stops compiling too.

import Dispatch
import Pledge

enum PMK8Error: Error { case dummy }

final class PMK8Box {
    var count = 0
}

// MARK: Promise and Resolver

func pmk8PromiseInitialisers() {
    _ = Promise.value(1)
    _ = Promise<Int>.value(1)
    let _: Promise<Int> = .value(1)
    _ = Promise<Int>(error: PMK8Error.dummy)
    _ = Promise()
    _ = Promise<Void>()
    _ = Promise.value
    _ = Promise(Guarantee.value(1))
    _ = Promise(Promise.value(1))
    _ = Promise<Int> { seal in seal.fulfill(1) }
    _ = Promise<Int> { _ in throw PMK8Error.dummy }
    _ = Promise<Int>(resolver: { seal in seal.reject(PMK8Error.dummy) })

    let (promise, resolver) = Promise<Int>.pending()
    resolver.fulfill(1)
    _ = promise
    let pending = Promise<String>.pending()
    pending.resolver.resolve("a", nil)
    _ = pending.promise
}

func pmk8ResolverForms(seal: Resolver<Int>, void: Resolver<Void>, error: Error?, value: Int?) {
    seal.fulfill(1)
    seal.reject(PMK8Error.dummy)
    seal.resolve(value, error)
    seal.resolve(1, error)
    seal.resolve(error, value)
    seal.resolve(Result<Int, Error>.success(1))
    seal.resolve(.failure(PMK8Error.dummy))
    seal.resolve(Result<Int, PMK8Error>.failure(.dummy))
    void.fulfill()
    void.fulfill_()
    void.fulfill(())
    void.resolve(error)
    void.resolve(nil)
}

func pmk8WrapCompletionHandlers(load: @escaping (@escaping (Int?, Error?) -> Void) -> Void) -> Promise<Int> {
    return Promise { seal in
        load(seal.resolve)
    }
}

func pmk8WrapVoidCompletionHandlers(save: @escaping (@escaping (Error?) -> Void) -> Void) -> Promise<Void> {
    return Promise { seal in
        save(seal.resolve)
    }
}

func pmk8FunctionReferencesAsHandlers(promise: Promise<Int>, record: @escaping (Int) -> Void) {
    promise.done(record).cauterize()
    _ = Promise.value(()).result?.isFulfilled ?? false
}

// MARK: Thenable

func pmk8ThenableOperators(promise: Promise<Int>, queue: DispatchQueue) {
    promise.then { Promise.value($0 + 1) }.done { _ in }.cauterize()
    promise.then(on: queue) { _ in Guarantee.value(1) }.cauterize()
    promise.then(on: queue, flags: .barrier) { Promise.value($0) }.cauterize()
    promise.map { $0 + 1 }.map(on: nil) { String($0) }.cauterize()
    promise.map(on: .global(), flags: .barrier) { $0 }.cauterize()
    promise.map(\.description).cauterize()
    promise.compactMap { $0 > 0 ? $0 : nil }.cauterize()
    promise.done { _ in }.cauterize()
    promise.done(on: .main) { _ in }.cauterize()
    promise.get { _ in }.tap { result in
        switch result {
        case .success(let value): print(value)
        case .failure(let error): print(error)
        }
    }.cauterize()
    promise.tap { print($0.isFulfilled, $0.isRejected) }.cauterize()
    promise.asVoid().cauterize()
    _ = (promise.value, promise.error, promise.result)
    _ = (promise.isPending, promise.isResolved, promise.isFulfilled, promise.isRejected)
    _ = promise.description
    _ = promise.debugDescription
    promise.pipe { result in _ = result }
}

func pmk8SequenceOperators(numbers: Promise<[Int]>, words: Promise<[String]>) {
    numbers.mapValues { $0 * 2 }.cauterize()
    numbers.flatMapValues { [$0, $0] }.cauterize()
    words.compactMapValues { Int($0) }.cauterize()
    numbers.thenMap { Promise.value($0) }.cauterize()
    numbers.thenFlatMap { Promise.value([$0, $0]) }.cauterize()
    numbers.filterValues { $0 > 1 }.cauterize()
    numbers.firstValue.cauterize()
    numbers.lastValue.cauterize()
    numbers.firstValue(where: { $0 > 1 }).cauterize()
    numbers.sortedValues().cauterize()
    words.mapValues(\.count).cauterize()
}

// MARK: CatchMixin and PMKFinalizer

func pmk8Catching(promise: Promise<Int>, void: Promise<Void>, queue: DispatchQueue) {
    promise.done { _ in }.catch { _ in }.finally {}
    promise.done { _ in }.catch(on: queue, policy: .allErrors) { _ in }.finally(on: queue) {}
    promise.done { _ in }.catch(policy: .allErrorsExceptCancellation) { _ in }
    promise.recover { _ in Promise.value(0) }.cauterize()
    promise.recover(policy: .allErrors) { _ in Promise.value(0) }.cauterize()
    let guaranteed: Guarantee<Int> = promise.recover { _ in Guarantee.value(0) }
    _ = guaranteed
    let voidGuarantee: Guarantee<Void> = void.recover { _ in }
    _ = voidGuarantee
    void.recover { error in throw error }.cauterize()
    promise.ensure {}.ensureThen { Guarantee.value(()) }.cauterize()
    promise.ensureThen { after(seconds: 0) }.cauterize()
}

func pmk8ErrorsAndPolicy(error: Error) {
    _ = error.isCancelled
    _ = CatchPolicy.allErrors
    _ = conf.catchPolicy
    switch error {
    case PMKError.cancelled: break
    case PMKError.badInput, PMKError.emptySequence, PMKError.noWinner: break
    case PMKError.returnedSelf, PMKError.invalidCallingConvention: break
    default: break
    }
    if case PMKError.compactMap(let value, let type)? = error as? PMKError {
        print(value, type)
    }
    print(PMKError.noWinner.debugDescription)
}

// MARK: Guarantee

func pmk8Guarantees(guarantee: Guarantee<Int>, queue: DispatchQueue) {
    _ = Guarantee.value(1)
    _ = Guarantee()
    _ = Guarantee<Void>.value
    _ = Guarantee<Int> { resolve in resolve(1) }
    _ = Guarantee<Int>(resolver: { resolve in resolve(1) })
    let (pending, resolve) = Guarantee<Int>.pending()
    resolve(1)
    let named = Guarantee<Int>.pending()
    named.resolve(1)
    _ = (pending, named.guarantee)

    guarantee.done { _ in }
    guarantee.done(on: queue) { _ in }
    guarantee.get { _ in }.map { $0 + 1 }.then { Guarantee.value($0) }.done { _ in }
    guarantee.map(on: queue, flags: .barrier) { $0 }.asVoid().done {}
    guarantee.then { _ in Promise.value(1) }.cauterize()
    guarantee.map { _ in throw PMK8Error.dummy }.cauterize()
    _ = guarantee.value
    _ = guarantee.isPending
    _ = guarantee.description

    let numbers = Guarantee.value([3, 1, 2])
    numbers.mapValues { $0 * 2 }.done { _ in }
    numbers.flatMapValues { [$0] }.done { _ in }
    numbers.compactMapValues { $0 > 1 ? $0 : nil }.done { _ in }
    numbers.thenMap { Guarantee.value($0) }.done { _ in }
    numbers.thenFlatMap { Guarantee.value([$0]) }.done { _ in }
    numbers.filterValues { $0 > 1 }.done { _ in }
    numbers.sortedValues().done { _ in }
    numbers.sortedValues(by: >).done { _ in }
    numbers.sortedValues(>).done { _ in }
    numbers.sortedValues { $0 > $1 }.done { _ in }
}

// MARK: Combinators

func pmk8Combinators(a: Promise<Int>, b: Promise<String>, c: Promise<Bool>, d: Promise<Double>, e: Promise<[Int]>) {
    when(fulfilled: [a, a]).done { _ in }.cauterize()
    when(fulfilled: a, a, a).done { _ in }.cauterize()
    when(fulfilled: a.asVoid(), b.asVoid()).done {}.cauterize()
    when(fulfilled: [a.asVoid(), b.asVoid()]).done {}.cauterize()
    when(fulfilled: a, b).done { x, y in print(x, y) }.cauterize()
    when(fulfilled: a, b, c).done { _, _, _ in }.cauterize()
    when(fulfilled: a, b, c, d).done { _, _, _, _ in }.cauterize()
    when(fulfilled: a, b, c, d, e).done { _, _, _, _, _ in }.cauterize()
    when(resolved: a, a).done { results in _ = results.map { $0.isFulfilled } }
    when(resolved: [a, a]).done { _ in }
    var iterator = [a, a].makeIterator()
    when(fulfilled: AnyIterator { iterator.next() }, concurrently: 1).done { _ in }.cauterize()
    when(guarantees: [Guarantee.value(1)]).done { _ in }
    when(guarantees: Guarantee.value(1), Guarantee.value("a")).done { _, _ in }
    when(Guarantee.value(()), Guarantee.value(())).done {}
    when(Guarantee.value(1), Guarantee.value(2)).done { _ in }

    race(a, a).done { _ in }.cauterize()
    race([a, a]).done { _ in }.cauterize()
    race(a.asVoid(), after(seconds: 1).asVoid()).cauterize()
    race(Guarantee.value(1), Guarantee.value(2)).done { _ in }
    race(fulfilled: [a, a]).done { _ in }.cauterize()

    after(seconds: 0.5).done {}
    after(.seconds(1)).done {}
    after(.milliseconds(10)).then { a }.cauterize()

    firstly { a }.done { _ in }.cauterize()
    firstly { Guarantee.value(1) }.done { _ in }
    firstly { () -> Promise<Int> in throw PMK8Error.dummy }.cauterize()
}

// MARK: Dispatch and configuration

func pmk8DispatchAndConfiguration(queue: DispatchQueue, group: DispatchGroup) {
    DispatchQueue.global().async(.promise) { 1 }.done { _ in }
    DispatchQueue.global().async(.promise) { () throws -> Int in 1 }.done { _ in }.cauterize()
    queue.async(.promise, group: group, qos: .userInitiated, flags: .barrier) { 1 }.done { _ in }
    queue.async(.promise, execute: { 1 }).done { _ in }
    _ = PMKNamespacer.promise

    conf.Q = (map: queue, return: queue)
    conf.Q = (queue, .main)
    conf.Q.map = .global()
    conf.Q.return = nil
    conf.catchPolicy = .allErrors
    conf.logHandler = { event in
        switch event {
        case .waitOnMainThread, .pendingPromiseDeallocated, .pendingGuaranteeDeallocated: break
        case .cauterized(let error): print(error)
        default: break
        }
    }
}

func pmk8Waiting(promise: Promise<Int>, guarantee: Guarantee<Int>) throws -> Int {
    return try promise.wait() + guarantee.wait()
}

@available(macOS 10.15, iOS 13, tvOS 13, watchOS 6, *)
func pmk8Async(promise: Promise<Int>, guarantee: Guarantee<Int>) async throws -> Int {
    let a = try await promise.async()
    let b = await guarantee.async()
    return a + b
}

// MARK: Swift.Result, where PromiseKit had its own Result

func pmk8Results(results: [Result<Int, Error>]) -> Int {
    return results.filter { $0.isFulfilled }.count + results.filter(\.isRejected).count
}

// MARK: Non-Sendable values and closures that mutate captured state, as in Swift 5 code

func pmk8NonSendable(box: PMK8Box) -> Promise<PMK8Box> {
    var calls = 0
    return Promise.value(box).get { box in
        calls += 1
        box.count += calls
    }.map { $0 }
}
