import Dispatch

extension CatchMixin {
    /// Recovers from an error by continuing with the thenable `body` returns.
    ///
    /// `body` runs on `on` (``PMKConfiguration/Q`` `.map` by default, or the closure's actor;
    /// inline when `nil`) if this promise is rejected with an error `policy` accepts; otherwise the
    /// result passes through unchanged, without dispatching. A throw from `body` rejects the result
    /// with that error. Returning the promise this call returns rejects it with
    /// ``PMKError/returnedSelf``.
    ///
    /// ```swift
    /// fetchFromNetwork().recover { error -> Promise<Data> in
    ///     guard error is NetworkError else { throw error }
    ///     return fetchFromCache()
    /// }
    /// ```
    ///
    /// - Returns: A promise of this promise's value, or of the recovered one.
    @_disfavoredOverload  // so that `on: .main` picks the main-actor form
    @inlinable
    public func recover<U: Thenable>(
        on: DispatchQueue?, flags: DispatchWorkItemFlags? = nil,
        policy: CatchPolicy = conf.catchPolicy, _ body: @escaping @Sendable (Error) throws -> U
    ) -> Promise<T> where U.T == T {
        Promise(box: _chain(Executor(on, flags: flags, isolation: nil), RecoverOperation(policy: policy, body)))
    }

    /// `recover(on:flags:policy:_:)` with its closure run where it is written: isolated to the
    /// actor of the code that writes it (the main actor runs it on the main queue), else on
    /// `conf.Q.map`.
    @inlinable
    public func recover<U: Thenable>(
        flags: DispatchWorkItemFlags? = nil,
        policy: CatchPolicy = conf.catchPolicy,
        @_inheritActorContext _ body: @escaping @isolated(any) @Sendable (Error) throws -> U
    ) -> Promise<T> where U.T == T {
        let (executor, body) = Executor.placed(body, otherwise: conf.Q.map, flags: flags)
        return Promise(
            box: _chain(
                executor,
                RecoverOperation(policy: policy, body)))
    }

    /// Recovers from every error, cancellations included, with a guarantee: the result can no
    /// longer fail.
    ///
    /// `body` runs on `on` (``PMKConfiguration/Q`` `.map` by default, or the closure's actor;
    /// inline when `nil`) if this promise is rejected.
    ///
    /// ```swift
    /// fetchAvatar().recover { _ in Guarantee.value(.placeholder) }.done { show($0) }
    /// ```
    ///
    /// - Returns: A guarantee of this promise's value, or of the recovered one.
    @_disfavoredOverload  // so that `on: .main` picks the main-actor form
    @inlinable
    @discardableResult
    public func recover(
        on: DispatchQueue?, flags: DispatchWorkItemFlags? = nil,
        _ body: @escaping @Sendable (Error) -> Guarantee<T>
    ) -> Guarantee<T> {
        Guarantee(box: _chain(Executor(on, flags: flags, isolation: nil), RecoverToGuaranteeOperation(body)))
    }

    /// `recover(on:flags:_:)` with its closure run where it is written: isolated to the
    /// actor of the code that writes it (the main actor runs it on the main queue), else on
    /// `conf.Q.map`.
    @inlinable
    @discardableResult
    public func recover(
        flags: DispatchWorkItemFlags? = nil,
        @_inheritActorContext _ body: @escaping @isolated(any) @Sendable (Error) -> Guarantee<T>
    ) -> Guarantee<T> {
        let (executor, body) = Executor.placed(body, otherwise: conf.Q.map, flags: flags)
        return Guarantee(
            box: _chain(
                executor,
                RecoverToGuaranteeOperation(body)))
    }

    /// Runs `body` when this promise resolves, fulfilled or rejected, and passes the result on
    /// unchanged once `body` returns.
    ///
    /// `body` runs on `on` (``PMKConfiguration/Q`` `.return` by default, or the closure's actor;
    /// inline when `nil`), exactly once however the chain ends: cancelling the returned promise,
    /// a promise after it or the chain's finalizer runs it too (see
    /// <doc:CancellationAndTime#Cleanup-runs-however-the-chain-ends>).
    ///
    /// ```swift
    /// spinner.start()
    /// fetch().ensure { spinner.stop() }.done { show($0) }.catch { showAlert($0) }
    /// ```
    ///
    /// - Returns: A promise with the same result.
    @_disfavoredOverload  // so that `on: .main` picks the main-actor form
    @inlinable
    public func ensure(
        on: DispatchQueue?, flags: DispatchWorkItemFlags? = nil,
        _ body: @escaping @Sendable () -> Void
    ) -> Promise<T> {
        Promise(box: _chain(Executor(on, flags: flags, isolation: nil), EnsureOperation(body)))
    }

