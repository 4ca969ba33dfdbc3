import Dispatch

extension CatchMixin {
    /// Recovers from an error by continuing with the thenable `body` returns.
    ///
    /// `body` runs on `on` (``PMKConfiguration/Q`` `.map` by default; inline when `nil`) if this
    /// promise is rejected with an error `policy` accepts; otherwise the result passes through
    /// unchanged, without dispatching. A throw from `body` rejects the result with that error.
    /// Returning the promise this call returns rejects it with ``PMKError/returnedSelf``.
    ///
    /// ```swift
    /// fetchFromNetwork().recover { error -> Promise<Data> in
    ///     guard error is NetworkError else { throw error }
    ///     return fetchFromCache()
    /// }
    /// ```
    ///
    /// - Returns: A promise of this promise's value, or of the recovered one.
    @inlinable
    public func recover<U: Thenable>(
        on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
        policy: CatchPolicy = conf.catchPolicy, _ body: @escaping @Sendable (Error) throws -> U
    ) -> Promise<T> where U.T == T {
        Promise(box: _chain(on: on, flags: flags, RecoverOperation(policy: policy, body)))
    }

    /// Recovers from every error, cancellations included, with a guarantee: the result can no
    /// longer fail.
    ///
    /// `body` runs on `on` (``PMKConfiguration/Q`` `.map` by default; inline when `nil`) if this
    /// promise is rejected.
    ///
    /// ```swift
    /// fetchAvatar().recover { _ in Guarantee.value(.placeholder) }.done { show($0) }
    /// ```
    ///
    /// - Returns: A guarantee of this promise's value, or of the recovered one.
    @inlinable
    @discardableResult
    public func recover(
        on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
        _ body: @escaping @Sendable (Error) -> Guarantee<T>
    ) -> Guarantee<T> {
        Guarantee(box: _chain(on: on, flags: flags, RecoverToGuaranteeOperation(body)))
    }

    /// Runs `body` when this promise resolves, fulfilled or rejected, and passes the result on
    /// unchanged once `body` returns.
    ///
    /// `body` runs on `on` (``PMKConfiguration/Q`` `.return` by default; inline when `nil`).
    ///
    /// ```swift
    /// spinner.start()
    /// fetch().ensure { spinner.stop() }.done { show($0) }.catch { showAlert($0) }
    /// ```
    ///
    /// - Returns: A promise with the same result.
    @inlinable
    public func ensure(
        on: DispatchQueue? = conf.Q.return, flags: DispatchWorkItemFlags? = nil,
        _ body: @escaping @Sendable () -> Void
    ) -> Promise<T> {
        Promise(box: _chain(on: on, flags: flags, EnsureOperation(body)))
    }

    /// Runs the asynchronous cleanup `body` when this promise resolves, and passes the result on
    /// unchanged once the guarantee `body` returns has resolved.
    ///
    /// `body` runs on `on` (``PMKConfiguration/Q`` `.return` by default; inline when `nil`).
    ///
    /// ```swift
    /// openConnection().then { use($0) }.ensureThen { connection.close() }
    /// ```
    ///
    /// - Returns: A promise with the same result.
    @inlinable
    public func ensureThen(
        on: DispatchQueue? = conf.Q.return, flags: DispatchWorkItemFlags? = nil,
        _ body: @escaping @Sendable () -> Guarantee<Void>
    ) -> Promise<T> {
        Promise(box: _chain(on: on, flags: flags, EnsureThenOperation(body)))
    }
}

extension CatchMixin where T == Void {
    /// Recovers from every error of a `Void` promise by running `body`; the result can no
    /// longer fail.
    ///
    /// `body` runs on `on` (``PMKConfiguration/Q`` `.map` by default; inline when `nil`) if this
    /// promise is rejected.
    ///
    /// - Returns: A guarantee fulfilled once this promise is fulfilled or `body` has returned.
    @inlinable
    @discardableResult
    public func recover(
        on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
        _ body: @escaping @Sendable (Error) -> Void
    ) -> Guarantee<Void> {
        Guarantee(box: _chain(on: on, flags: flags, RecoverVoidOperation(policy: .allErrors, body)))
    }

    /// Recovers from errors `policy` accepts by running `body`, which may throw to reject.
    ///
    /// `body` runs on `on` (``PMKConfiguration/Q`` `.map` by default; inline when `nil`).
    ///
    /// - Returns: A promise fulfilled once this promise is fulfilled or `body` has returned.
    @inlinable
    public func recover(
        on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
        policy: CatchPolicy = conf.catchPolicy, _ body: @escaping @Sendable (Error) throws -> Void
    ) -> Promise<Void> {
        Promise(box: _chain(on: on, flags: flags, RecoverVoidOperation(policy: policy, body)))
    }
}
