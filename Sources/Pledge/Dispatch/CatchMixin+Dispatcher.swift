import Dispatch

// The `on: some Dispatcher` forms of `CatchMixin`'s operators and of `finally`, disfavoured so
// that a `DispatchQueue` keeps picking the queue form.

extension CatchMixin {
    /// Handles the error that ends a chain, running `body` through `dispatcher`.
    ///
    /// Like ``catch(on:flags:policy:_:)``; a fulfilment, or an error `policy` does not accept,
    /// passes through inline, without dispatching.
    ///
    /// ```swift
    /// fetchUser(id).done { show($0) }.catch(on: limiter) { showAlert($0) }
    /// ```
    ///
    /// - Parameters:
    ///   - dispatcher: Runs `body`.
    ///   - policy: Which errors `body` gets.
    ///   - body: Gets the error.
    /// - Returns: A finalizer, for ``PMKFinalizer/finally(on:_:)``.
    @_disfavoredOverload
    @inlinable
    @discardableResult
    public func `catch`(
        on dispatcher: some Dispatcher, policy: CatchPolicy = conf.catchPolicy,
        _ body: @escaping @Sendable (Error) -> Void
    ) -> PMKFinalizer {
        PMKFinalizer(_chain(on: dispatcher, cancelsOnDrop: true, CatchOperation(policy: policy, body)))
    }

    /// Recovers from an error with the thenable `body` returns, running `body` through
    /// `dispatcher`.
    ///
    /// Like `recover(on:flags:policy:_:)`; a fulfilment passes through inline.
    ///
    /// ```swift
    /// fetchFromNetwork().recover(on: limiter) { _ in fetchFromCache() }
    /// ```
    ///
    /// - Parameters:
    ///   - dispatcher: Runs `body`.
    ///   - policy: Which errors `body` gets.
    ///   - body: Gets the error and returns the thenable to continue with.
    /// - Returns: A promise of this promise's value, or of the recovered one.
    @_disfavoredOverload
    @inlinable
    public func recover<U: Thenable>(
        on dispatcher: some Dispatcher, policy: CatchPolicy = conf.catchPolicy,
        _ body: @escaping @Sendable (Error) throws -> U
    ) -> Promise<T> where U.T == T {
        Promise(box: _chain(on: dispatcher, cancelsOnDrop: true, RecoverOperation(policy: policy, body)))
    }

    /// Recovers from every error with a guarantee, running `body` through `dispatcher`.
    ///
    /// Like `recover(on:flags:_:)`. Dropped by a dispatcher that
    /// drops work, the result stays pending: it cannot fail.
    ///
    /// ```swift
    /// fetchAvatar().recover(on: limiter) { _ in Guarantee.value(.placeholder) }.done { show($0) }
    /// ```
    ///
    /// - Parameters:
    ///   - dispatcher: Runs `body`.
    ///   - body: Gets the error and returns the guarantee to continue with.
    /// - Returns: A guarantee of this promise's value, or of the recovered one.
    @_disfavoredOverload
    @inlinable
    @discardableResult
    public func recover(
        on dispatcher: some Dispatcher, _ body: @escaping @Sendable (Error) -> Guarantee<T>
    ) -> Guarantee<T> {
        Guarantee(box: _chain(on: dispatcher, cancelsOnDrop: false, RecoverToGuaranteeOperation(body)))
    }

    /// Runs `body` through `dispatcher` when this promise resolves, and passes the result on.
    ///
    /// Like ``ensure(on:flags:_:)``.
    ///
    /// ```swift
    /// fetch().ensure(on: limiter) { spinner.stop() }.done { show($0) }
    /// ```
    ///
    /// - Parameters:
    ///   - dispatcher: Runs `body`.
    ///   - body: The cleanup.
    /// - Returns: A promise with the same result.
    @_disfavoredOverload
    @inlinable
    public func ensure(
        on dispatcher: some Dispatcher, _ body: @escaping @Sendable () -> Void
    ) -> Promise<T> {
        Promise(box: _chain(on: dispatcher, cancelsOnDrop: true, EnsureOperation(body)))
    }

    /// Runs the asynchronous cleanup `body` through `dispatcher` when this promise resolves.
    ///
    /// Like ``ensureThen(on:flags:_:)``.
    ///
    /// ```swift
    /// openConnection().then { use($0) }.ensureThen(on: limiter) { connection.close() }
    /// ```
    ///
    /// - Parameters:
    ///   - dispatcher: Runs `body`.
    ///   - body: Starts the cleanup.
    /// - Returns: A promise with the same result.
    @_disfavoredOverload
    @inlinable
    public func ensureThen(
        on dispatcher: some Dispatcher, _ body: @escaping @Sendable () -> Guarantee<Void>
    ) -> Promise<T> {
        Promise(box: _chain(on: dispatcher, cancelsOnDrop: true, EnsureThenOperation(body)))
    }
}

extension CatchMixin where T == Void {
    /// Recovers from every error of a `Void` promise, running `body` through `dispatcher`.
    ///
    /// Like `recover(on:flags:_:)`.
    ///
    /// ```swift
    /// save(document).recover(on: limiter) { print("not saved: \($0)") }.done { close() }
    /// ```
    ///
    /// - Parameters:
    ///   - dispatcher: Runs `body`.
    ///   - body: Gets the error.
    /// - Returns: A guarantee fulfilled once this promise is fulfilled or `body` has returned.
    @_disfavoredOverload
    @inlinable
    @discardableResult
    public func recover(
        on dispatcher: some Dispatcher, _ body: @escaping @Sendable (Error) -> Void
    ) -> Guarantee<Void> {
        Guarantee(box: _chain(on: dispatcher, cancelsOnDrop: false, RecoverVoidOperation(policy: .allErrors, body)))
    }

    /// Recovers from errors `policy` accepts, running `body`, which may throw, through
    /// `dispatcher`.
    ///
    /// Like `recover(on:flags:policy:_:)`.
    ///
    /// ```swift
    /// save(document).recover(on: limiter, policy: .allErrors) { try retrySave($0) }
    /// ```
    ///
    /// - Parameters:
    ///   - dispatcher: Runs `body`.
    ///   - policy: Which errors `body` gets.
    ///   - body: Gets the error; throws to reject.
    /// - Returns: A promise fulfilled once this promise is fulfilled or `body` has returned.
    @_disfavoredOverload
    @inlinable
    public func recover(
        on dispatcher: some Dispatcher, policy: CatchPolicy = conf.catchPolicy,
        _ body: @escaping @Sendable (Error) throws -> Void
    ) -> Promise<Void> {
        Promise(box: _chain(on: dispatcher, cancelsOnDrop: true, RecoverVoidOperation(policy: policy, body)))
    }
}

extension PMKFinalizer {
    /// Runs `body` through `dispatcher` once the chain has ended.
    ///
    /// Like ``finally(on:flags:_:)``.
    ///
    /// ```swift
    /// fetch().done { show($0) }.catch { showAlert($0) }.finally(on: limiter) { spinner.stop() }
    /// ```
    ///
    /// - Parameters:
    ///   - dispatcher: Runs `body`.
    ///   - body: Runs once the chain has ended, either way.
    @_disfavoredOverload
    @inlinable
    public func finally(on dispatcher: some Dispatcher, _ body: @escaping @Sendable () -> Void) {
        _ = Promise(box: box).ensure(on: dispatcher, body)
    }
}