    /// ``ensure(on:flags:_:)`` with its closure run where it is written: isolated to the
    /// actor of the code that writes it (the main actor runs it on the main queue), else on
    /// `conf.Q.return`.
    @inlinable
    public func ensure(
        flags: DispatchWorkItemFlags? = nil,
        @_inheritActorContext _ body: @escaping @isolated(any) @Sendable () -> Void
    ) -> Promise<T> {
        let (executor, body) = Executor.placed(body, otherwise: conf.Q.return, flags: flags)
        return Promise(
            box: _chain(
                executor, EnsureOperation(body)))
    }

    /// Runs the asynchronous cleanup `body` when this promise resolves, and passes the result on
    /// unchanged once the guarantee `body` returns has resolved.
    ///
    /// `body` runs on `on` (``PMKConfiguration/Q`` `.return` by default, or the closure's actor;
    /// inline when `nil`), exactly once however the chain ends: cancelled first, it runs too, and
    /// nothing waits for its guarantee (see
    /// <doc:CancellationAndTime#Cleanup-runs-however-the-chain-ends>).
    ///
    /// ```swift
    /// openConnection().then { use($0) }.ensureThen { connection.close() }
    /// ```
    ///
    /// - Returns: A promise with the same result.
    @_disfavoredOverload  // so that `on: .main` picks the main-actor form
    @inlinable
    public func ensureThen(
        on: DispatchQueue?, flags: DispatchWorkItemFlags? = nil,
        _ body: @escaping @Sendable () -> Guarantee<Void>
    ) -> Promise<T> {
        Promise(box: _chain(Executor(on, flags: flags, isolation: nil), EnsureThenOperation(body)))
    }

    /// ``ensureThen(on:flags:_:)`` with its closure run where it is written: isolated to the
    /// actor of the code that writes it (the main actor runs it on the main queue), else on
    /// `conf.Q.return`.
    @inlinable
    public func ensureThen(
        flags: DispatchWorkItemFlags? = nil,
        @_inheritActorContext _ body: @escaping @isolated(any) @Sendable () -> Guarantee<Void>
    ) -> Promise<T> {
        let (executor, body) = Executor.placed(body, otherwise: conf.Q.return, flags: flags)
        return Promise(
            box: _chain(
                executor, EnsureThenOperation(body)
            ))
    }
}

extension CatchMixin where T == Void {
    /// Recovers from every error of a `Void` promise by running `body`; the result can no
    /// longer fail.
    ///
    /// `body` runs on `on` (``PMKConfiguration/Q`` `.map` by default, or the closure's actor;
    /// inline when `nil`) if this promise is rejected.
    ///
    /// - Returns: A guarantee fulfilled once this promise is fulfilled or `body` has returned.
    @_disfavoredOverload  // so that `on: .main` picks the main-actor form
    @inlinable
    @discardableResult
    public func recover(
        on: DispatchQueue?, flags: DispatchWorkItemFlags? = nil,
        _ body: @escaping @Sendable (Error) -> Void
    ) -> Guarantee<Void> {
        Guarantee(
            box: _chain(Executor(on, flags: flags, isolation: nil), RecoverVoidOperation(policy: .allErrors, body)))
    }

    /// `recover(on:flags:_:)` with its closure run where it is written: isolated to the
    /// actor of the code that writes it (the main actor runs it on the main queue), else on
    /// `conf.Q.map`.
    @inlinable
    @discardableResult
    public func recover(
        flags: DispatchWorkItemFlags? = nil,
        @_inheritActorContext _ body: @escaping @isolated(any) @Sendable (Error) -> Void
    ) -> Guarantee<Void> {
        let (executor, body) = Executor.placed(body, otherwise: conf.Q.map, flags: flags)
        return Guarantee(
            box: _chain(
                executor,
                RecoverVoidOperation(policy: .allErrors, body)))
    }

