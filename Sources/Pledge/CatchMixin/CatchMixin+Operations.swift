// The operations behind the operators that act on rejection or on every result. See
// `ChainOperation`.

/// `catch`: `body` gets the errors `policy` accepts; the result is `Void` either way.
@usableFromInline
struct CatchOperation<Input: Sendable>: ValueOperation {
    @usableFromInline typealias Output = Void

    @usableFromInline
    let policy: CatchPolicy
    @usableFromInline
    var body: (@Sendable (Error) -> Void)?

    @inlinable
    init(policy: CatchPolicy, _ body: @escaping @Sendable (Error) -> Void) {
        self.policy = policy
        self.body = body
    }

    @inlinable
    func acts(on result: Result<Input, Error>) -> Bool { policy.accepts(result) }

    @inlinable
    func output(for result: Result<Input, Error>) -> Result<Void, Error> {
        if acts(on: result), case .failure(let error) = result { body?(error) }
        return .success(())
    }
}

/// `recover` with a thenable: errors `policy` accepts are replaced by what `body` returns.
@usableFromInline
struct RecoverOperation<Next: Thenable>: ChainOperation {
    @usableFromInline typealias Input = Next.T
    @usableFromInline typealias Output = Next.T

    @usableFromInline
    let policy: CatchPolicy
    @usableFromInline
    var body: (@Sendable (Error) throws -> Next)?

    @inlinable
    init(policy: CatchPolicy, _ body: @escaping @Sendable (Error) throws -> Next) {
        self.policy = policy
        self.body = body
    }

    @inlinable
    func acts(on result: Result<Next.T, Error>) -> Bool { policy.accepts(result) }

    @inlinable
    func run(_ result: Result<Next.T, Error>, into box: EmptyBox<Result<Next.T, Error>>) -> _PledgeStep? {
        guard acts(on: result), case .failure(let error) = result else { return box.resolve(result) }
        guard let body else { return box.resolve(.failure(PMKError.cancelled)) }
        do {
            return follow(try body(error), into: box)
        } catch {
            return box.resolve(.failure(error))
        }
    }
}

/// `recover` to a guarantee: every error is replaced by the guarantee `body` returns.
@usableFromInline
struct RecoverToGuaranteeOperation<Value: Sendable>: ChainOperation {
    @usableFromInline typealias Input = Value
    @usableFromInline typealias Output = Value

    @usableFromInline
    var body: (@Sendable (Error) -> Guarantee<Value>)?

    @inlinable
    init(_ body: @escaping @Sendable (Error) -> Guarantee<Value>) {
        self.body = body
    }

    @inlinable
    func acts(on result: Result<Value, Error>) -> Bool { !result.isSuccess }

    @inlinable
    func run(_ result: Result<Value, Error>, into box: EmptyBox<Result<Value, Error>>) -> _PledgeStep? {
        guard case .failure(let error) = result else { return box.resolve(result) }
        guard let body else { return box.resolve(.failure(PMKError.cancelled)) }
        return follow(body(error), into: box)
    }
}

/// `recover` for `Void` promises: `body` handles the errors `policy` accepts and may throw.
/// With ``CatchPolicy/allErrors`` and a body that cannot throw, it backs the guarantee form.
@usableFromInline
struct RecoverVoidOperation: ValueOperation {
    @usableFromInline typealias Input = Void
    @usableFromInline typealias Output = Void

    @usableFromInline
    let policy: CatchPolicy
    @usableFromInline
    var body: (@Sendable (Error) throws -> Void)?

    @inlinable
    init(policy: CatchPolicy, _ body: @escaping @Sendable (Error) throws -> Void) {
        self.policy = policy
        self.body = body
    }

    @inlinable
    func acts(on result: Result<Void, Error>) -> Bool { policy.accepts(result) }

    @inlinable
    func output(for result: Result<Void, Error>) -> Result<Void, Error> {
        guard acts(on: result), case .failure(let error) = result else { return result }
        guard let body else { return .failure(PMKError.cancelled) }
        return catching { try body(error) }
    }
}

/// `ensure` and `finally`: `body` runs for every result, which passes on unchanged.
@usableFromInline
struct EnsureOperation<Value: Sendable>: ValueOperation {
    @usableFromInline typealias Input = Value
    @usableFromInline typealias Output = Value

    @usableFromInline
    var body: (@Sendable () -> Void)?

    @inlinable
    init(_ body: @escaping @Sendable () -> Void) {
        self.body = body
    }

    @inlinable
    func acts(on result: Result<Value, Error>) -> Bool { true }

    @inlinable
    func output(for result: Result<Value, Error>) -> Result<Value, Error> {
        body?()
        return result
    }
}

/// `ensureThen`: `body` runs for every result, which passes on once its guarantee resolves.
@usableFromInline
struct EnsureThenOperation<Value: Sendable>: ChainOperation {
    @usableFromInline typealias Input = Value
    @usableFromInline typealias Output = Value

    @usableFromInline
    var body: (@Sendable () -> Guarantee<Void>)?

    @inlinable
    init(_ body: @escaping @Sendable () -> Guarantee<Void>) {
        self.body = body
    }

    @inlinable
    func acts(on result: Result<Value, Error>) -> Bool { true }

    @inlinable
    func run(_ result: Result<Value, Error>, into box: EmptyBox<Result<Value, Error>>) -> _PledgeStep? {
        guard let body else { return box.resolve(result) }
        return body().box.inspect(nil) { _, _ in box.resolve(result) }
    }
}
