import Dispatch
import Pledge

extension PromiseHandle {
    func attach(_ operation: Operation, on executor: Executor, _ build: Build) -> (any NodeHandle)? {
        switch operation {
        case .recover(let returned, let allErrors):
            return recover(returned, policy: allErrors ? .allErrors : .allErrorsExceptCancellation, executor, build)
        case .recoverGuarantee(let returned):
            let fallback: Guarantee<T>
            switch returned {
            case .node(let node):
                guard let guarantee = build.guarantee(node, kind) else { return nil }
                fallback = guarantee
            default:
                fallback = Guarantee.value(kind.make(returned.number))
            }
            let body: @Sendable (Error) -> Guarantee<T> = { error in
                build.ran(.rejected(Failure(error)), on: executor)
                return fallback
            }
            return GuaranteeHandle(recoverWithGuarantee(promise, on: executor, body), kind)
        case .ensure:
            return PromiseHandle(ensure(promise, on: executor) { build.ran(on: executor) }, kind)
        case .ensureThen(let returned):
            let cleanup: Guarantee<Void>
            if case .node(let node) = returned {
                guard let guarantee = build.guarantee(node, .void) else { return nil }
                cleanup = guarantee
            } else {
                cleanup = Guarantee()
            }
            let body: @Sendable () -> Guarantee<Void> = {
                build.ran(on: executor)
                return cleanup
            }
            return PromiseHandle(ensureThen(promise, on: executor, body), kind)
        case .catch(let allErrors):
            let body: @Sendable (Error) -> Void = { error in build.ran(.rejected(Failure(error)), on: executor) }
            let policy: CatchPolicy = allErrors ? .allErrors : .allErrorsExceptCancellation
            return FinalizerHandle(`catch`(promise, on: executor, policy: policy, body))
        default:
            return attachThenable(promise, kind, operation, on: executor, build)
        }
    }

    /// `recover` with a closure that returns a thenable of the graph, a sealed promise, or throws.
    private func recover(
        _ returned: Returned, policy: CatchPolicy, _ executor: Executor, _ build: Build
    ) -> (any NodeHandle)? {
        @Sendable func report(_ error: Error) { build.ran(.rejected(Failure(error)), on: executor) }
        let kind = self.kind
        switch returned {
        case .value(let number):
            let body: @Sendable (Error) throws -> Promise<T> = {
                report($0)
                return .value(kind.make(number))
            }
            return PromiseHandle(recoverWithThenable(promise, on: executor, policy: policy, body), kind)
        case .rejection(let id):
            let body: @Sendable (Error) throws -> Promise<T> = {
                report($0)
                return Promise(error: TesterError(id: id))
            }
            return PromiseHandle(recoverWithThenable(promise, on: executor, policy: policy, body), kind)
        case .throw(let id):
            let body: @Sendable (Error) throws -> Promise<T> = {
                report($0)
                throw TesterError(id: id)
            }
            return PromiseHandle(recoverWithThenable(promise, on: executor, policy: policy, body), kind)
        case .node(let node):
            if let other = build.promise(node, kind) {
                let body: @Sendable (Error) throws -> Promise<T> = {
                    report($0)
                    return other
                }
                return PromiseHandle(recoverWithThenable(promise, on: executor, policy: policy, body), kind)
            } else if let other = build.guarantee(node, kind) {
                let body: @Sendable (Error) throws -> Guarantee<T> = {
                    report($0)
                    return other
                }
                return PromiseHandle(recoverWithThenable(promise, on: executor, policy: policy, body), kind)
            } else if let other = build.foreign(node), let ints = promise as? Promise<Int> {
                let body: @Sendable (Error) throws -> ForeignThenable = {
                    report($0)
                    return other
                }
                return PromiseHandle<Int>(recoverWithThenable(ints, on: executor, policy: policy, body), .int)
            }
            return nil
        }
    }
}

extension Returned {
    /// The number of a `.value`, `.rejection` or `.throw`.
    var number: Int {
        switch self {
        case .value(let number), .rejection(let number), .throw(let number): return number
        case .node(let node): return node
        }
    }
}

