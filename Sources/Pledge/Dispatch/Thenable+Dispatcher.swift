import Dispatch

// The `on: some Dispatcher` forms of `Thenable`'s operators. Each is disfavoured, so that a
// `DispatchQueue` (`on: queue`, `on: .main`, `on: nil`, no `on:` at all) keeps picking the queue
// form wherever one fits.

extension Thenable {
    /// Transforms the value, running `transform` through `dispatcher`.
    ///
    /// Like ``map(on:flags:_:)``, except that `transform` runs in a body handed to `dispatcher`
    /// once this thenable is fulfilled. A rejection skips it and rejects the result with the
    /// same error, inline, without dispatching.
    ///
    /// ```swift
    /// fetchUser(id).map(on: limiter) { $0.name }.done { print($0) }
    /// ```
    ///
    /// - Parameters:
    ///   - dispatcher: Runs `transform`.
    ///   - transform: Gets the value and returns the new one.
    /// - Returns: A promise of the transformed value.
    @_disfavoredOverload
    @inlinable
    public func map<U: Sendable>(
        on dispatcher: some Dispatcher, _ transform: @escaping @Sendable (T) throws -> U
    ) -> Promise<U> {
        Promise(box: _chain(on: dispatcher, cancelsOnDrop: true, MapOperation(transform)))
    }

    /// Transforms the value through `dispatcher`, rejecting when the transform returns `nil`.
    ///
    /// Like ``compactMap(on:flags:_:)``, with `transform` run through `dispatcher`.
    ///
    /// ```swift
    /// fetchText().compactMap(on: limiter) { Int($0) }.done { number in print(number) }
    /// ```
    ///
    /// - Parameters:
    ///   - dispatcher: Runs `transform`.
    ///   - transform: Gets the value and returns the new one, or `nil` to reject.
    /// - Returns: A promise of the unwrapped transformed value.
    @_disfavoredOverload
    @inlinable
    public func compactMap<U: Sendable>(
        on dispatcher: some Dispatcher, _ transform: @escaping @Sendable (T) throws -> U?
    ) -> Promise<U> {
        Promise(box: _chain(on: dispatcher, cancelsOnDrop: true, CompactMapOperation(transform)))
    }

    /// Ends the chain with the value, running `body` through `dispatcher`.
    ///
    /// Like ``done(on:flags:_:)``; a rejection skips `body`, inline, without dispatching.
    ///
    /// ```swift
    /// fetchUser(id).done(on: limiter) { print($0.name) }.catch { print($0) }
    /// ```
    ///
    /// - Parameters:
    ///   - dispatcher: Runs `body`.
    ///   - body: Consumes the value.
    /// - Returns: A promise that is fulfilled once `body` returns.
    @_disfavoredOverload
    @inlinable
    public func done(
        on dispatcher: some Dispatcher, _ body: @escaping @Sendable (T) throws -> Void
    ) -> Promise<Void> {
        Promise(box: _chain(on: dispatcher, cancelsOnDrop: true, MapOperation(body)))
    }

    /// Looks at the value without changing it, running `body` through `dispatcher`.
    ///
    /// Like ``get(on:flags:_:)``; a rejection skips `body`, inline, without dispatching.
    ///
    /// ```swift
    /// fetchUser(id).get(on: limiter) { cache.store($0) }.map { $0.name }
    /// ```
    ///
    /// - Parameters:
    ///   - dispatcher: Runs `body`.
    ///   - body: Gets the value.
    /// - Returns: A promise of the same value.
    @_disfavoredOverload
    @inlinable
    public func get(
        on dispatcher: some Dispatcher, _ body: @escaping @Sendable (T) throws -> Void
    ) -> Promise<T> {
        Promise(box: _chain(on: dispatcher, cancelsOnDrop: true, GetOperation(body)))
    }

    /// Looks at the result, fulfilled or rejected, running `body` through `dispatcher`.
    ///
    /// Like ``tap(on:flags:_:)``: `body` is dispatched for either result.
    ///
    /// ```swift
    /// fetchUser(id).tap(on: limiter) { print("finished: \($0)") }.done { _ in }
    /// ```
    ///
    /// - Parameters:
    ///   - dispatcher: Runs `body`.
    ///   - body: Gets the result.
    /// - Returns: A promise with the same result.
    @_disfavoredOverload
    @inlinable
    public func tap(
        on dispatcher: some Dispatcher, _ body: @escaping @Sendable (Result<T, Error>) -> Void
    ) -> Promise<T> {
        Promise(box: _chain(on: dispatcher, cancelsOnDrop: true, TapOperation(body)))
    }

    /// Continues the chain with the thenable `body` returns, running `body` through `dispatcher`.
    ///
    /// Like ``then(on:flags:_:)``; a rejection skips `body`, inline, without dispatching.
    ///
    /// ```swift
    /// login(user).then(on: limiter) { token in fetchProfile(token) }.done { show($0) }
    /// ```
    ///
    /// - Parameters:
    ///   - dispatcher: Runs `body`.
    ///   - body: Gets the value and returns the thenable to continue with.
    /// - Returns: A promise that resolves as the thenable from `body` does.
    @_disfavoredOverload
    @inlinable
    public func then<U: Thenable>(
        on dispatcher: some Dispatcher, _ body: @escaping @Sendable (T) throws -> U
    ) -> Promise<U.T> {
        Promise(box: _chain(on: dispatcher, cancelsOnDrop: true, ThenOperation(body)))
    }

    /// Checks the value, running `isValid` through `dispatcher`.
    ///
    /// Like ``validate(on:flags:_:)``: `false` rejects the result with
    /// ``PMKError/validationFailed(_:_:)``; a rejection skips `isValid`, without dispatching.
    ///
    /// ```swift
    /// fetchStatusCode().validate(on: limiter) { (200..<300).contains($0) }.done { _ in }
    /// ```
    ///
    /// - Parameters:
    ///   - dispatcher: Runs `isValid`.
    ///   - isValid: Gets the value and says whether it may pass.
    /// - Returns: A promise of the same value, once it has passed the check.
    @_disfavoredOverload
    @inlinable
    public func validate(
        on dispatcher: some Dispatcher, _ isValid: @escaping @Sendable (T) throws -> Bool
    ) -> Promise<T> {
        let operation = MapOperation<T, T> { value in
            guard try isValid(value) else {
                throw PMKError.validationFailed(String(describing: value), String(reflecting: T.self))
            }
            return value
        }
        return Promise(box: _chain(on: dispatcher, cancelsOnDrop: true, operation))
    }
}
