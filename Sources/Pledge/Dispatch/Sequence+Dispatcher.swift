import Dispatch

// The `on: some Dispatcher` forms of the sequence helpers, for thenables and for guarantees.
// Each closure runs inside one body handed to the dispatcher, once per element, in order.

extension Thenable where T: Sequence {
    /// Transforms every element, running `transform` through `dispatcher`.
    ///
    /// ```swift
    /// fetchUsers().mapValues(on: limiter) { $0.name }.done { print($0) }
    /// ```
    ///
    /// - Parameters:
    ///   - dispatcher: Runs `transform`, once per element, in one body.
    ///   - transform: Maps one element.
    /// - Returns: A promise of the transformed elements, in order.
    @_disfavoredOverload
    @inlinable
    public func mapValues<U: Sendable>(
        on dispatcher: some Dispatcher, _ transform: @escaping @Sendable (T.Iterator.Element) throws -> U
    ) -> Promise<[U]> {
        map(on: dispatcher) { try $0.map(transform) }
    }

    /// Transforms every element into a sequence, through `dispatcher`, and concatenates them.
    ///
    /// ```swift
    /// fetchTeams().flatMapValues(on: limiter) { $0.members }.done { print($0.count) }
    /// ```
    ///
    /// - Parameters:
    ///   - dispatcher: Runs `transform`, once per element, in one body.
    ///   - transform: Maps one element to a sequence.
    /// - Returns: A promise of the concatenated elements.
    @_disfavoredOverload
    @inlinable
    public func flatMapValues<U: Sequence & SendableMetatype>(
        on dispatcher: some Dispatcher, _ transform: @escaping @Sendable (T.Iterator.Element) throws -> U
    ) -> Promise<[U.Iterator.Element]> where U.Iterator.Element: Sendable {
        map(on: dispatcher) { try $0.flatMap(transform) }
    }

    /// Transforms every element through `dispatcher` and keeps the non-`nil` results.
    ///
    /// ```swift
    /// fetchLines().compactMapValues(on: limiter) { Int($0) }.done { print($0) }
    /// ```
    ///
    /// - Parameters:
    ///   - dispatcher: Runs `transform`, once per element, in one body.
    ///   - transform: Maps one element, or returns `nil` to drop it.
    /// - Returns: A promise of the non-`nil` transformed elements, in order.
    @_disfavoredOverload
    @inlinable
    public func compactMapValues<U: Sendable>(
        on dispatcher: some Dispatcher, _ transform: @escaping @Sendable (T.Iterator.Element) throws -> U?
    ) -> Promise<[U]> {
        map(on: dispatcher) { try $0.compactMap(transform) }
    }

    /// Starts a thenable for every element, through `dispatcher`, and waits for all of them.
    ///
    /// ```swift
    /// fetchUserIDs().thenMap(on: limiter) { fetchUser($0) }.done { show($0) }
    /// ```
    ///
    /// - Parameters:
    ///   - dispatcher: Runs `transform`, once per element, in one body.
    ///   - transform: Starts the thenable for one element.
    /// - Returns: A promise of the values, in element order.
    @_disfavoredOverload
    @inlinable
    public func thenMap<U: Thenable>(
        on dispatcher: some Dispatcher, _ transform: @escaping @Sendable (T.Iterator.Element) throws -> U
    ) -> Promise<[U.T]> {
        then(on: dispatcher) { when(fulfilled: try $0.map(transform)) }
    }

    /// Starts a thenable of a sequence for every element, through `dispatcher`, waits for all
    /// of them, and concatenates their values.
    ///
    /// ```swift
    /// fetchFolders().thenFlatMap(on: limiter) { listFiles(in: $0) }.done { print($0) }
    /// ```
    ///
    /// - Parameters:
    ///   - dispatcher: Runs `transform`, once per element, in one body.
    ///   - transform: Starts the thenable for one element.
    /// - Returns: A promise of the concatenated values, in element order.
    @_disfavoredOverload
    @inlinable
    public func thenFlatMap<U: Thenable>(
        on dispatcher: some Dispatcher, _ transform: @escaping @Sendable (T.Iterator.Element) throws -> U
    ) -> Promise<[U.T.Iterator.Element]> where U.T: Sequence, U.T.Iterator.Element: Sendable {
        then(on: dispatcher) { when(fulfilled: try $0.map(transform)) }
            .map(on: nil) { $0.flatMap { $0 } }
    }

    /// Keeps the elements that `isIncluded`, run through `dispatcher`, accepts.
    ///
    /// ```swift
    /// fetchUsers().filterValues(on: limiter) { $0.isActive }.done { show($0) }
    /// ```
    ///
    /// - Parameters:
    ///   - dispatcher: Runs `isIncluded`, once per element, in one body.
    ///   - isIncluded: Whether to keep an element.
    /// - Returns: A promise of the kept elements, in order.
    @_disfavoredOverload
    @inlinable
    public func filterValues(
        on dispatcher: some Dispatcher, _ isIncluded: @escaping @Sendable (T.Iterator.Element) -> Bool
    ) -> Promise<[T.Iterator.Element]> where T.Iterator.Element: Sendable {
        map(on: dispatcher) { $0.filter(isIncluded) }
    }
}

