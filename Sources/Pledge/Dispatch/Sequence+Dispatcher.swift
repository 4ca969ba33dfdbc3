import Dispatch

// The `on: any Dispatcher` forms of the sequence helpers, for thenables and for guarantees.
// Each closure runs inside one body handed to the dispatcher, once per element, in order.

extension Thenable where T: Sequence {
    /// ``mapValues(on:flags:_:)``, with its closure run through `dispatcher`.
    @_disfavoredOverload
    @inlinable
    public func mapValues<U: Sendable>(
        on dispatcher: any Dispatcher, _ transform: @escaping @Sendable (T.Iterator.Element) throws -> U
    ) -> Promise<[U]> {
        map(on: dispatcher) { try $0.map(transform) }
    }

    /// ``flatMapValues(on:flags:_:)``, with its closure run through `dispatcher`.
    @_disfavoredOverload
    @inlinable
    public func flatMapValues<U: Sequence & SendableMetatype>(
        on dispatcher: any Dispatcher, _ transform: @escaping @Sendable (T.Iterator.Element) throws -> U
    ) -> Promise<[U.Iterator.Element]> where U.Iterator.Element: Sendable {
        map(on: dispatcher) { try $0.flatMap(transform) }
    }

    /// ``compactMapValues(on:flags:_:)``, with its closure run through `dispatcher`.
    @_disfavoredOverload
    @inlinable
    public func compactMapValues<U: Sendable>(
        on dispatcher: any Dispatcher, _ transform: @escaping @Sendable (T.Iterator.Element) throws -> U?
    ) -> Promise<[U]> {
        map(on: dispatcher) { try $0.compactMap(transform) }
    }

    /// ``thenMap(on:flags:_:)``, with its closure run through `dispatcher`.
    @_disfavoredOverload
    @inlinable
    public func thenMap<U: Thenable>(
        on dispatcher: any Dispatcher, _ transform: @escaping @Sendable (T.Iterator.Element) throws -> U
    ) -> Promise<[U.T]> {
        then(on: dispatcher) { when(fulfilled: try $0.map(transform)) }
    }

    /// ``thenFlatMap(on:flags:_:)``, with its closure run through `dispatcher`.
    @_disfavoredOverload
    @inlinable
    public func thenFlatMap<U: Thenable>(
        on dispatcher: any Dispatcher, _ transform: @escaping @Sendable (T.Iterator.Element) throws -> U
    ) -> Promise<[U.T.Iterator.Element]> where U.T: Sequence, U.T.Iterator.Element: Sendable {
        then(on: dispatcher) { when(fulfilled: try $0.map(transform)) }
            .map(on: nil) { $0.flatMap { $0 } }
    }

    /// ``filterValues(on:flags:_:)``, with its closure run through `dispatcher`.
    @_disfavoredOverload
    @inlinable
    public func filterValues(
        on dispatcher: any Dispatcher, _ isIncluded: @escaping @Sendable (T.Iterator.Element) -> Bool
    ) -> Promise<[T.Iterator.Element]> where T.Iterator.Element: Sendable {
        map(on: dispatcher) { $0.filter(isIncluded) }
    }
}

extension Thenable where T: Collection, T.Iterator.Element: Sendable {
    /// ``firstValue(on:flags:where:)``, with its closure run through `dispatcher`.
    @_disfavoredOverload
    @inlinable
    public func firstValue(
        on dispatcher: any Dispatcher, where test: @escaping @Sendable (T.Iterator.Element) -> Bool
    ) -> Promise<T.Iterator.Element> {
        map(on: dispatcher) { collection in
            guard let found = collection.first(where: test) else { throw PMKError.emptySequence }
            return found
        }
    }
}

extension Thenable where T: Sequence, T.Iterator.Element: Comparable & Sendable {
    /// ``sortedValues(on:flags:)``, sorting through `dispatcher`.
    @_disfavoredOverload
    @inlinable
    public func sortedValues(on dispatcher: any Dispatcher) -> Promise<[T.Iterator.Element]> {
        map(on: dispatcher) { $0.sorted() }
    }
}

extension Guarantee where T: Sequence {
    /// ``mapValues(on:flags:_:)``, with its closure run through `dispatcher`.
    @_disfavoredOverload
    @inlinable
    public func mapValues<U: Sendable>(
        on dispatcher: any Dispatcher, _ transform: @escaping @Sendable (T.Iterator.Element) -> U
    ) -> Guarantee<[U]> {
        Guarantee<[U]>(box: _chain(Executor(dispatcher, cancelsOnDrop: false), MapOperation { $0.map(transform) }))
    }

