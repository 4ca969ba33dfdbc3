import Dispatch

extension Guarantee where T: Sequence {
    /// Transforms every element of the sequence value.
    ///
    /// `transform` runs on `on` (``PMKConfiguration/Q`` `.map` by default; inline when `nil`),
    /// once per element, in order. A throwing closure picks
    /// ``Thenable/mapValues(on:flags:_:)`` instead, which returns a promise.
    ///
    /// ```swift
    /// cachedUsers().mapValues { $0.name }.done { names in print(names) }
    /// ```
    ///
    /// - Parameters:
    ///   - on: The queue `transform` runs on; `nil` runs it inline: on the thread that resolves
    ///     this guarantee, or at once when it already has its value.
    ///   - flags: Dispatch flags for the work item; ignored (and logged) with `on: nil`.
    ///   - transform: Maps one element.
    /// - Returns: A guarantee of the transformed elements, in order.
    @inlinable
    public func mapValues<U: Sendable>(
        on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
        _ transform: @escaping @Sendable (T.Iterator.Element) -> U
    ) -> Guarantee<[U]> {
        map(on: on, flags: flags) { $0.map(transform) }
    }

    /// Transforms every element into a sequence and concatenates the results.
    ///
    /// `transform` runs on `on` (``PMKConfiguration/Q`` `.map` by default; inline when `nil`),
    /// once per element, in order.
    ///
    /// ```swift
    /// cachedTeams().flatMapValues { $0.members }.done { everyone in print(everyone.count) }
    /// ```
    ///
    /// - Parameters:
    ///   - on: The queue `transform` runs on; `nil` runs it inline.
    ///   - flags: Dispatch flags for the work item; ignored (and logged) with `on: nil`.
    ///   - transform: Maps one element to a sequence.
    /// - Returns: A guarantee of the concatenated elements.
    @inlinable
    public func flatMapValues<U: Sequence & SendableMetatype>(
        on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
        _ transform: @escaping @Sendable (T.Iterator.Element) -> U
    ) -> Guarantee<[U.Iterator.Element]> where U.Iterator.Element: Sendable {
        map(on: on, flags: flags) { $0.flatMap(transform) }
    }

    /// Transforms every element and keeps the non-`nil` results.
    ///
    /// `transform` runs on `on` (``PMKConfiguration/Q`` `.map` by default; inline when `nil`),
    /// once per element, in order.
    ///
    /// ```swift
    /// cachedLines().compactMapValues { Int($0) }.done { numbers in print(numbers) }
    /// ```
    ///
    /// - Parameters:
    ///   - on: The queue `transform` runs on; `nil` runs it inline.
    ///   - flags: Dispatch flags for the work item; ignored (and logged) with `on: nil`.
    ///   - transform: Maps one element, or returns `nil` to drop it.
    /// - Returns: A guarantee of the non-`nil` transformed elements, in order.
    @inlinable
    public func compactMapValues<U: Sendable>(
        on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
        _ transform: @escaping @Sendable (T.Iterator.Element) -> U?
    ) -> Guarantee<[U]> {
        map(on: on, flags: flags) { $0.compactMap(transform) }
    }

    /// Starts a guarantee for every element and waits for all of them.
    ///
    /// `transform` runs on `on` (``PMKConfiguration/Q`` `.map` by default; inline when `nil`),
    /// once per element, all at once. The result resolves, with the values in element order,
    /// on the thread that resolves the last of the guarantees.
    ///
    /// ```swift
    /// cachedIDs().thenMap { id in cachedThumbnail(id) }.done { thumbnails in show(thumbnails) }
    /// ```
    ///
    /// - Parameters:
    ///   - on: The queue `transform` runs on; `nil` runs it inline.
    ///   - flags: Dispatch flags for the work item; ignored (and logged) with `on: nil`.
    ///   - transform: Starts the guarantee for one element.
    /// - Returns: A guarantee of the values, in element order.
    @inlinable
    public func thenMap<U: Sendable>(
        on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
        _ transform: @escaping @Sendable (T.Iterator.Element) -> Guarantee<U>
    ) -> Guarantee<[U]> {
        then(on: on, flags: flags) { when(guarantees: $0.map(transform)) }
    }

