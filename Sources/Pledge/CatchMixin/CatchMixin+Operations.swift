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
    func run(
        _ result: Result<Next.T, Error>, into box: consuming Retained<EmptyBox<Result<Next.T, Error>>>,
        _ run: inout Run
    ) -> Step? {
        guard acts(on: result), case .failure(let error) = result else { return run.seal(box, with: result) }
        guard let body else { return run.seal(box, with: .failure(PMKError.cancelled)) }
        let next: Next
        do {
            next = try body(error)
        } catch {
            return run.seal(box, with: .failure(error))
        }
        return follow(next, into: box, &run)
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
    func run(
        _ result: Result<Value, Error>, into box: consuming Retained<EmptyBox<Result<Value, Error>>>,
        _ run: inout Run
    ) -> Step? {
        guard case .failure(let error) = result else { return run.seal(box, with: result) }
        guard let body else { return run.seal(box, with: .failure(PMKError.cancelled)) }
        return follow(body(error), into: box, &run)
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
    func run(
        _ result: Result<Value, Error>, into box: consuming Retained<EmptyBox<Result<Value, Error>>>,
        _ run: inout Run
    ) -> Step? {
        guard let body else { return run.seal(box, with: result) }
        // The box is the handler's target: the guarantee keeps it until it resolves. It follows
        // a guarantee now, which cannot be cancelled.
        let box = box.object()
        box.unlink()
        return body().box.attach(
            box,
            { target, _, run in run.seal(Retained(handedTo: target, as: EmptyBox.self), with: result) },
            &run)
    }
}
