import Dispatch

// A guarantee's own `on: some Dispatcher` forms of `done`, `get`, `map` and `then`, which take
// closures that cannot throw and return guarantees. Disfavoured, as `Thenable`'s are, so that a
// `DispatchQueue` keeps picking the queue form; among the dispatcher forms, a guarantee's wins
// as the more specific. A guarantee cannot fail: dropped by a dispatcher that drops work, the
// result stays pending.

extension Guarantee {
    /// Ends the chain with the value, running `body` through `dispatcher`.
    ///
    /// ```swift
    /// cachedUser().done(on: limiter) { print($0.name) }
    /// ```
    ///
    /// - Parameters:
    ///   - dispatcher: Runs `body`.
    ///   - body: Consumes the value.
    /// - Returns: A guarantee that has `Void` once `body` returns.
    @_disfavoredOverload
    @inlinable
    @discardableResult
    public func done(on dispatcher: some Dispatcher, _ body: @escaping @Sendable (T) -> Void) -> Guarantee<Void> {
        Guarantee<Void>(box: _chain(on: dispatcher, cancelsOnDrop: false, MapOperation(body)))
    }

    /// Looks at the value without changing it, running `body` through `dispatcher`.
    ///
    /// ```swift
    /// cachedUser().get(on: limiter) { log($0) }.map { $0.name }
    /// ```
    ///
    /// - Parameters:
    ///   - dispatcher: Runs `body`.
    ///   - body: Gets the value.
    /// - Returns: A guarantee of the same value, once `body` returns.
    @_disfavoredOverload
    @inlinable
    public func get(on dispatcher: some Dispatcher, _ body: @escaping @Sendable (T) -> Void) -> Guarantee<T> {
        Guarantee<T>(box: _chain(on: dispatcher, cancelsOnDrop: false, GetOperation(body)))
    }

    /// Transforms the value, running `body` through `dispatcher`.
    ///
    /// ```swift
    /// Guarantee.value(2).map(on: limiter) { $0 * 21 }.done { print($0) }   // 42
    /// ```
    ///
    /// - Parameters:
    ///   - dispatcher: Runs `body`.
    ///   - body: Gets the value and returns the new one.
    /// - Returns: A guarantee of the transformed value.
    @_disfavoredOverload
    @inlinable
    public func map<U: Sendable>(on dispatcher: some Dispatcher, _ body: @escaping @Sendable (T) -> U) -> Guarantee<U> {
        Guarantee<U>(box: _chain(on: dispatcher, cancelsOnDrop: false, MapOperation(body)))
    }

    /// Continues with the guarantee `body` returns, running `body` through `dispatcher`.
    ///
    /// ```swift
    /// cachedID().then(on: limiter) { cachedThumbnail($0) }.done { show($0) }
    /// ```
    ///
    /// - Parameters:
    ///   - dispatcher: Runs `body`.
    ///   - body: Gets the value and returns the guarantee to continue with.
    /// - Returns: A guarantee that resolves as the one from `body` does.
    @_disfavoredOverload
    @inlinable
    @discardableResult
    public func then<U: Sendable>(
        on dispatcher: some Dispatcher, _ body: @escaping @Sendable (T) -> Guarantee<U>
    ) -> Guarantee<U> {
        Guarantee<U>(box: _chain(on: dispatcher, cancelsOnDrop: false, ThenOperation(body)))
    }
}
