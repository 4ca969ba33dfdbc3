import Dispatch

// The `on: any Dispatcher` forms of `CatchMixin`'s operators and of `finally`, disfavoured so
// that a `DispatchQueue` keeps picking the queue form.

extension CatchMixin {
    /// ``catch(on:flags:policy:_:)``, with its closure run through `dispatcher`.
    @_disfavoredOverload
    @inlinable
    @discardableResult
    public func `catch`(
        on dispatcher: any Dispatcher, policy: CatchPolicy = conf.catchPolicy,
        _ body: @escaping @Sendable (Error) -> Void
    ) -> PMKFinalizer {
        PMKFinalizer(_chain(Executor(dispatcher, cancelsOnDrop: true), CatchOperation(policy: policy, body)))
    }

    /// ``recover(on:flags:policy:_:)->Promise<Self.T>``, with its closure run through `dispatcher`.
    @_disfavoredOverload
    @inlinable
    public func recover<U: Thenable>(
        on dispatcher: any Dispatcher, policy: CatchPolicy = conf.catchPolicy,
        _ body: @escaping @Sendable (Error) throws -> U
    ) -> Promise<T> where U.T == T {
        Promise(box: _chain(Executor(dispatcher, cancelsOnDrop: true), RecoverOperation(policy: policy, body)))
    }

    /// ``recover(on:flags:_:)->Guarantee<Self.T>``, with its closure run through `dispatcher`.
    @_disfavoredOverload
    @inlinable
    @discardableResult
    public func recover(
        on dispatcher: any Dispatcher, _ body: @escaping @Sendable (Error) -> Guarantee<T>
    ) -> Guarantee<T> {
        Guarantee(box: _chain(Executor(dispatcher, cancelsOnDrop: false), RecoverToGuaranteeOperation(body)))
    }

    /// ``ensure(on:flags:_:)``, with its closure run through `dispatcher`.
    @_disfavoredOverload
    @inlinable
    public func ensure(
        on dispatcher: any Dispatcher, _ body: @escaping @Sendable () -> Void
    ) -> Promise<T> {
        Promise(box: _chain(Executor(dispatcher, cancelsOnDrop: true), EnsureOperation(body)))
    }

    /// ``ensureThen(on:flags:_:)``, with its closure run through `dispatcher`.
    @_disfavoredOverload
    @inlinable
    public func ensureThen(
        on dispatcher: any Dispatcher, _ body: @escaping @Sendable () -> Guarantee<Void>
    ) -> Promise<T> {
        Promise(box: _chain(Executor(dispatcher, cancelsOnDrop: true), EnsureThenOperation(body)))
    }
}

extension CatchMixin where T == Void {
    /// ``recover(on:flags:_:)->Guarantee<Void>``, with its closure run through `dispatcher`.
    @_disfavoredOverload
    @inlinable
    @discardableResult
    public func recover(
        on dispatcher: any Dispatcher, _ body: @escaping @Sendable (Error) -> Void
    ) -> Guarantee<Void> {
        Guarantee(
            box: _chain(Executor(dispatcher, cancelsOnDrop: false), RecoverVoidOperation(policy: .allErrors, body)))
    }

    /// ``recover(on:flags:policy:_:)->Promise<Void>``, with its closure run through `dispatcher`.
    @_disfavoredOverload
    @inlinable
    public func recover(
        on dispatcher: any Dispatcher, policy: CatchPolicy = conf.catchPolicy,
        _ body: @escaping @Sendable (Error) throws -> Void
    ) -> Promise<Void> {
        Promise(box: _chain(Executor(dispatcher, cancelsOnDrop: true), RecoverVoidOperation(policy: policy, body)))
    }
}

extension PMKFinalizer {
    /// ``finally(on:flags:_:)``, with its closure run through `dispatcher`.
    @_disfavoredOverload
    @inlinable
    public func finally(on dispatcher: any Dispatcher, _ body: @escaping @Sendable () -> Void) {
        _ = Promise(box: box).ensure(on: dispatcher, body)
    }
}