    /// Starts a guarantee of a sequence for every element, waits for all of them, and
    /// concatenates their values.
    ///
    /// `transform` runs on `on` (``PMKConfiguration/Q`` `.map` by default; inline when `nil`),
    /// once per element. Unlike PromiseKit, `transform` must return a ``Guarantee``: a closure
    /// that returns a ``Promise``, which can fail, picks ``Thenable/thenFlatMap(on:flags:_:)``
    /// and gets a promise, instead of a guarantee that could never report the failure.
    ///
    /// ```swift
    /// cachedFolders().thenFlatMap { folder in cachedFiles(in: folder) }.done { files in … }
    /// ```
    ///
    /// - Parameters:
    ///   - on: The queue `transform` runs on; `nil` runs it inline.
    ///   - flags: Dispatch flags for the work item; ignored (and logged) with `on: nil`.
    ///   - transform: Starts the guarantee for one element.
    /// - Returns: A guarantee of the concatenated values, in element order.
    @inlinable
    public func thenFlatMap<U: Sequence & Sendable>(
        on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
        _ transform: @escaping @Sendable (T.Iterator.Element) -> Guarantee<U>
    ) -> Guarantee<[U.Iterator.Element]> where U.Iterator.Element: Sendable {
        thenMap(on: on, flags: flags, transform).map(on: nil) { $0.flatMap { $0 } }
    }

    /// Keeps the elements that `isIncluded` accepts.
    ///
    /// `isIncluded` runs on `on` (``PMKConfiguration/Q`` `.map` by default; inline when `nil`),
    /// once per element, in order.
    ///
    /// ```swift
    /// cachedUsers().filterValues { $0.isActive }.done { active in show(active) }
    /// ```
    ///
    /// - Parameters:
    ///   - on: The queue `isIncluded` runs on; `nil` runs it inline.
    ///   - flags: Dispatch flags for the work item; ignored (and logged) with `on: nil`.
    ///   - isIncluded: Whether to keep an element.
    /// - Returns: A guarantee of the kept elements, in order.
    @inlinable
    public func filterValues(
        on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
        _ isIncluded: @escaping @Sendable (T.Iterator.Element) -> Bool
    ) -> Guarantee<[T.Iterator.Element]> where T.Iterator.Element: Sendable {
        map(on: on, flags: flags) { $0.filter(isIncluded) }
    }

    /// Sorts the elements with `areInIncreasingOrder`.
    ///
    /// The sort runs on `on` (``PMKConfiguration/Q`` `.map` by default; inline when `nil`) and
    /// calls `areInIncreasingOrder` there, which must be a strict weak ordering, as for
    /// `Sequence.sorted(by:)`.
    ///
    /// ```swift
    /// cachedUsers().sortedValues { $0.name < $1.name }.done { users in show(users) }
    /// ```
    ///
    /// - Parameters:
    ///   - on: The queue the sort runs on; `nil` runs it inline.
    ///   - flags: Dispatch flags for the work item; ignored (and logged) with `on: nil`.
    ///   - areInIncreasingOrder: Whether its first argument should come before its second.
    /// - Returns: A guarantee of the sorted elements.
    @inlinable
    public func sortedValues(
        on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
        _ areInIncreasingOrder: @escaping @Sendable (T.Iterator.Element, T.Iterator.Element) -> Bool
    ) -> Guarantee<[T.Iterator.Element]> where T.Iterator.Element: Sendable {
        map(on: on, flags: flags) { $0.sorted(by: areInIncreasingOrder) }
    }

    /// Sorts the elements with `areInIncreasingOrder`; the spelling of
    /// `Sequence.sorted(by:)`, identical to ``sortedValues(on:flags:_:)``.
    ///
    /// Disfavoured so that a trailing closure picks the unlabelled form.
    ///
    /// ```swift
    /// cachedUsers().sortedValues(by: { $0.name < $1.name }).done { users in show(users) }
    /// ```
    ///
    /// - Parameters:
    ///   - on: The queue the sort runs on; `nil` runs it inline.
    ///   - flags: Dispatch flags for the work item; ignored (and logged) with `on: nil`.
    ///   - areInIncreasingOrder: Whether its first argument should come before its second.
    /// - Returns: A guarantee of the sorted elements.
    @inlinable
    @_disfavoredOverload
    public func sortedValues(
        on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
        by areInIncreasingOrder: @escaping @Sendable (T.Iterator.Element, T.Iterator.Element) -> Bool
    ) -> Guarantee<[T.Iterator.Element]> where T.Iterator.Element: Sendable {
        sortedValues(on: on, flags: flags, areInIncreasingOrder)
    }
}

extension Guarantee where T: Sequence, T.Iterator.Element: Comparable & Sendable {
    /// Sorts the elements in increasing order.
    ///
    /// The sort runs on `on` (``PMKConfiguration/Q`` `.map` by default; inline when `nil`).
    ///
    /// ```swift
    /// cachedScores().sortedValues().done { scores in print(scores) }
    /// ```
    ///
    /// - Parameters:
    ///   - on: The queue the sort runs on; `nil` runs it inline.
    ///   - flags: Dispatch flags for the work item; ignored (and logged) with `on: nil`.
    /// - Returns: A guarantee of the sorted elements.
    @inlinable
    public func sortedValues(
        on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil
    ) -> Guarantee<[T.Iterator.Element]> {
        map(on: on, flags: flags) { $0.sorted() }
    }
}