// The spelled-out calls, one per form of `on:`.

private func recoverWithThenable<T: Sendable, U: Thenable>(
    _ input: Promise<T>, on executor: Executor, policy: CatchPolicy, _ body: @escaping @Sendable (Error) throws -> U
) -> Promise<T> where U.T == T {
    switch executor {
    case .inline, .serialQueue, .concurrentQueue, .mainQueue:
        return input.recover(on: Executors.queue(executor), policy: policy, body)
    case .standard: return input.recover(policy: policy, body)
    case .dispatcher: return input.recover(on: Executors.dispatcher, policy: policy, body)
    case .mainActor: return input.recover(policy: policy) { @MainActor error in try body(error) }
    case .actor: return input.recover(policy: policy) { @TesterActor error in try body(error) }
    }
}

private func recoverWithGuarantee<T: Sendable>(
    _ input: Promise<T>, on executor: Executor, _ body: @escaping @Sendable (Error) -> Guarantee<T>
) -> Guarantee<T> {
    switch executor {
    case .inline, .serialQueue, .concurrentQueue, .mainQueue: return input.recover(on: Executors.queue(executor), body)
    case .standard: return input.recover(body)
    case .dispatcher: return input.recover(on: Executors.dispatcher, body)
    case .mainActor: return input.recover { @MainActor error in body(error) }
    case .actor: return input.recover { @TesterActor error in body(error) }
    }
}

private func ensure<T: Sendable>(
    _ input: Promise<T>, on executor: Executor, _ body: @escaping @Sendable () -> Void
) -> Promise<T> {
    switch executor {
    case .inline, .serialQueue, .concurrentQueue, .mainQueue: return input.ensure(on: Executors.queue(executor), body)
    case .standard: return input.ensure(body)
    case .dispatcher: return input.ensure(on: Executors.dispatcher, body)
    case .mainActor: return input.ensure { @MainActor in body() }
    case .actor: return input.ensure { @TesterActor in body() }
    }
}

private func ensureThen<T: Sendable>(
    _ input: Promise<T>, on executor: Executor, _ body: @escaping @Sendable () -> Guarantee<Void>
) -> Promise<T> {
    switch executor {
    case .inline, .serialQueue, .concurrentQueue, .mainQueue:
        return input.ensureThen(on: Executors.queue(executor), body)
    case .standard: return input.ensureThen(body)
    case .dispatcher: return input.ensureThen(on: Executors.dispatcher, body)
    case .mainActor: return input.ensureThen { @MainActor in body() }
    case .actor: return input.ensureThen { @TesterActor in body() }
    }
}

private func `catch`<T: Sendable>(
    _ input: Promise<T>, on executor: Executor, policy: CatchPolicy, _ body: @escaping @Sendable (Error) -> Void
) -> PMKFinalizer {
    switch executor {
    case .inline, .serialQueue, .concurrentQueue, .mainQueue:
        return input.catch(on: Executors.queue(executor), policy: policy, body)
    case .standard: return input.catch(policy: policy, body)
    case .dispatcher: return input.catch(on: Executors.dispatcher, policy: policy, body)
    case .mainActor: return input.catch(policy: policy) { @MainActor error in body(error) }
    case .actor: return input.catch(policy: policy) { @TesterActor error in body(error) }
    }
}

extension FinalizerHandle {
    func attach(_ operation: Operation, on executor: Executor, _ build: Build) -> (any NodeHandle)? {
        guard case .finally = operation else { return nil }
        let body: @Sendable () -> Void = { build.ran(on: executor) }
        switch executor {
        case .inline, .serialQueue, .concurrentQueue, .mainQueue: finalizer.finally(on: Executors.queue(executor), body)
        case .standard: finalizer.finally(body)
        case .dispatcher: finalizer.finally(on: Executors.dispatcher, body)
        case .mainActor: finalizer.finally { @MainActor in body() }
        case .actor: finalizer.finally { @TesterActor in body() }
        }
        return MarkerHandle()
    }
}
