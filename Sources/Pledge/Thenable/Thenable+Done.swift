import Dispatch

extension Thenable {
    /// Ends the chain with the value: `body` consumes it and the result is a `Promise<Void>`,
    /// usually followed by `catch`.
    ///
    /// `body` runs on `on` (``PMKConfiguration/Q`` `.return` by default, or the closure's actor;
    /// inline when `nil`) once this thenable is fulfilled. A rejection skips it, without
    /// dispatching; a throw rejects the result.
    ///
    /// ```swift
    /// fetchUser(id).done { user in
    ///     print(user.name)
    /// }.catch { error in
    ///     print("Failed: \(error)")
    /// }
    /// ```
    ///
    /// - Returns: A promise that is fulfilled once `body` returns.
    @_disfavoredOverload  // so that a guarantee's own form wins wherever it fits (see Guarantee+Map)
    @inlinable
    public func done(
        on: DispatchQueue?, flags: DispatchWorkItemFlags? = nil,
        _ body: @escaping @Sendable (T) throws -> Void
    ) -> Promise<Void> {
        Promise(box: _chain(Executor(on, flags: flags, isolation: nil), MapOperation(body)))
    }

    /// ``done(on:flags:_:)`` with its closure run where it is written: isolated to the
    /// actor of the code that writes it (the main actor runs it on the main queue), else on
    /// `conf.Q.return`.
    @_disfavoredOverload  // so that a guarantee's own form wins wherever it fits (see Guarantee+Map)
    @inlinable
    public func done(
        flags: DispatchWorkItemFlags? = nil,
        @_inheritActorContext _ body: @escaping @isolated(any) @Sendable (T) throws -> Void
    ) -> Promise<Void> {
        let (executor, body) = Executor.placed(body, otherwise: conf.Q.return, flags: flags)
        return Promise(
            box: _chain(
                executor, MapOperation(body)))
    }

    /// Looks at the value without changing it: `body` runs with it and the result is fulfilled
    /// with the same value.
    ///
    /// `body` runs on `on` (``PMKConfiguration/Q`` `.return` by default, or the closure's actor;
    /// inline when `nil`). A rejection skips it, without dispatching; a throw rejects the result.
    ///
    /// ```swift
    /// fetchUser(id).get { cache.store($0) }.map { $0.name }
    /// ```
    ///
    /// - Returns: A promise of the same value.
    @_disfavoredOverload  // so that a guarantee's own form wins wherever it fits (see Guarantee+Map)
    @inlinable
    public func get(
        on: DispatchQueue?, flags: DispatchWorkItemFlags? = nil,
        _ body: @escaping @Sendable (T) throws -> Void
    ) -> Promise<T> {
        Promise(box: _chain(Executor(on, flags: flags, isolation: nil), GetOperation(body)))
    }

    /// ``get(on:flags:_:)`` with its closure run where it is written: isolated to the
    /// actor of the code that writes it (the main actor runs it on the main queue), else on
    /// `conf.Q.return`.
    @_disfavoredOverload  // so that a guarantee's own form wins wherever it fits (see Guarantee+Map)
    @inlinable
    public func get(
        flags: DispatchWorkItemFlags? = nil,
        @_inheritActorContext _ body: @escaping @isolated(any) @Sendable (T) throws -> Void
    ) -> Promise<T> {
        let (executor, body) = Executor.placed(body, otherwise: conf.Q.return, flags: flags)
        return Promise(
            box: _chain(
                executor, GetOperation(body)))
    }

    /// Looks at the result, fulfilled or rejected, without changing it.
    ///
    /// `body` runs on `on` (``PMKConfiguration/Q`` `.map` by default, or the closure's actor;
    /// inline when `nil`) with the result; the returned promise resolves with that same result once
    /// `body` returns.
    ///
    /// ```swift
    /// fetchUser(id).tap { print("fetch finished: \($0)") }.done { … }
    /// ```
    ///
    /// - Returns: A promise with the same result.
    @_disfavoredOverload  // so that `on: .main` picks the main-actor form
    @inlinable
    public func tap(
        on: DispatchQueue?, flags: DispatchWorkItemFlags? = nil,
        _ body: @escaping @Sendable (Result<T, Error>) -> Void
    ) -> Promise<T> {
        Promise(box: _chain(Executor(on, flags: flags, isolation: nil), TapOperation(body)))
    }

    /// ``tap(on:flags:_:)`` with its closure run where it is written: isolated to the
    /// actor of the code that writes it (the main actor runs it on the main queue), else on
    /// `conf.Q.map`.
    @inlinable
    public func tap(
        flags: DispatchWorkItemFlags? = nil,
        @_inheritActorContext _ body: @escaping @isolated(any) @Sendable (Result<T, Error>) -> Void
    ) -> Promise<T> {
        let (executor, body) = Executor.placed(body, otherwise: conf.Q.map, flags: flags)
        return Promise(
            box: _chain(executor, TapOperation(body)))
    }
}

/// `get`, and a guarantee's `get`: `body` looks at the value, which passes on unchanged.
@usableFromInline
struct GetOperation<Value: Sendable>: ValueOperation {
    @usableFromInline typealias Input = Value
    @usableFromInline typealias Output = Value

    @usableFromInline
    var body: (@Sendable (Value) throws -> Void)?

    @inlinable
    init(_ body: @escaping @Sendable (Value) throws -> Void) {
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
    mutating func output(for result: Result<Value, Error>) -> Result<Value, Error> {
        guard case .success(let value) = result else { return result }
        guard let body = body.take() else { return .failure(PMKError.cancelled) }
        do {
            try body(value)
            return result
        } catch {
            return .failure(error)
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
        body.take()?(result)
        return result
    }
}
