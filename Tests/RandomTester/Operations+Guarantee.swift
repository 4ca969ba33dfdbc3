import Dispatch
import Pledge

extension GuaranteeHandle {
    /// A guarantee's own non-throwing forms make guarantees; everything else is `Thenable`'s.
    func attach(_ operation: Operation, on executor: Executor, _ build: Build) -> (any NodeHandle)? {
        let kind = self.kind
        @Sendable func report(_ value: T) { build.ran(.fulfilled(kind.model(value)), on: executor) }
        switch operation {
        case .guaranteeMap(let add):
            let body: @Sendable (T) -> Int = { value in
                report(value)
                return kind.model(value).digest &+ add
            }
            return GuaranteeHandle<Int>(map(guarantee, on: executor, body), .int)
        case .guaranteeThen(let returned):
            let next: Guarantee<Int>
            if case .node(let node) = returned {
                guard let other = build.guarantee(node, .int) else { return nil }
                next = other
            } else {
                next = Guarantee.value(returned.number)
            }
            let body: @Sendable (T) -> Guarantee<Int> = { value in
                report(value)
                return next
            }
            return GuaranteeHandle<Int>(then(guarantee, on: executor, body), .int)
        case .guaranteeDone:
            return GuaranteeHandle<Void>(done(guarantee, on: executor) { report($0) }, .void)
        case .guaranteeGet:
            return GuaranteeHandle(get(guarantee, on: executor) { report($0) }, kind)
        default:
            return attachThenable(guarantee, kind, operation, on: executor, build)
        }
    }
}

extension ForeignHandle {
    func attach(_ operation: Operation, on executor: Executor, _ build: Build) -> (any NodeHandle)? {
        attachThenable(thenable, .int, operation, on: executor, build)
    }
}

private func map<T: Sendable, U: Sendable>(
    _ input: Guarantee<T>, on executor: Executor, _ body: @escaping @Sendable (T) -> U
) -> Guarantee<U> {
    switch executor {
    case .inline, .serialQueue, .concurrentQueue, .mainQueue: return input.map(on: Executors.queue(executor), body)
    case .standard: return input.map(body)
    case .dispatcher: return input.map(on: Executors.dispatcher, body)
    case .mainActor: return input.map { @MainActor value in body(value) }
    case .actor: return input.map { @TesterActor value in body(value) }
    }
}

private func then<T: Sendable, U: Sendable>(
    _ input: Guarantee<T>, on executor: Executor, _ body: @escaping @Sendable (T) -> Guarantee<U>
) -> Guarantee<U> {
    switch executor {
    case .inline, .serialQueue, .concurrentQueue, .mainQueue: return input.then(on: Executors.queue(executor), body)
    case .standard: return input.then(body)
    case .dispatcher: return input.then(on: Executors.dispatcher, body)
    case .mainActor: return input.then { @MainActor value in body(value) }
    case .actor: return input.then { @TesterActor value in body(value) }
    }
}

private func done<T: Sendable>(
    _ input: Guarantee<T>, on executor: Executor, _ body: @escaping @Sendable (T) -> Void
) -> Guarantee<Void> {
    switch executor {
    case .inline, .serialQueue, .concurrentQueue, .mainQueue: return input.done(on: Executors.queue(executor), body)
    case .standard: return input.done(body)
    case .dispatcher: return input.done(on: Executors.dispatcher, body)
    case .mainActor: return input.done { @MainActor value in body(value) }
    case .actor: return input.done { @TesterActor value in body(value) }
    }
}

private func get<T: Sendable>(
    _ input: Guarantee<T>, on executor: Executor, _ body: @escaping @Sendable (T) -> Void
) -> Guarantee<T> {
    switch executor {
    case .inline, .serialQueue, .concurrentQueue, .mainQueue: return input.get(on: Executors.queue(executor), body)
    case .standard: return input.get(body)
    case .dispatcher: return input.get(on: Executors.dispatcher, body)
    case .mainActor: return input.get { @MainActor value in body(value) }
    case .actor: return input.get { @TesterActor value in body(value) }
    }
}
