// The operations behind the operators that act on fulfilment: rejections pass through them
// untouched and without dispatching. See `ChainOperation`.

/// `map`, `done`, `asVoid`, and Guarantee's `map` and `done`: the value becomes `transform`'s.
@usableFromInline
struct MapOperation<Input: Sendable, Output: Sendable>: ValueOperation, FulfilmentOperation {
    @usableFromInline
    var body: (@Sendable (Input) throws -> Output)?

    @inlinable
    init(_ transform: @escaping @Sendable (Input) throws -> Output) {
        self.body = transform
    }

    @inlinable
    func output(for result: Result<Input, Error>) -> Result<Output, Error> {
        switch result {
        case .success(let value):
            guard let transform = body else { return .failure(PMKError.cancelled) }
            return catching { try transform(value) }
        case .failure(let error): return .failure(error)
        }
    }
}

/// `compactMap`: like ``MapOperation``, but `nil` rejects with ``PMKError/compactMap(_:_:)``.
@usableFromInline
struct CompactMapOperation<Input: Sendable, Output: Sendable>: ValueOperation, FulfilmentOperation {
    @usableFromInline
    var body: (@Sendable (Input) throws -> Output?)?

    @inlinable
    init(_ transform: @escaping @Sendable (Input) throws -> Output?) {
        self.body = transform
    }

    @inlinable
    func output(for result: Result<Input, Error>) -> Result<Output, Error> {
        switch result {
        case .success(let value):
            guard let transform = body else { return .failure(PMKError.cancelled) }
            return catching {
                guard let mapped = try transform(value) else {
                    throw PMKError.compactMapFailure(value, to: Output.self)
                }
                return mapped
            }
        case .failure(let error):
            return .failure(error)
        }
    }
}

/// `get`, and Guarantee's `get`: `body` looks at the value, which passes on unchanged.
@usableFromInline
struct GetOperation<Value: Sendable>: ValueOperation, FulfilmentOperation {
    @usableFromInline typealias Input = Value
    @usableFromInline typealias Output = Value

    @usableFromInline
    var body: (@Sendable (Value) throws -> Void)?

    @inlinable
    init(_ body: @escaping @Sendable (Value) throws -> Void) {
        self.body = body
    }

    @inlinable
    func output(for result: Result<Value, Error>) -> Result<Value, Error> {
        guard case .success(let value) = result else { return result }
        guard let body else { return .failure(PMKError.cancelled) }
        return catching {
            try body(value)
            return value
        }
    }
}

/// `tap`: `body` looks at every result, which passes on unchanged.
@usableFromInline
struct TapOperation<Value: Sendable>: ValueOperation {
    @usableFromInline typealias Input = Value
    @usableFromInline typealias Output = Value

    @usableFromInline
    var body: (@Sendable (Result<Value, Error>) -> Void)?

    @inlinable
    init(_ body: @escaping @Sendable (Result<Value, Error>) -> Void) {
        self.body = body
    }

    @inlinable
    func acts(on result: Result<Value, Error>) -> Bool { true }

    @inlinable
    func output(for result: Result<Value, Error>) -> Result<Value, Error> {
        body?(result)
        return result
    }
}

/// `then`, and Guarantee's `then`: the result follows the thenable `body` returns.
@usableFromInline
struct ThenOperation<Input: Sendable, Next: Thenable>: ChainOperation, FulfilmentOperation {
    @usableFromInline typealias Output = Next.T

    @usableFromInline
    var body: (@Sendable (Input) throws -> Next)?

    @inlinable
    init(_ body: @escaping @Sendable (Input) throws -> Next) {
        self.body = body
    }

    @inlinable
    func run(
        _ result: Result<Input, Error>, into box: consuming Retained<EmptyBox<Result<Next.T, Error>>>,
        _ run: inout Run
    ) -> Step? {
        let next: Next
        switch result {
        case .success(let value):
            guard let body else { return run.seal(box, with: .failure(PMKError.cancelled)) }
            do {
                next = try body(value)
            } catch {
                return run.seal(box, with: .failure(error))
            }
        case .failure(let error):
            return run.seal(box, with: .failure(error))
        }
        return follow(next, into: box, &run)
    }
}
