import Dispatch

// A guarantee's own forms of `done`, `get`, `map` and `then`: their closures cannot throw, and
// they return guarantees. `Thenable`'s forms, which take throwing closures and return promises,
// are disfavoured, so that a non-throwing closure on a guarantee picks these whatever its shape,
// as in PromiseKit. (Without that, a closure of several statements followed by one whose
// parameter is only passed on as `Any`, such as `print(value)`, picked `Thenable`'s form.)

extension Guarantee {
    /// Ends the chain with the value.
    ///
    /// `body` runs on `on` (``PMKConfiguration/Q`` `.return` by default, or the closure's actor;
    /// inline when `nil`) once this guarantee has its value.
    ///
    /// - Returns: A guarantee that has `Void` once `body` returns.
    @_disfavoredOverload  // so that `on: .main` picks the main-actor form
    @inlinable
    @discardableResult
    public func done(
        on: DispatchQueue?, flags: DispatchWorkItemFlags? = nil,
        _ body: @escaping @Sendable (T) -> Void
    ) -> Guarantee<Void> {
        Guarantee<Void>(box: _chain(Executor(on, flags: flags, isolation: nil), MapOperation(body)))
    }

    /// ``done(on:flags:_:)`` with its closure run where it is written: isolated to the
    /// actor of the code that writes it (the main actor runs it on the main queue), else on
    /// `conf.Q.return`.
    @inlinable
    @discardableResult
    public func done(
        flags: DispatchWorkItemFlags? = nil,
        @_inheritActorContext _ body: @escaping @isolated(any) @Sendable (T) -> Void
    ) -> Guarantee<Void> {
        let (executor, body) = Executor.placed(body, otherwise: conf.Q.return, flags: flags)
        return Guarantee<Void>(
            box: _chain(
                executor, MapOperation(body)))
    }

    /// Looks at the value without changing it.
    ///
    /// `body` runs on `on` (``PMKConfiguration/Q`` `.return` by default, or the closure's actor;
    /// inline when `nil`).
    ///
    /// - Returns: A guarantee of the same value, once `body` returns.
    @_disfavoredOverload  // so that `on: .main` picks the main-actor form
    @inlinable
    public func get(
        on: DispatchQueue?, flags: DispatchWorkItemFlags? = nil,
        _ body: @escaping @Sendable (T) -> Void
    ) -> Guarantee<T> {
        Guarantee<T>(box: _chain(Executor(on, flags: flags, isolation: nil), GetOperation(body)))
    }

    /// ``get(on:flags:_:)`` with its closure run where it is written: isolated to the
    /// actor of the code that writes it (the main actor runs it on the main queue), else on
    /// `conf.Q.return`.
    @inlinable
    public func get(
        flags: DispatchWorkItemFlags? = nil,
        @_inheritActorContext _ body: @escaping @isolated(any) @Sendable (T) -> Void
    ) -> Guarantee<T> {
        let (executor, body) = Executor.placed(body, otherwise: conf.Q.return, flags: flags)
        return Guarantee<T>(
            box: _chain(
                executor, GetOperation(body)))
    }

    /// Transforms the value.
    ///
    /// `body` runs on `on` (``PMKConfiguration/Q`` `.map` by default, or the closure's actor;
    /// inline when `nil`). A throwing closure picks ``Thenable/map(on:flags:_:)`` instead, which
    /// returns a promise.
    ///
    /// ```swift
    /// Guarantee.value(2).map { $0 * 21 }.done { print($0) }   // 42
    /// ```
    ///
    /// - Returns: A guarantee of the transformed value.
    @_disfavoredOverload  // so that `on: .main` picks the main-actor form
    @inlinable
    public func map<U: Sendable>(
        on: DispatchQueue?, flags: DispatchWorkItemFlags? = nil,
        _ body: @escaping @Sendable (T) -> U
    ) -> Guarantee<U> {
        Guarantee<U>(box: _chain(Executor(on, flags: flags, isolation: nil), MapOperation(body)))
    }

    /// ``map(on:flags:_:)`` with its closure run where it is written: isolated to the
    /// actor of the code that writes it (the main actor runs it on the main queue), else on
    /// `conf.Q.map`.
    @inlinable
    public func map<U: Sendable>(
        flags: DispatchWorkItemFlags? = nil,
        @_inheritActorContext _ body: @escaping @isolated(any) @Sendable (T) -> U
    ) -> Guarantee<U> {
        let (executor, body) = Executor.placed(body, otherwise: conf.Q.map, flags: flags)
        return Guarantee<U>(
            box: _chain(executor, MapOperation(body)))
    }

    /// Continues with the guarantee `body` returns.
    ///
    /// `body` runs on `on` (``PMKConfiguration/Q`` `.map` by default, or the closure's actor;
    /// inline when `nil`).
    ///
    /// - Returns: A guarantee that resolves as the one from `body` does.
    @_disfavoredOverload  // so that `on: .main` picks the main-actor form
    @inlinable
    @discardableResult
    public func then<U: Sendable>(
        on: DispatchQueue?, flags: DispatchWorkItemFlags? = nil,
        _ body: @escaping @Sendable (T) -> Guarantee<U>
    ) -> Guarantee<U> {
        Guarantee<U>(box: _chain(Executor(on, flags: flags, isolation: nil), ThenOperation(body)))
    }

    /// ``then(on:flags:_:)`` with its closure run where it is written: isolated to the
    /// actor of the code that writes it (the main actor runs it on the main queue), else on
    /// `conf.Q.map`.
    @inlinable
    @discardableResult
    public func then<U: Sendable>(
        flags: DispatchWorkItemFlags? = nil,
        @_inheritActorContext _ body: @escaping @isolated(any) @Sendable (T) -> Guarantee<U>
    ) -> Guarantee<U> {
        let (executor, body) = Executor.placed(body, otherwise: conf.Q.map, flags: flags)
        return Guarantee<U>(
            box: _chain(executor, ThenOperation(body))
        )
    }

    /// Discards the value. Runs inline; nothing is dispatched.
    @inlinable
    public func asVoid() -> Guarantee<Void> {
        map(on: nil) { _ in }
    }
}