extension Thenable where T: Collection, T.Iterator.Element: Sendable {
    /// The first element that `test`, run through `dispatcher`, accepts.
    ///
    /// ```swift
    /// fetchUsers().firstValue(on: limiter) { $0.isAdmin }.done { notify($0) }
    /// ```
    ///
    /// - Parameters:
    ///   - dispatcher: Runs `test`, in one body.
    ///   - test: Whether an element is the one wanted.
    /// - Returns: A promise of the first accepted element; rejected with
    ///   ``PMKError/emptySequence`` when there is none.
    @_disfavoredOverload
    @inlinable
    public func firstValue(
        on dispatcher: some Dispatcher, where test: @escaping @Sendable (T.Iterator.Element) -> Bool
    ) -> Promise<T.Iterator.Element> {
        map(on: dispatcher) { collection in
            guard let found = collection.first(where: test) else { throw PMKError.emptySequence }
            return found
        }
    }
}

extension Thenable where T: Sequence, T.Iterator.Element: Comparable & Sendable {
    /// Sorts the elements in increasing order, through `dispatcher`.
    ///
    /// ```swift
    /// fetchScores().sortedValues(on: limiter).done { print($0) }
    /// ```
    ///
    /// - Parameter dispatcher: Runs the sort.
    /// - Returns: A promise of the sorted elements.
    @_disfavoredOverload
    @inlinable
    public func sortedValues(on dispatcher: some Dispatcher) -> Promise<[T.Iterator.Element]> {
        map(on: dispatcher) { $0.sorted() }
    }
}

extension Guarantee where T: Sequence {
    /// Transforms every element, running `transform` through `dispatcher`.
    ///
    /// ```swift
    /// cachedUsers().mapValues(on: limiter) { $0.name }.done { print($0) }
    /// ```
    ///
    /// - Parameters:
    ///   - dispatcher: Runs `transform`, once per element, in one body.
    ///   - transform: Maps one element.
    /// - Returns: A guarantee of the transformed elements, in order.
    @_disfavoredOverload
    @inlinable
    public func mapValues<U: Sendable>(
        on dispatcher: some Dispatcher, _ transform: @escaping @Sendable (T.Iterator.Element) -> U
    ) -> Guarantee<[U]> {
        Guarantee<[U]>(box: _chain(on: dispatcher, cancelsOnDrop: false, MapOperation { $0.map(transform) }))
    }

    /// Transforms every element into a sequence, through `dispatcher`, and concatenates them.
    ///
    /// ```swift
    /// cachedTeams().flatMapValues(on: limiter) { $0.members }.done { print($0.count) }
    /// ```
    ///
    /// - Parameters:
    ///   - dispatcher: Runs `transform`, once per element, in one body.
    ///   - transform: Maps one element to a sequence.
    /// - Returns: A guarantee of the concatenated elements.
    @_disfavoredOverload
    @inlinable
    public func flatMapValues<U: Sequence & SendableMetatype>(
        on dispatcher: some Dispatcher, _ transform: @escaping @Sendable (T.Iterator.Element) -> U
    ) -> Guarantee<[U.Iterator.Element]> where U.Iterator.Element: Sendable {
        Guarantee<[U.Iterator.Element]>(
            box: _chain(on: dispatcher, cancelsOnDrop: false, MapOperation { $0.flatMap(transform) }))
    }

    /// Transforms every element through `dispatcher` and keeps the non-`nil` results.
    ///
    /// ```swift
    /// cachedLines().compactMapValues(on: limiter) { Int($0) }.done { print($0) }
    /// ```
    ///
    /// - Parameters:
    ///   - dispatcher: Runs `transform`, once per element, in one body.
    ///   - transform: Maps one element, or returns `nil` to drop it.
    /// - Returns: A guarantee of the non-`nil` transformed elements, in order.
    @_disfavoredOverload
    @inlinable
    public func compactMapValues<U: Sendable>(
        on dispatcher: some Dispatcher, _ transform: @escaping @Sendable (T.Iterator.Element) -> U?
    ) -> Guarantee<[U]> {
        Guarantee<[U]>(box: _chain(on: dispatcher, cancelsOnDrop: false, MapOperation { $0.compactMap(transform) }))
    }

    /// Starts a guarantee for every element, through `dispatcher`, and waits for all of them.
    ///
    /// ```swift
    /// cachedIDs().thenMap(on: limiter) { cachedThumbnail($0) }.done { show($0) }
    /// ```
    ///
    /// - Parameters:
    ///   - dispatcher: Runs `transform`, once per element, in one body.
    ///   - transform: Starts the guarantee for one element.
    /// - Returns: A guarantee of the values, in element order.
    @_disfavoredOverload
    @inlinable
    public func thenMap<U: Sendable>(
        on dispatcher: some Dispatcher, _ transform: @escaping @Sendable (T.Iterator.Element) -> Guarantee<U>
    ) -> Guarantee<[U]> {
        Guarantee<[U]>(
            box: _chain(on: dispatcher, cancelsOnDrop: false, ThenOperation { when(guarantees: $0.map(transform)) }))
    }

