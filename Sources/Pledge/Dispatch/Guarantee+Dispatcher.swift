import Dispatch

// A guarantee's own `on: any Dispatcher` forms of `done`, `get`, `map` and `then`, which take
// closures that cannot throw and return guarantees. Disfavoured, as `Thenable`'s are, so that a
// `DispatchQueue` keeps picking the queue form; among the dispatcher forms, a guarantee's wins
// as the more specific. A guarantee cannot fail: dropped by a dispatcher that drops work, the
// result stays pending.

extension Guarantee {
    /// ``done(on:flags:_:)``, with its closure run through `dispatcher`.
    @_disfavoredOverload
    @inlinable
    @discardableResult
    public func done(on dispatcher: any Dispatcher, _ body: @escaping @Sendable (T) -> Void) -> Guarantee<Void> {
        Guarantee<Void>(box: _chain(Executor(dispatcher, cancelsOnDrop: false), MapOperation(body)))
    }

    /// ``get(on:flags:_:)``, with its closure run through `dispatcher`.
    @_disfavoredOverload
    @inlinable
    public func get(on dispatcher: any Dispatcher, _ body: @escaping @Sendable (T) -> Void) -> Guarantee<T> {
        Guarantee<T>(box: _chain(Executor(dispatcher, cancelsOnDrop: false), GetOperation(body)))
    }

    /// ``map(on:flags:_:)``, with its closure run through `dispatcher`.
    @_disfavoredOverload
    @inlinable
    public func map<U: Sendable>(on dispatcher: any Dispatcher, _ body: @escaping @Sendable (T) -> U) -> Guarantee<U> {
        Guarantee<U>(box: _chain(Executor(dispatcher, cancelsOnDrop: false), MapOperation(body)))
    }

    /// ``then(on:flags:_:)``, with its closure run through `dispatcher`.
    @_disfavoredOverload
    @inlinable
    @discardableResult
    public func then<U: Sendable>(
        on dispatcher: any Dispatcher, _ body: @escaping @Sendable (T) -> Guarantee<U>
    ) -> Guarantee<U> {
        Guarantee<U>(box: _chain(Executor(dispatcher, cancelsOnDrop: false), ThenOperation(body)))
    }
}
