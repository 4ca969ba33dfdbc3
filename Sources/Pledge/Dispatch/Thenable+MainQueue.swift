import Dispatch

// The `on: .main` forms of `Thenable`'s operators: the closure is isolated to the main actor, and
// runs on the main queue (see `PMKMainQueue`). Each hands its closure to the form without `on:`.

extension Thenable {
    /// ``done(flags:_:)`` on the main queue, with its closure isolated to the main actor.
    @inlinable
    public func done(
        on _: PMKMainQueue, _ body: @escaping @MainActor @Sendable (T) throws -> Void
    ) -> Promise<Void> {
        done(body)
    }

    /// ``get(flags:_:)`` on the main queue, with its closure isolated to the main actor.
    @inlinable
    public func get(
        on _: PMKMainQueue, _ body: @escaping @MainActor @Sendable (T) throws -> Void
    ) -> Promise<T> {
        get(body)
    }

    /// ``tap(flags:_:)`` on the main queue, with its closure isolated to the main actor.
    @inlinable
    public func tap(
        on _: PMKMainQueue, _ body: @escaping @MainActor @Sendable (Result<T, Error>) -> Void
    ) -> Promise<T> {
        tap(body)
    }

    /// ``validate(flags:_:)`` on the main queue, with its closure isolated to the main actor.
    @inlinable
    public func validate(
        on _: PMKMainQueue, _ isValid: @escaping @MainActor @Sendable (T) throws -> Bool
    ) -> Promise<T> {
        validate(isValid)
    }
}

extension Thenable where T: Sequence {
    /// ``mapValues(flags:_:)`` on the main queue, with its closure isolated to the main actor.
    @inlinable
    public func mapValues<U: Sendable>(
        on _: PMKMainQueue, _ transform: @escaping @MainActor @Sendable (T.Iterator.Element) throws -> U
    ) -> Promise<[U]> {
        mapValues(transform)
    }

    /// ``flatMapValues(flags:_:)`` on the main queue, with its closure isolated to the main actor.
    @inlinable
    public func flatMapValues<U: Sequence & SendableMetatype>(
        on _: PMKMainQueue, _ transform: @escaping @MainActor @Sendable (T.Iterator.Element) throws -> U
    ) -> Promise<[U.Iterator.Element]> where U.Iterator.Element: Sendable {
        flatMapValues(transform)
    }

    /// ``compactMapValues(flags:_:)`` on the main queue, with its closure isolated to the main actor.
    @inlinable
    public func compactMapValues<U: Sendable>(
        on _: PMKMainQueue, _ transform: @escaping @MainActor @Sendable (T.Iterator.Element) throws -> U?
    ) -> Promise<[U]> {
        compactMapValues(transform)
    }

    /// ``thenMap(flags:_:)`` on the main queue, with its closure isolated to the main actor.
    @inlinable
    public func thenMap<U: Thenable>(
        on _: PMKMainQueue, _ transform: @escaping @MainActor @Sendable (T.Iterator.Element) throws -> U
    ) -> Promise<[U.T]> {
        thenMap(transform)
    }

    /// ``thenFlatMap(flags:_:)`` on the main queue, with its closure isolated to the main actor.
    @inlinable
    public func thenFlatMap<U: Thenable>(
        on _: PMKMainQueue, _ transform: @escaping @MainActor @Sendable (T.Iterator.Element) throws -> U
    ) -> Promise<[U.T.Iterator.Element]> where U.T: Sequence, U.T.Iterator.Element: Sendable {
        thenFlatMap(transform)
    }

    /// ``filterValues(flags:_:)`` on the main queue, with its closure isolated to the main actor.
    @inlinable
    public func filterValues(
        on _: PMKMainQueue, _ isIncluded: @escaping @MainActor @Sendable (T.Iterator.Element) -> Bool
    ) -> Promise<[T.Iterator.Element]> where T.Iterator.Element: Sendable {
        filterValues(isIncluded)
    }
}

extension Thenable {
    /// ``then(flags:_:)`` on the main queue, with its closure isolated to the main actor.
    @inlinable
    public func then<U: Thenable>(
        on _: PMKMainQueue, _ body: @escaping @MainActor @Sendable (T) throws -> U
    ) -> Promise<U.T> {
        then(body)
    }

    /// ``map(flags:_:)`` on the main queue, with its closure isolated to the main actor.
    @inlinable
    public func map<U: Sendable>(
        on _: PMKMainQueue, _ transform: @escaping @MainActor @Sendable (T) throws -> U
    ) -> Promise<U> {
        map(transform)
    }

    /// ``compactMap(flags:_:)`` on the main queue, with its closure isolated to the main actor.
    @inlinable
    public func compactMap<U: Sendable>(
        on _: PMKMainQueue, _ transform: @escaping @MainActor @Sendable (T) throws -> U?
    ) -> Promise<U> {
        compactMap(transform)
    }
}

extension Thenable where T: Collection, T.Iterator.Element: Sendable {
    /// ``firstValue(flags:where:)`` on the main queue, with its closure isolated to the main actor.
    @inlinable
    public func firstValue(
        on _: PMKMainQueue, where test: @escaping @MainActor @Sendable (T.Iterator.Element) -> Bool
    ) -> Promise<T.Iterator.Element> {
        firstValue(where: test)
    }
}
