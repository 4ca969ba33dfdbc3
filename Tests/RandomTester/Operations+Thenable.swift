import Dispatch
import Pledge

/// The operators every thenable has (`Thenable`'s extensions), attached with each executor.
///
/// Each closure first reports its call to the recorder, then does what the ``Operation`` says.
/// The `switch`es spell out one call per form of `on:`, so that each overload is exercised.
func attachThenable<P: Thenable>(
    _ input: P, _ kind: ValueKind<P.T>, _ operation: Operation, on executor: Executor, _ build: Build
) -> (any NodeHandle)? {
    switch operation {
    case .map(let add, let fail):
        let body: @Sendable (P.T) throws -> Int = { value in
            build.ran(.fulfilled(kind.model(value)), on: executor)
            if let fail { throw TesterError(id: fail) }
            return kind.model(value).digest &+ add
        }
        return PromiseHandle(map(input, on: executor, body), .int)
    case .compactMap(let add, let returnsNil):
        let body: @Sendable (P.T) throws -> Int? = { value in
            build.ran(.fulfilled(kind.model(value)), on: executor)
            return returnsNil ? nil : kind.model(value).digest &+ add
        }
        return PromiseHandle(compactMap(input, on: executor, body), .int)
    case .then(let returned):
        return then(input, kind, returned, on: executor, build)
    case .done(let fail):
        let body: @Sendable (P.T) throws -> Void = { value in
            build.ran(.fulfilled(kind.model(value)), on: executor)
            if let fail { throw TesterError(id: fail) }
        }
        return PromiseHandle(done(input, on: executor, body), .void)
    case .get(let fail):
        let body: @Sendable (P.T) throws -> Void = { value in
            build.ran(.fulfilled(kind.model(value)), on: executor)
            if let fail { throw TesterError(id: fail) }
        }
        return PromiseHandle(get(input, on: executor, body), kind)
    case .tap:
        let body: @Sendable (Result<P.T, Error>) -> Void = { result in
            build.ran(kind.outcome(result), on: executor)
        }
        return PromiseHandle(tap(input, on: executor, body), kind)
    case .validate(let passes):
        let body: @Sendable (P.T) throws -> Bool = { value in
            build.ran(.fulfilled(kind.model(value)), on: executor)
            return passes
        }
        return PromiseHandle(validate(input, on: executor, body), kind)
    case .asVoid:
        return PromiseHandle(input.asVoid(), .void)
    case .timeout(let milliseconds):
        let timed = milliseconds.map { input.timeout(.milliseconds($0)) } ?? input.timeout(.never)
        return PromiseHandle(timed, kind)
    default:
        return nil
    }
}

private func map<P: Thenable, U: Sendable>(
    _ input: P, on executor: Executor, _ body: @escaping @Sendable (P.T) throws -> U
) -> Promise<U> {
    switch executor {
    case .inline, .serialQueue, .concurrentQueue, .mainQueue: return input.map(on: Executors.queue(executor), body)
    case .standard: return input.map(body)
    case .dispatcher: return input.map(on: Executors.dispatcher, body)
    case .mainActor: return input.map { @MainActor value in try body(value) }
    case .actor: return input.map { @TesterActor value in try body(value) }
    }
}

private func compactMap<P: Thenable, U: Sendable>(
    _ input: P, on executor: Executor, _ body: @escaping @Sendable (P.T) throws -> U?
) -> Promise<U> {
    switch executor {
    case .inline, .serialQueue, .concurrentQueue, .mainQueue:
        return input.compactMap(on: Executors.queue(executor), body)
    case .standard: return input.compactMap(body)
    case .dispatcher: return input.compactMap(on: Executors.dispatcher, body)
    case .mainActor: return input.compactMap { @MainActor value in try body(value) }
    case .actor: return input.compactMap { @TesterActor value in try body(value) }
    }
}

