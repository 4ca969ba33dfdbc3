import Dispatch

extension Guarantee where T: Sequence {
    /// Transforms every element of the sequence value.
    ///
    /// `transform` runs on `on` (``PMKConfiguration/Q`` `.map` by default, or the closure's actor;
    /// inline when `nil`), once per element, in order. A throwing closure picks
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
    @_disfavoredOverload  // so that `on: .main` picks the main-actor form
    @inlinable
    public func mapValues<U: Sendable>(
        on: DispatchQueue?, flags: DispatchWorkItemFlags? = nil,
        _ transform: @escaping @Sendable (T.Iterator.Element) -> U
    ) -> Guarantee<[U]> {
        map(on: on, flags: flags) { $0.map(transform) }
    }

    /// ``mapValues(on:flags:_:)`` with its closure run where it is written: isolated to the
    /// actor of the code that writes it (the main actor runs it on the main queue), else on
    /// `conf.Q.map`.
    @inlinable
    public func mapValues<U: Sendable>(
        flags: DispatchWorkItemFlags? = nil,
        @_inheritActorContext _ transform: @escaping @isolated(any) @Sendable (T.Iterator.Element) -> U
    ) -> Guarantee<[U]> {
        let (executor, transform) = Executor.placed(transform, otherwise: conf.Q.map, flags: flags)
        return Guarantee<[U]>(
            box: _chain(executor, MapOperation { [transform] in $0.map(transform) }))
    }

    /// Transforms every element into a sequence and concatenates the results.
    ///
    /// `transform` runs on `on` (``PMKConfiguration/Q`` `.map` by default, or the closure's actor;
    /// inline when `nil`), once per element, in order.
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
    @_disfavoredOverload  // so that `on: .main` picks the main-actor form
    @inlinable
    public func flatMapValues<U: Sequence & SendableMetatype>(
        on: DispatchQueue?, flags: DispatchWorkItemFlags? = nil,
        _ transform: @escaping @Sendable (T.Iterator.Element) -> U
    ) -> Guarantee<[U.Iterator.Element]> where U.Iterator.Element: Sendable {
        map(on: on, flags: flags) { $0.flatMap(transform) }
    }

    /// ``flatMapValues(on:flags:_:)`` with its closure run where it is written: isolated to the
    /// actor of the code that writes it (the main actor runs it on the main queue), else on
    /// `conf.Q.map`.
    @inlinable
    public func flatMapValues<U: Sequence & SendableMetatype>(
        flags: DispatchWorkItemFlags? = nil,
        @_inheritActorContext _ transform: @escaping @isolated(any) @Sendable (T.Iterator.Element) -> U
    ) -> Guarantee<[U.Iterator.Element]> where U.Iterator.Element: Sendable {
        let (executor, transform) = Executor.placed(transform, otherwise: conf.Q.map, flags: flags)
        return Guarantee<[U.Iterator.Element]>(
            box: _chain(executor, MapOperation { [transform] in $0.flatMap(transform) }))
    }

    /// Transforms every element and keeps the non-`nil` results.
    ///
    /// `transform` runs on `on` (``PMKConfiguration/Q`` `.map` by default, or the closure's actor;
    /// inline when `nil`), once per element, in order.
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
    @_disfavoredOverload  // so that `on: .main` picks the main-actor form
    @inlinable
    public func compactMapValues<U: Sendable>(
        on: DispatchQueue?, flags: DispatchWorkItemFlags? = nil,
        _ transform: @escaping @Sendable (T.Iterator.Element) -> U?
    ) -> Guarantee<[U]> {
        map(on: on, flags: flags) { $0.compactMap(transform) }
    }

    /// ``compactMapValues(on:flags:_:)`` with its closure run where it is written: isolated to the
    /// actor of the code that writes it (the main actor runs it on the main queue), else on
    /// `conf.Q.map`.
    @inlinable
    public func compactMapValues<U: Sendable>(
        flags: DispatchWorkItemFlags? = nil,
        @_inheritActorContext _ transform: @escaping @isolated(any) @Sendable (T.Iterator.Element) -> U?
    ) -> Guarantee<[U]> {
        let (executor, transform) = Executor.placed(transform, otherwise: conf.Q.map, flags: flags)
        return Guarantee<[U]>(
            box: _chain(executor, MapOperation { [transform] in $0.compactMap(transform) }))
    }

