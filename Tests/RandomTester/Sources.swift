import Dispatch
import Foundation
import Pledge

/// Makes the graph's sources: `pending()`, sealed values, lazy bodies, `after`, `Promise(task:)`
/// and `retry`. Returns the node, and the resolver of a pending one.
func makeSource(
    _ source: Source, _ node: Node, _ build: Build
) -> (handle: any NodeHandle, resolver: ResolverHandle?)? {
    switch (source, node.form, node.type) {
    case (.pending, .promise, .int):
        let (promise, resolver) = Promise<Int>.pending()
        return (PromiseHandle(promise, .int), .promise(resolver))
    case (.pending, .guarantee, .int):
        let (guarantee, resolve) = Guarantee<Int>.pending()
        return (GuaranteeHandle(guarantee, .int), .guarantee(resolve))
    case (.pending, .guarantee, .void):
        let (guarantee, resolve) = Guarantee<Void>.pending()
        return (GuaranteeHandle(guarantee, .void), .voidGuarantee(resolve))
    case (.pending, .foreign, _):
        let thenable = ForeignThenable()
        return (ForeignHandle(thenable), .foreign(thenable))
    case (.fulfilled(let value), .promise, _):
        return (PromiseHandle(Promise.value(value), .int), nil)
    case (.fulfilled(let value), .guarantee, _):
        return (GuaranteeHandle(Guarantee.value(value), .int), nil)
    case (.rejected(let id), _, _):
        return (PromiseHandle(Promise<Int>(error: TesterError(id: id)), .int), nil)
    case (.lazy(let body), .promise, _):
        return makeLazyPromise(body, build).map { ($0, nil) }
    case (.lazy(let body), .guarantee, _):
        return makeLazyGuarantee(body, build).map { ($0, nil) }
    case (.after(let milliseconds), _, _):
        return (GuaranteeHandle(after(.milliseconds(milliseconds)), .void), nil)
    case (.task(let body), .promise, _):
        return makeTaskPromise(body, build).map { ($0, nil) }
    case (.task(let body), .guarantee, _):
        return makeTaskGuarantee(body, build).map { ($0, nil) }
    default:
        return nil
    }
}

private func makeLazyPromise(_ body: LazyBody, _ build: Build) -> (any NodeHandle)? {
    var previous: Promise<Int>?
    if case .pipe(let node) = body {
        guard let promise = build.promise(node, .int) else { return nil }
        previous = promise
    }
    let lazy = Promise<Int>.lazy { [previous] seal in
        build.ran(on: .inline)
        switch body {
        case .fulfill(let value): seal.fulfill(value)
        case .reject(let id): seal.reject(TesterError(id: id))
        case .fulfillLater(let value): DispatchQueue.global().async { seal.fulfill(value) }
        case .pipe: previous?.pipe { seal.resolve($0) }
        }
    }
    return PromiseHandle(lazy, .int)
}

private func makeLazyGuarantee(_ body: LazyBody, _ build: Build) -> (any NodeHandle)? {
    var previous: Guarantee<Int>?
    if case .pipe(let node) = body {
        guard let guarantee = build.guarantee(node, .int) else { return nil }
        previous = guarantee
    }
    let lazy = Guarantee<Int>.lazy { [previous] resolve in
        build.ran(on: .inline)
        switch body {
        case .fulfill(let value), .reject(let value): resolve(value)
        case .fulfillLater(let value): DispatchQueue.global().async { resolve(value) }
        case .pipe: previous?.done(on: nil) { resolve($0) }
        }
    }
    return GuaranteeHandle(lazy, .int)
}

private func makeTaskPromise(_ body: TaskBody, _ build: Build) -> (any NodeHandle)? {
    switch body {
    case .value(let value):
        return PromiseHandle(
            Promise<Int>(task: {
                build.ran(on: .inline)
                return value
            }), .int)
    case .fail(let id):
        return PromiseHandle(
            Promise<Int>(task: {
                build.ran(on: .inline)
                throw TesterError(id: id)
            }), .int)
    case .await(let node, let add):
        if let awaited = build.promise(node, .int) {
            return PromiseHandle(
                Promise<Int>(task: {
                    build.ran(on: .inline)
                    return try await awaited.async() &+ add
                }), .int)
        } else if let awaited = build.guarantee(node, .int) {
            return PromiseHandle(
                Promise<Int>(task: {
                    build.ran(on: .inline)
                    return await awaited.async() &+ add
                }), .int)
        }
        return nil
    }
}

private func makeTaskGuarantee(_ body: TaskBody, _ build: Build) -> (any NodeHandle)? {
    switch body {
    case .value(let value), .fail(let value):
        return GuaranteeHandle(
            Guarantee<Int>(task: {
                build.ran(on: .inline)
                return value
            }), .int)
    case .await(let node, let add):
        guard let awaited = build.guarantee(node, .int) else { return nil }
        return GuaranteeHandle(
            Guarantee<Int>(task: {
                build.ran(on: .inline)
                return await awaited.async() &+ add
            }), .int)
    }
}

/// `retry(attempts:backoff:)` whose body plays `script`, one entry per attempt.
func makeRetry(attempts: Int, script: [Attempt], backoffMilliseconds: Int, _ build: Build) -> any NodeHandle {
    let backoff: Backoff = backoffMilliseconds == 0 ? .none : .constant(.milliseconds(backoffMilliseconds))
    let calls = AttemptCounter()
    let promise = retry(attempts: attempts, backoff: backoff) { () throws -> Promise<Int> in
        build.ran(on: .inline)
        let attempt = script[min(calls.next(), script.count - 1)]
        switch attempt {
        case .fulfill(let value): return .value(value)
        case .reject(let id): return Promise(error: TesterError(id: id))
        case .throw(let id): throw TesterError(id: id)
        case .fulfillLater(let value): return after(.milliseconds(1)).then(on: nil) { Promise.value(value) }
        }
    }
    return PromiseHandle(promise, .int)
}

/// Counts a retry body's calls.
private final class AttemptCounter: @unchecked Sendable {
    // Safety: `count` is only read or written while `lock` is held.
    private var count = 0
    private let lock = NSLock()

    func next() -> Int {
        lock.withLock {
            defer { count += 1 }
            return count
        }
    }
}