    /// Starts a guarantee of a sequence for every element, through `dispatcher`, waits for all
    /// of them, and concatenates their values.
    ///
    /// ```swift
    /// cachedFolders().thenFlatMap(on: limiter) { cachedFiles(in: $0) }.done { print($0) }
    /// ```
    ///
    /// - Parameters:
    ///   - dispatcher: Runs `transform`, once per element, in one body.
    ///   - transform: Starts the guarantee for one element.
    /// - Returns: A guarantee of the concatenated values, in element order.
    @_disfavoredOverload
    @inlinable
    public func thenFlatMap<U: Sequence & Sendable>(
        on dispatcher: some Dispatcher, _ transform: @escaping @Sendable (T.Iterator.Element) -> Guarantee<U>
    ) -> Guarantee<[U.Iterator.Element]> where U.Iterator.Element: Sendable {
        thenMap(on: dispatcher, transform).map(on: nil) { $0.flatMap { $0 } }
    }

    /// Keeps the elements that `isIncluded`, run through `dispatcher`, accepts.
    ///
    /// ```swift
    /// cachedUsers().filterValues(on: limiter) { $0.isActive }.done { show($0) }
    /// ```
    ///
    /// - Parameters:
    ///   - dispatcher: Runs `isIncluded`, once per element, in one body.
    ///   - isIncluded: Whether to keep an element.
    /// - Returns: A guarantee of the kept elements, in order.
    @_disfavoredOverload
    @inlinable
    public func filterValues(
        on dispatcher: some Dispatcher, _ isIncluded: @escaping @Sendable (T.Iterator.Element) -> Bool
    ) -> Guarantee<[T.Iterator.Element]> where T.Iterator.Element: Sendable {
        Guarantee<[T.Iterator.Element]>(
            box: _chain(on: dispatcher, cancelsOnDrop: false, MapOperation { $0.filter(isIncluded) }))
    }

    /// Sorts the elements with `areInIncreasingOrder`, through `dispatcher`.
    ///
    /// ```swift
    /// cachedUsers().sortedValues(on: limiter) { $0.name < $1.name }.done { show($0) }
    /// ```
    ///
    /// - Parameters:
    ///   - dispatcher: Runs the sort.
    ///   - areInIncreasingOrder: Whether its first argument should come before its second.
    /// - Returns: A guarantee of the sorted elements.
    @_disfavoredOverload
    @inlinable
    public func sortedValues(
        on dispatcher: some Dispatcher,
        _ areInIncreasingOrder: @escaping @Sendable (T.Iterator.Element, T.Iterator.Element) -> Bool
    ) -> Guarantee<[T.Iterator.Element]> where T.Iterator.Element: Sendable {
        Guarantee<[T.Iterator.Element]>(
            box: _chain(on: dispatcher, cancelsOnDrop: false, MapOperation { $0.sorted(by: areInIncreasingOrder) }))
    }

    /// Sorts the elements with `areInIncreasingOrder`, through `dispatcher`: the `by:` spelling of
    /// `sortedValues(on:_:)`.
    ///
    /// ```swift
    /// cachedUsers().sortedValues(on: limiter, by: { $0.name < $1.name }).done { show($0) }
    /// ```
    ///
    /// - Parameters:
    ///   - dispatcher: Runs the sort.
    ///   - areInIncreasingOrder: Whether its first argument should come before its second.
    /// - Returns: A guarantee of the sorted elements.
    @inlinable
    public func sortedValues(
        on dispatcher: some Dispatcher,
        by areInIncreasingOrder: @escaping @Sendable (T.Iterator.Element, T.Iterator.Element) -> Bool
    ) -> Guarantee<[T.Iterator.Element]> where T.Iterator.Element: Sendable {
        sortedValues(on: dispatcher, areInIncreasingOrder)
    }
}

extension Guarantee where T: Sequence, T.Iterator.Element: Comparable & Sendable {
    /// Sorts the elements in increasing order, through `dispatcher`.
    ///
    /// ```swift
    /// cachedScores().sortedValues(on: limiter).done { print($0) }
    /// ```
    ///
    /// - Parameter dispatcher: Runs the sort.
    /// - Returns: A guarantee of the sorted elements.
    @_disfavoredOverload
    @inlinable
    public func sortedValues(on dispatcher: some Dispatcher) -> Guarantee<[T.Iterator.Element]> {
        Guarantee<[T.Iterator.Element]>(box: _chain(on: dispatcher, cancelsOnDrop: false, MapOperation { $0.sorted() }))
    }
}
