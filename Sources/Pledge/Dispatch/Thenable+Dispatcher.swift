import Dispatch

// The `on: any Dispatcher` forms of `Thenable`'s operators. Each is disfavoured, so that a
// `DispatchQueue` (`on: queue`, `on: .main`, `on: nil`, no `on:` at all) keeps picking the queue
// form wherever one fits.

extension Thenable {
    /// ``map(on:flags:_:)``, with its closure run through `dispatcher`.
    @_disfavoredOverload
    @inlinable
    public func map<U: Sendable>(
        on dispatcher: any Dispatcher, _ transform: @escaping @Sendable (T) throws -> U
    ) -> Promise<U> {
        Promise(box: _chain(Executor(dispatcher, cancelsOnDrop: true), MapOperation(transform)))
    }

    /// ``compactMap(on:flags:_:)``, with its closure run through `dispatcher`.
    @_disfavoredOverload
    @inlinable
    public func compactMap<U: Sendable>(
        on dispatcher: any Dispatcher, _ transform: @escaping @Sendable (T) throws -> U?
    ) -> Promise<U> {
        Promise(box: _chain(Executor(dispatcher, cancelsOnDrop: true), CompactMapOperation(transform)))
    }

    /// ``done(on:flags:_:)``, with its closure run through `dispatcher`.
    @_disfavoredOverload
    @inlinable
    public func done(
        on dispatcher: any Dispatcher, _ body: @escaping @Sendable (T) throws -> Void
    ) -> Promise<Void> {
        Promise(box: _chain(Executor(dispatcher, cancelsOnDrop: true), MapOperation(body)))
    }

    /// ``get(on:flags:_:)``, with its closure run through `dispatcher`.
    @_disfavoredOverload
    @inlinable
    public func get(
        on dispatcher: any Dispatcher, _ body: @escaping @Sendable (T) throws -> Void
    ) -> Promise<T> {
        Promise(box: _chain(Executor(dispatcher, cancelsOnDrop: true), GetOperation(body)))
    }

    /// ``tap(on:flags:_:)``, with its closure run through `dispatcher`.
    @_disfavoredOverload
    @inlinable
    public func tap(
        on dispatcher: any Dispatcher, _ body: @escaping @Sendable (Result<T, Error>) -> Void
    ) -> Promise<T> {
        Promise(box: _chain(Executor(dispatcher, cancelsOnDrop: true), TapOperation(body)))
    }

    /// ``then(on:flags:_:)``, with its closure run through `dispatcher`.
    @_disfavoredOverload
    @inlinable
    public func then<U: Thenable>(
        on dispatcher: any Dispatcher, _ body: @escaping @Sendable (T) throws -> U
    ) -> Promise<U.T> {
        Promise(box: _chain(Executor(dispatcher, cancelsOnDrop: true), ThenOperation(body)))
    }

    /// ``validate(on:flags:_:)``, with its closure run through `dispatcher`.
    @_disfavoredOverload
    @inlinable
    public func validate(
        on dispatcher: any Dispatcher, _ isValid: @escaping @Sendable (T) throws -> Bool
    ) -> Promise<T> {
        let operation = MapOperation<T, T> { value in
            guard try isValid(value) else {
                throw PMKError.validationFailed(String(describing: value), String(reflecting: T.self))
            }
            return value
        }
        return Promise(box: _chain(Executor(dispatcher, cancelsOnDrop: true), operation))
    }
}