    /// Starts a guarantee for every element and waits for all of them.
    ///
    /// `transform` runs on `on` (``PMKConfiguration/Q`` `.map` by default, or the closure's actor;
    /// inline when `nil`), once per element, all at once. The result resolves, with the values in
    /// element order, on the thread that resolves the last of the guarantees.
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
    @_disfavoredOverload  // so that `on: .main` picks the main-actor form
    @inlinable
    public func thenMap<U: Sendable>(
        on: DispatchQueue?, flags: DispatchWorkItemFlags? = nil,
        _ transform: @escaping @Sendable (T.Iterator.Element) -> Guarantee<U>
    ) -> Guarantee<[U]> {
        then(on: on, flags: flags) { when(guarantees: $0.map(transform)) }
    }

    /// ``thenMap(on:flags:_:)`` with its closure run where it is written: isolated to the
    /// actor of the code that writes it (the main actor runs it on the main queue), else on
    /// `conf.Q.map`.
    @inlinable
    public func thenMap<U: Sendable>(
        flags: DispatchWorkItemFlags? = nil,
        @_inheritActorContext _ transform: @escaping @isolated(any) @Sendable (T.Iterator.Element) -> Guarantee<U>
    ) -> Guarantee<[U]> {
        let (executor, transform) = Executor.placed(transform, otherwise: conf.Q.map, flags: flags)
        return Guarantee<[U]>(
            box: _chain(
                executor, ThenOperation { [transform] in when(guarantees: $0.map(transform)) })
        )
    }

    /// Starts a guarantee of a sequence for every element, waits for all of them, and
    /// concatenates their values.
    ///
    /// `transform` runs on `on` (``PMKConfiguration/Q`` `.map` by default, or the closure's actor;
    /// inline when `nil`), once per element. Unlike PromiseKit, `transform` must return a
    /// ``Guarantee``: a closure that returns a ``Promise``, which can fail, picks
    /// ``Thenable/thenFlatMap(on:flags:_:)`` and gets a promise, instead of a guarantee that could
    /// never report the failure.
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
    @_disfavoredOverload  // so that `on: .main` picks the main-actor form
    @inlinable
    public func thenFlatMap<U: Sequence & Sendable>(
        on: DispatchQueue?, flags: DispatchWorkItemFlags? = nil,
        _ transform: @escaping @Sendable (T.Iterator.Element) -> Guarantee<U>
    ) -> Guarantee<[U.Iterator.Element]> where U.Iterator.Element: Sendable {
        thenMap(on: on, flags: flags, transform).map(on: nil) { $0.flatMap { $0 } }
    }

    /// ``thenFlatMap(on:flags:_:)`` with its closure run where it is written: isolated to the
    /// actor of the code that writes it (the main actor runs it on the main queue), else on
    /// `conf.Q.map`.
    @inlinable
    public func thenFlatMap<U: Sequence & Sendable>(
        flags: DispatchWorkItemFlags? = nil,
        @_inheritActorContext _ transform: @escaping @isolated(any) @Sendable (T.Iterator.Element) -> Guarantee<U>
    ) -> Guarantee<[U.Iterator.Element]> where U.Iterator.Element: Sendable {
        thenMap(flags: flags, transform).map(on: nil) { $0.flatMap { $0 } }
    }

    /// Keeps the elements that `isIncluded` accepts.
    ///
    /// `isIncluded` runs on `on` (``PMKConfiguration/Q`` `.map` by default, or the closure's
    /// actor; inline when `nil`),
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
    @_disfavoredOverload  // so that `on: .main` picks the main-actor form
    @inlinable
    public func filterValues(
        on: DispatchQueue?, flags: DispatchWorkItemFlags? = nil,
        _ isIncluded: @escaping @Sendable (T.Iterator.Element) -> Bool
    ) -> Guarantee<[T.Iterator.Element]> where T.Iterator.Element: Sendable {
        map(on: on, flags: flags) { $0.filter(isIncluded) }
    }

