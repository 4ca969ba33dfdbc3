import Dispatch

// The `on: .main` forms of `Guarantee`'s own operators: the closure is isolated to the main actor,
// and runs on the main queue (see `PMKMainQueue`). Each hands its closure to the form without `on:`.

extension Guarantee where T: Sequence {
    /// ``mapValues(flags:_:)`` on the main queue, with its closure isolated to the main actor.
    @inlinable
    public func mapValues<U: Sendable>(
        on _: PMKMainQueue, _ transform: @escaping @MainActor @Sendable (T.Iterator.Element) -> U
    ) -> Guarantee<[U]> {
        mapValues(transform)
    }

    /// ``flatMapValues(flags:_:)`` on the main queue, with its closure isolated to the main actor.
    @inlinable
    public func flatMapValues<U: Sequence & SendableMetatype>(
        on _: PMKMainQueue, _ transform: @escaping @MainActor @Sendable (T.Iterator.Element) -> U
    ) -> Guarantee<[U.Iterator.Element]> where U.Iterator.Element: Sendable {
        flatMapValues(transform)
    }

    /// ``compactMapValues(flags:_:)`` on the main queue, with its closure isolated to the main actor.
    @inlinable
    public func compactMapValues<U: Sendable>(
        on _: PMKMainQueue, _ transform: @escaping @MainActor @Sendable (T.Iterator.Element) -> U?
    ) -> Guarantee<[U]> {
        compactMapValues(transform)
    }

    /// ``thenMap(flags:_:)`` on the main queue, with its closure isolated to the main actor.
    @inlinable
    public func thenMap<U: Sendable>(
        on _: PMKMainQueue, _ transform: @escaping @MainActor @Sendable (T.Iterator.Element) -> Guarantee<U>
    ) -> Guarantee<[U]> {
        thenMap(transform)
    }

    /// ``thenFlatMap(flags:_:)`` on the main queue, with its closure isolated to the main actor.
    @inlinable
    public func thenFlatMap<U: Sequence & Sendable>(
        on _: PMKMainQueue, _ transform: @escaping @MainActor @Sendable (T.Iterator.Element) -> Guarantee<U>
    ) -> Guarantee<[U.Iterator.Element]> where U.Iterator.Element: Sendable {
        thenFlatMap(transform)
    }

    /// ``filterValues(flags:_:)`` on the main queue, with its closure isolated to the main actor.
    @inlinable
    public func filterValues(
        on _: PMKMainQueue, _ isIncluded: @escaping @MainActor @Sendable (T.Iterator.Element) -> Bool
    ) -> Guarantee<[T.Iterator.Element]> where T.Iterator.Element: Sendable {
        filterValues(isIncluded)
    }

    /// ``sortedValues(flags:_:)`` on the main queue, with its closure isolated to the main actor.
    @inlinable
    public func sortedValues(
        on _: PMKMainQueue,
        _ areInIncreasingOrder: @escaping @MainActor @Sendable (T.Iterator.Element, T.Iterator.Element) -> Bool
    ) -> Guarantee<[T.Iterator.Element]> where T.Iterator.Element: Sendable {
        sortedValues(areInIncreasingOrder)
    }
}

extension Guarantee {
    /// ``done(flags:_:)`` on the main queue, with its closure isolated to the main actor.
    @inlinable
    @discardableResult
    public func done(
        on _: PMKMainQueue, _ body: @escaping @MainActor @Sendable (T) -> Void
    ) -> Guarantee<Void> {
        done(body)
    }

    /// ``get(flags:_:)`` on the main queue, with its closure isolated to the main actor.
    @inlinable
    public func get(
        on _: PMKMainQueue, _ body: @escaping @MainActor @Sendable (T) -> Void
    ) -> Guarantee<T> {
        get(body)
    }

    /// ``map(flags:_:)`` on the main queue, with its closure isolated to the main actor.
    @inlinable
    public func map<U: Sendable>(
        on _: PMKMainQueue, _ body: @escaping @MainActor @Sendable (T) -> U
    ) -> Guarantee<U> {
        map(body)
    }

    /// ``then(flags:_:)`` on the main queue, with its closure isolated to the main actor.
    @inlinable
    @discardableResult
    public func then<U: Sendable>(
        on _: PMKMainQueue, _ body: @escaping @MainActor @Sendable (T) -> Guarantee<U>
    ) -> Guarantee<U> {
        then(body)
    }
}