    /// ``flatMapValues(on:flags:_:)``, with its closure run through `dispatcher`.
    @_disfavoredOverload
    @inlinable
    public func flatMapValues<U: Sequence & SendableMetatype>(
        on dispatcher: any Dispatcher, _ transform: @escaping @Sendable (T.Iterator.Element) -> U
    ) -> Guarantee<[U.Iterator.Element]> where U.Iterator.Element: Sendable {
        Guarantee<[U.Iterator.Element]>(
            box: _chain(Executor(dispatcher, cancelsOnDrop: false), MapOperation { $0.flatMap(transform) }))
    }

    /// ``compactMapValues(on:flags:_:)``, with its closure run through `dispatcher`.
    @_disfavoredOverload
    @inlinable
    public func compactMapValues<U: Sendable>(
        on dispatcher: any Dispatcher, _ transform: @escaping @Sendable (T.Iterator.Element) -> U?
    ) -> Guarantee<[U]> {
        Guarantee<[U]>(
            box: _chain(Executor(dispatcher, cancelsOnDrop: false), MapOperation { $0.compactMap(transform) }))
    }

    /// ``thenMap(on:flags:_:)``, with its closure run through `dispatcher`.
    @_disfavoredOverload
    @inlinable
    public func thenMap<U: Sendable>(
        on dispatcher: any Dispatcher, _ transform: @escaping @Sendable (T.Iterator.Element) -> Guarantee<U>
    ) -> Guarantee<[U]> {
        Guarantee<[U]>(
            box: _chain(
                Executor(dispatcher, cancelsOnDrop: false), ThenOperation { when(guarantees: $0.map(transform)) }))
    }

    /// ``thenFlatMap(on:flags:_:)``, with its closure run through `dispatcher`.
    @_disfavoredOverload
    @inlinable
    public func thenFlatMap<U: Sequence & Sendable>(
        on dispatcher: any Dispatcher, _ transform: @escaping @Sendable (T.Iterator.Element) -> Guarantee<U>
    ) -> Guarantee<[U.Iterator.Element]> where U.Iterator.Element: Sendable {
        thenMap(on: dispatcher, transform).map(on: nil) { $0.flatMap { $0 } }
    }

    /// ``filterValues(on:flags:_:)``, with its closure run through `dispatcher`.
    @_disfavoredOverload
    @inlinable
    public func filterValues(
        on dispatcher: any Dispatcher, _ isIncluded: @escaping @Sendable (T.Iterator.Element) -> Bool
    ) -> Guarantee<[T.Iterator.Element]> where T.Iterator.Element: Sendable {
        Guarantee<[T.Iterator.Element]>(
            box: _chain(Executor(dispatcher, cancelsOnDrop: false), MapOperation { $0.filter(isIncluded) }))
    }

    /// ``sortedValues(on:flags:_:)``, with its closure run through `dispatcher`.
    @_disfavoredOverload
    @inlinable
    public func sortedValues(
        on dispatcher: any Dispatcher,
        _ areInIncreasingOrder: @escaping @Sendable (T.Iterator.Element, T.Iterator.Element) -> Bool
    ) -> Guarantee<[T.Iterator.Element]> where T.Iterator.Element: Sendable {
        Guarantee<[T.Iterator.Element]>(
            box: _chain(
                Executor(dispatcher, cancelsOnDrop: false), MapOperation { $0.sorted(by: areInIncreasingOrder) }))
    }

    /// ``sortedValues(on:flags:by:)``, with its closure run through `dispatcher`.
    @inlinable
    public func sortedValues(
        on dispatcher: any Dispatcher,
        by areInIncreasingOrder: @escaping @Sendable (T.Iterator.Element, T.Iterator.Element) -> Bool
    ) -> Guarantee<[T.Iterator.Element]> where T.Iterator.Element: Sendable {
        sortedValues(on: dispatcher, areInIncreasingOrder)
    }
}

extension Guarantee where T: Sequence, T.Iterator.Element: Comparable & Sendable {
    /// ``sortedValues(on:flags:)``, sorting through `dispatcher`.
    @_disfavoredOverload
    @inlinable
    public func sortedValues(on dispatcher: any Dispatcher) -> Guarantee<[T.Iterator.Element]> {
        Guarantee<[T.Iterator.Element]>(
            box: _chain(Executor(dispatcher, cancelsOnDrop: false), MapOperation { $0.sorted() }))
    }
}