    /// ``filterValues(on:flags:_:)`` with its closure run where it is written: isolated to the
    /// actor of the code that writes it (the main actor runs it on the main queue), else on
    /// `conf.Q.map`.
    @inlinable
    public func filterValues(
        flags: DispatchWorkItemFlags? = nil,
        @_inheritActorContext _ isIncluded: @escaping @isolated(any) @Sendable (T.Iterator.Element) -> Bool
    ) -> Guarantee<[T.Iterator.Element]> where T.Iterator.Element: Sendable {
        let (executor, isIncluded) = Executor.placed(isIncluded, otherwise: conf.Q.map, flags: flags)
        return Guarantee<[T.Iterator.Element]>(
            box: _chain(executor, MapOperation { [isIncluded] in $0.filter(isIncluded) }))
    }

    /// Sorts the elements with `areInIncreasingOrder`.
    ///
    /// The sort runs on `on` (``PMKConfiguration/Q`` `.map` by default, or the closure's actor;
    /// inline when `nil`) and calls `areInIncreasingOrder` there, which must be a strict weak
    /// ordering, as for `Sequence.sorted(by:)`.
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
    @_disfavoredOverload  // so that `on: .main` picks the main-actor form
    @inlinable
    public func sortedValues(
        on: DispatchQueue?, flags: DispatchWorkItemFlags? = nil,
        _ areInIncreasingOrder: @escaping @Sendable (T.Iterator.Element, T.Iterator.Element) -> Bool
    ) -> Guarantee<[T.Iterator.Element]> where T.Iterator.Element: Sendable {
        map(on: on, flags: flags) { $0.sorted(by: areInIncreasingOrder) }
    }

    /// ``sortedValues(on:flags:_:)`` with its closure run where it is written: isolated to the
    /// actor of the code that writes it (the main actor runs it on the main queue), else on
    /// `conf.Q.map`.
    @inlinable
    public func sortedValues(
        flags: DispatchWorkItemFlags? = nil,
        @_inheritActorContext _ areInIncreasingOrder:
            @escaping @isolated(any) @Sendable (T.Iterator.Element, T.Iterator.Element) -> Bool
    ) -> Guarantee<[T.Iterator.Element]> where T.Iterator.Element: Sendable {
        let (executor, areInIncreasingOrder) = Executor.placed(
            areInIncreasingOrder, otherwise: conf.Q.map, flags: flags)
        return Guarantee<[T.Iterator.Element]>(
            box: _chain(
                executor,
                MapOperation { [areInIncreasingOrder] in
                    $0.sorted(by: areInIncreasingOrder)
                }))
    }

    /// Sorts the elements with `areInIncreasingOrder`; the spelling of
    /// `Sequence.sorted(by:)`, identical to ``sortedValues(on:flags:_:)``.
    ///
    /// A trailing closure given `on:` may pick this form, which sorts the same way.
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
    public func sortedValues(
        on: DispatchQueue?, flags: DispatchWorkItemFlags? = nil,
        by areInIncreasingOrder: @escaping @Sendable (T.Iterator.Element, T.Iterator.Element) -> Bool
    ) -> Guarantee<[T.Iterator.Element]> where T.Iterator.Element: Sendable {
        sortedValues(on: on, flags: flags, areInIncreasingOrder)
    }

    /// ``sortedValues(flags:_:)``, spelt as `Sequence.sorted(by:)`.
    @inlinable
    @_disfavoredOverload
    public func sortedValues(
        flags: DispatchWorkItemFlags? = nil,
        @_inheritActorContext by areInIncreasingOrder:
            @escaping @isolated(any) @Sendable (
                T.Iterator.Element, T.Iterator.Element
            ) -> Bool
    ) -> Guarantee<[T.Iterator.Element]> where T.Iterator.Element: Sendable {
        sortedValues(flags: flags, areInIncreasingOrder)
    }
}

extension Guarantee where T: Sequence, T.Iterator.Element: Comparable & Sendable {
    /// Sorts the elements in increasing order.
    ///
    /// The sort runs on `on` (``PMKConfiguration/Q`` `.map` by default, or the closure's actor;
    /// inline when `nil`).
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