    /// Recovers from errors `policy` accepts by running `body`, which may throw to reject.
    ///
    /// `body` runs on `on` (``PMKConfiguration/Q`` `.map` by default, or the closure's actor;
    /// inline when `nil`).
    ///
    /// - Returns: A promise fulfilled once this promise is fulfilled or `body` has returned.
    @_disfavoredOverload  // so that `on: .main` picks the main-actor form
    @inlinable
    public func recover(
        on: DispatchQueue?, flags: DispatchWorkItemFlags? = nil,
        policy: CatchPolicy = conf.catchPolicy, _ body: @escaping @Sendable (Error) throws -> Void
    ) -> Promise<Void> {
        Promise(box: _chain(Executor(on, flags: flags, isolation: nil), RecoverVoidOperation(policy: policy, body)))
    }

    /// `recover(on:flags:policy:_:)` with its closure run where it is written: isolated to the
    /// actor of the code that writes it (the main actor runs it on the main queue), else on
    /// `conf.Q.map`.
    @inlinable
    public func recover(
        flags: DispatchWorkItemFlags? = nil,
        policy: CatchPolicy = conf.catchPolicy,
        @_inheritActorContext _ body: @escaping @isolated(any) @Sendable (Error) throws -> Void
    ) -> Promise<Void> {
        let (executor, body) = Executor.placed(body, otherwise: conf.Q.map, flags: flags)
        return Promise(
            box: _chain(
                executor,
                RecoverVoidOperation(policy: policy, body)))
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
    mutating func carry(_ context: HandlerContext) { if let body { self.body = context.wrap(body) } }

    @inlinable
    mutating func take() -> Self {
        let taken = self
        body = nil
        return taken
    }

    @inlinable
    func acts(on result: Result<Input, Error>) -> Bool { policy.accepts(result) }

    @inlinable
    mutating func run(_ result: Result<Next.T, Error>, into box: ChainedBox<Self>) -> Work? {
        guard case .failure(let error) = result, policy.accepts(result) else { return box.seal(result) }
        guard let body = body.take() else { return box.seal(.failure(PMKError.cancelled)) }
        let next: Next
        do {
            next = try body(error)
        } catch {
            return box.seal(.failure(error))
        }
        return box.follow(next)
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
    mutating func carry(_ context: HandlerContext) { if let body { self.body = context.wrap(body) } }

    @inlinable
    mutating func take() -> Self {
        let taken = self
        body = nil
        return taken
    }

    @inlinable
    func acts(on result: Result<Value, Error>) -> Bool {
        if case .failure = result { true } else { false }
    }

    @inlinable
    mutating func run(_ result: Result<Value, Error>, into box: ChainedBox<Self>) -> Work? {
        guard case .failure(let error) = result else { return box.seal(result) }
        guard let body = body.take() else { return box.seal(.failure(PMKError.cancelled)) }
        return box.follow(body(error))
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
    mutating func carry(_ context: HandlerContext) { if let body { self.body = context.wrap(body) } }

    @inlinable
    mutating func take() -> Self {
        let taken = self
        body = nil
        return taken
    }

    @inlinable
    func acts(on result: Result<Input, Error>) -> Bool { policy.accepts(result) }

    @inlinable
    mutating func output(for result: Result<Void, Error>) -> Result<Void, Error> {
        guard case .failure(let error) = result, policy.accepts(result) else { return result }
        guard let body = body.take() else { return .failure(PMKError.cancelled) }
        do {
            try body(error)
            return .success(())
        } catch {
            return .failure(error)
        }
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
    mutating func carry(_ context: HandlerContext) { if let body { self.body = context.wrap(body) } }

    @inlinable
    mutating func take() -> Self {
        let taken = self
        body = nil
        return taken
    }

    @inlinable
    func acts(on result: Result<Value, Error>) -> Bool { true }

    @inlinable
    mutating func output(for result: Result<Value, Error>) -> Result<Value, Error> {
        body.take()?()
        return result
    }

    @inlinable
    mutating func takeCleanup() -> (@Sendable () -> Void)? { body.take() }
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
    mutating func carry(_ context: HandlerContext) { if let body { self.body = context.wrap(body) } }

    @inlinable
    mutating func take() -> Self {
        let taken = self
        body = nil
        return taken
    }

    @inlinable
    func acts(on result: Result<Value, Error>) -> Bool { true }

    @inlinable
    mutating func run(_ result: Result<Value, Error>, into box: ChainedBox<Self>) -> Work? {
        guard let body = body.take() else { return box.seal(result) }
        return box.wait(for: body(), then: result)
    }

    /// The box is cancelled already: nothing waits for the guarantee.
    @inlinable
    mutating func takeCleanup() -> (@Sendable () -> Void)? {
        guard let body = body.take() else { return nil }
        return { _ = body() }
    }
}
