import Dispatch

// The `on: .main` forms of `CatchMixin`'s operators: the closure is isolated to the main actor,
// and runs on the main queue (see `PMKMainQueue`). Each hands its closure to the form without `on:`.

extension CatchMixin {
    /// ``catch(flags:policy:_:)`` on the main queue, with its closure isolated to the main actor.
    @inlinable
    @discardableResult
    public func `catch`(
        on _: PMKMainQueue, policy: CatchPolicy = conf.catchPolicy,
        _ body: @escaping @MainActor @Sendable (Error) -> Void
    ) -> PMKFinalizer {
        self.catch(policy: policy, body)
    }

    /// `recover(flags:policy:_:)` on the main queue, with its closure isolated to the main actor.
    @inlinable
    public func recover<U: Thenable>(
        on _: PMKMainQueue, policy: CatchPolicy = conf.catchPolicy,
        _ body: @escaping @MainActor @Sendable (Error) throws -> U
    ) -> Promise<T> where U.T == T {
        recover(policy: policy, body)
    }

    /// `recover(flags:_:)` on the main queue, with its closure isolated to the main actor.
    @inlinable
    @discardableResult
    public func recover(
        on _: PMKMainQueue, _ body: @escaping @MainActor @Sendable (Error) -> Guarantee<T>
    ) -> Guarantee<T> {
        recover(body)
    }

    /// ``ensure(flags:_:)`` on the main queue, with its closure isolated to the main actor.
    @inlinable
    public func ensure(
        on _: PMKMainQueue, _ body: @escaping @MainActor @Sendable () -> Void
    ) -> Promise<T> {
        ensure(body)
    }

    /// ``ensureThen(flags:_:)`` on the main queue, with its closure isolated to the main actor.
    @inlinable
    public func ensureThen(
        on _: PMKMainQueue, _ body: @escaping @MainActor @Sendable () -> Guarantee<Void>
    ) -> Promise<T> {
        ensureThen(body)
    }
}

extension CatchMixin where T == Void {
    /// `recover(flags:_:)` on the main queue, with its closure isolated to the main actor.
    @inlinable
    @discardableResult
    public func recover(
        on _: PMKMainQueue, _ body: @escaping @MainActor @Sendable (Error) -> Void
    ) -> Guarantee<Void> {
        recover(body)
    }

    /// `recover(flags:policy:_:)` on the main queue, with its closure isolated to the main actor.
    @inlinable
    public func recover(
        on _: PMKMainQueue, policy: CatchPolicy = conf.catchPolicy,
        _ body: @escaping @MainActor @Sendable (Error) throws -> Void
    ) -> Promise<Void> {
        recover(policy: policy, body)
    }
}