/// `then`, with a closure returning a promise, a guarantee or a foreign thenable.
private func then<P: Thenable>(
    _ input: P, _ kind: ValueKind<P.T>, _ returned: Returned, on executor: Executor, _ build: Build
) -> (any NodeHandle)? {
    @Sendable func report(_ value: P.T) { build.ran(.fulfilled(kind.model(value)), on: executor) }
    switch returned {
    case .value(let number):
        return PromiseHandle(
            then(input, on: executor) {
                report($0)
                return Promise.value(number)
            }, .int)
    case .rejection(let id):
        return PromiseHandle(
            then(input, on: executor) {
                report($0)
                return Promise<Int>(error: TesterError(id: id))
            }, .int)
    case .throw(let id):
        let body: @Sendable (P.T) throws -> Promise<Int> = {
            report($0)
            throw TesterError(id: id)
        }
        return PromiseHandle(then(input, on: executor, body), .int)
    case .node(let node):
        if let promise = build.promise(node, .int) {
            return PromiseHandle(
                then(input, on: executor) {
                    report($0)
                    return promise
                }, .int)
        } else if let guarantee = build.guarantee(node, .int) {
            return PromiseHandle(
                then(input, on: executor) {
                    report($0)
                    return guarantee
                }, .int)
        } else if let foreign = build.foreign(node) {
            return PromiseHandle(
                then(input, on: executor) {
                    report($0)
                    return foreign
                }, .int)
        }
        return nil
    }
}

private func then<P: Thenable, U: Thenable>(
    _ input: P, on executor: Executor, _ body: @escaping @Sendable (P.T) throws -> U
) -> Promise<U.T> {
    switch executor {
    case .inline, .serialQueue, .concurrentQueue, .mainQueue: return input.then(on: Executors.queue(executor), body)
    case .standard: return input.then(body)
    case .dispatcher: return input.then(on: Executors.dispatcher, body)
    case .mainActor: return input.then { @MainActor value in try body(value) }
    case .actor: return input.then { @TesterActor value in try body(value) }
    }
}

private func done<P: Thenable>(
    _ input: P, on executor: Executor, _ body: @escaping @Sendable (P.T) throws -> Void
) -> Promise<Void> {
    switch executor {
    case .inline, .serialQueue, .concurrentQueue, .mainQueue: return input.done(on: Executors.queue(executor), body)
    case .standard: return input.done(body)
    case .dispatcher: return input.done(on: Executors.dispatcher, body)
    case .mainActor: return input.done { @MainActor value in try body(value) }
    case .actor: return input.done { @TesterActor value in try body(value) }
    }
}

private func get<P: Thenable>(
    _ input: P, on executor: Executor, _ body: @escaping @Sendable (P.T) throws -> Void
) -> Promise<P.T> {
    switch executor {
    case .inline, .serialQueue, .concurrentQueue, .mainQueue: return input.get(on: Executors.queue(executor), body)
    case .standard: return input.get(body)
    case .dispatcher: return input.get(on: Executors.dispatcher, body)
    case .mainActor: return input.get { @MainActor value in try body(value) }
    case .actor: return input.get { @TesterActor value in try body(value) }
    }
}

private func tap<P: Thenable>(
    _ input: P, on executor: Executor, _ body: @escaping @Sendable (Result<P.T, Error>) -> Void
) -> Promise<P.T> {
    switch executor {
    case .inline, .serialQueue, .concurrentQueue, .mainQueue: return input.tap(on: Executors.queue(executor), body)
    case .standard: return input.tap(body)
    case .dispatcher: return input.tap(on: Executors.dispatcher, body)
    case .mainActor: return input.tap { @MainActor result in body(result) }
    case .actor: return input.tap { @TesterActor result in body(result) }
    }
}

private func validate<P: Thenable>(
    _ input: P, on executor: Executor, _ body: @escaping @Sendable (P.T) throws -> Bool
) -> Promise<P.T> {
    switch executor {
    case .inline, .serialQueue, .concurrentQueue, .mainQueue:
        return input.validate(on: Executors.queue(executor), body)
    case .standard: return input.validate(body)
    case .dispatcher: return input.validate(on: Executors.dispatcher, body)
    case .mainActor: return input.validate { @MainActor value in try body(value) }
    case .actor: return input.validate { @TesterActor value in try body(value) }
    }
}
