import Dispatch

extension Thenable where T: Sequence {
    /// Transforms every element of the sequence value: the result is fulfilled with the array of
    /// what `transform` returns.
    ///
    /// `transform` runs on `on` (``PMKConfiguration/Q`` `.map` by default, or the closure's actor;
    /// inline when `nil`), once per element, in order, once this thenable is fulfilled. A rejection
    /// skips it and rejects the result with the same error; a throw rejects the result with the
    /// thrown error.
    ///
    /// ```swift
    /// fetchUsers().mapValues { $0.name }.done { names in print(names) }
    /// ```
    ///
    /// - Parameters:
    ///   - on: The queue `transform` runs on; `nil` runs it inline: on the thread that resolves
    ///     this thenable, or at once when it is already resolved.
    ///   - flags: Dispatch flags for the work item; ignored (and logged) with `on: nil`.
    ///   - transform: Maps one element.
    /// - Returns: A promise of the transformed elements, in order.
    @_disfavoredOverload  // so that `on: .main` picks the main-actor form
    @inlinable
    public func mapValues<U: Sendable>(
        on: DispatchQueue?, flags: DispatchWorkItemFlags? = nil,
        _ transform: @escaping @Sendable (T.Iterator.Element) throws -> U
    ) -> Promise<[U]> {
        map(on: on, flags: flags) { try $0.map(transform) }
    }

    /// ``mapValues(on:flags:_:)`` with its closure run where it is written: isolated to the
    /// actor of the code that writes it (the main actor runs it on the main queue), else on
    /// `conf.Q.map`.
    @inlinable
    public func mapValues<U: Sendable>(
        flags: DispatchWorkItemFlags? = nil,
        @_inheritActorContext _ transform: @escaping @isolated(any) @Sendable (T.Iterator.Element) throws -> U
    ) -> Promise<[U]> {
        let (executor, transform) = Executor.placed(transform, otherwise: conf.Q.map, flags: flags)
        return Promise(
            box: _chain(executor, MapOperation { [transform] in try $0.map(transform) }))
    }

    /// Transforms every element into a sequence and concatenates the results.
    ///
    /// `transform` runs on `on` (``PMKConfiguration/Q`` `.map` by default, or the closure's actor;
    /// inline when `nil`), once per element, in order. A rejection skips it; a throw rejects the
    /// result.
    ///
    /// ```swift
    /// fetchTeams().flatMapValues { $0.members }.done { everyone in print(everyone.count) }
    /// ```
    ///
    /// - Parameters:
    ///   - on: The queue `transform` runs on; `nil` runs it inline.
    ///   - flags: Dispatch flags for the work item; ignored (and logged) with `on: nil`.
    ///   - transform: Maps one element to a sequence.
    /// - Returns: A promise of the concatenated elements.
    @_disfavoredOverload  // so that `on: .main` picks the main-actor form
    @inlinable
    public func flatMapValues<U: Sequence & SendableMetatype>(
        on: DispatchQueue?, flags: DispatchWorkItemFlags? = nil,
        _ transform: @escaping @Sendable (T.Iterator.Element) throws -> U
    ) -> Promise<[U.Iterator.Element]> where U.Iterator.Element: Sendable {
        map(on: on, flags: flags) { try $0.flatMap(transform) }
    }

    /// ``flatMapValues(on:flags:_:)`` with its closure run where it is written: isolated to the
    /// actor of the code that writes it (the main actor runs it on the main queue), else on
    /// `conf.Q.map`.
    @inlinable
    public func flatMapValues<U: Sequence & SendableMetatype>(
        flags: DispatchWorkItemFlags? = nil,
        @_inheritActorContext _ transform: @escaping @isolated(any) @Sendable (T.Iterator.Element) throws -> U
    ) -> Promise<[U.Iterator.Element]> where U.Iterator.Element: Sendable {
        let (executor, transform) = Executor.placed(transform, otherwise: conf.Q.map, flags: flags)
        return Promise(
            box: _chain(executor, MapOperation { [transform] in try $0.flatMap(transform) }))
    }

    /// Transforms every element and keeps the non-`nil` results.
    ///
    /// `transform` runs on `on` (``PMKConfiguration/Q`` `.map` by default, or the closure's actor;
    /// inline when `nil`), once per element, in order. A rejection skips it; a throw rejects the
    /// result.
    ///
    /// ```swift
    /// fetchLines().compactMapValues { Int($0) }.done { numbers in print(numbers) }
    /// ```
    ///
    /// - Parameters:
    ///   - on: The queue `transform` runs on; `nil` runs it inline.
    ///   - flags: Dispatch flags for the work item; ignored (and logged) with `on: nil`.
    ///   - transform: Maps one element, or returns `nil` to drop it.
    /// - Returns: A promise of the non-`nil` transformed elements, in order.
    @_disfavoredOverload  // so that `on: .main` picks the main-actor form
    @inlinable
    public func compactMapValues<U: Sendable>(
        on: DispatchQueue?, flags: DispatchWorkItemFlags? = nil,
        _ transform: @escaping @Sendable (T.Iterator.Element) throws -> U?
    ) -> Promise<[U]> {
        map(on: on, flags: flags) { try $0.compactMap(transform) }
    }

    /// ``compactMapValues(on:flags:_:)`` with its closure run where it is written: isolated to the
    /// actor of the code that writes it (the main actor runs it on the main queue), else on
    /// `conf.Q.map`.
    @inlinable
    public func compactMapValues<U: Sendable>(
        flags: DispatchWorkItemFlags? = nil,
        @_inheritActorContext _ transform: @escaping @isolated(any) @Sendable (T.Iterator.Element) throws -> U?
    ) -> Promise<[U]> {
        let (executor, transform) = Executor.placed(transform, otherwise: conf.Q.map, flags: flags)
        return Promise(
            box: _chain(executor, MapOperation { [transform] in try $0.compactMap(transform) })
        )
    }

    /// Starts a thenable for every element and waits for all of them: the result is fulfilled
    /// with their values, in element order.
    ///
    /// `transform` runs on `on` (``PMKConfiguration/Q`` `.map` by default, or the closure's actor;
    /// inline when `nil`), once per element, all at once, so the thenables run concurrently. The
    /// result is rejected by a rejection of this thenable, by a throw from `transform`, or as soon
    /// as any of the thenables is rejected (see ``when(fulfilled:file:line:)->Promise<[U.T]>``).
    ///
    /// ```swift
    /// fetchUserIDs().thenMap { id in fetchUser(id) }.done { users in show(users) }
    /// ```
    ///
    /// - Parameters:
    ///   - on: The queue `transform` runs on; `nil` runs it inline.
    ///   - flags: Dispatch flags for the work item; ignored (and logged) with `on: nil`.
    ///   - transform: Starts the thenable for one element.
    /// - Returns: A promise of the values, in element order.
    @_disfavoredOverload  // so that `on: .main` picks the main-actor form
    @inlinable
    public func thenMap<U: Thenable>(
        on: DispatchQueue?, flags: DispatchWorkItemFlags? = nil,
        _ transform: @escaping @Sendable (T.Iterator.Element) throws -> U
    ) -> Promise<[U.T]> {
        then(on: on, flags: flags) { when(fulfilled: try $0.map(transform)) }
    }

    /// ``thenMap(on:flags:_:)`` with its closure run where it is written: isolated to the
    /// actor of the code that writes it (the main actor runs it on the main queue), else on
    /// `conf.Q.map`.
    @inlinable
    public func thenMap<U: Thenable>(
        flags: DispatchWorkItemFlags? = nil,
        @_inheritActorContext _ transform: @escaping @isolated(any) @Sendable (T.Iterator.Element) throws -> U
    ) -> Promise<[U.T]> {
        let (executor, transform) = Executor.placed(transform, otherwise: conf.Q.map, flags: flags)
        return Promise(
            box: _chain(
                executor,
                ThenOperation { [transform] in when(fulfilled: try $0.map(transform)) }))
    }

    /// Starts a thenable of a sequence for every element, waits for all of them, and
    /// concatenates their values.
    ///
    /// `transform` runs on `on` (``PMKConfiguration/Q`` `.map` by default, or the closure's actor;
    /// inline when `nil`), once per element. Rejections and throws reject the result, as for
    /// ``thenMap(on:flags:_:)``.
    ///
    /// ```swift
    /// fetchFolders().thenFlatMap { folder in listFiles(in: folder) }.done { files in … }
    /// ```
    ///
    /// - Parameters:
    ///   - on: The queue `transform` runs on; `nil` runs it inline.
    ///   - flags: Dispatch flags for the work item; ignored (and logged) with `on: nil`.
    ///   - transform: Starts the thenable for one element.
    /// - Returns: A promise of the concatenated values, in element order.
    @_disfavoredOverload  // so that `on: .main` picks the main-actor form
    @inlinable
    public func thenFlatMap<U: Thenable>(
        on: DispatchQueue?, flags: DispatchWorkItemFlags? = nil,
        _ transform: @escaping @Sendable (T.Iterator.Element) throws -> U
    ) -> Promise<[U.T.Iterator.Element]> where U.T: Sequence, U.T.Iterator.Element: Sendable {
        then(on: on, flags: flags) { when(fulfilled: try $0.map(transform)) }
            .map(on: nil) { $0.flatMap { $0 } }
    }

    /// ``thenFlatMap(on:flags:_:)`` with its closure run where it is written: isolated to the
    /// actor of the code that writes it (the main actor runs it on the main queue), else on
    /// `conf.Q.map`.
    @inlinable
    public func thenFlatMap<U: Thenable>(
        flags: DispatchWorkItemFlags? = nil,
        @_inheritActorContext _ transform: @escaping @isolated(any) @Sendable (T.Iterator.Element) throws -> U
    ) -> Promise<[U.T.Iterator.Element]> where U.T: Sequence, U.T.Iterator.Element: Sendable {
        let (executor, transform) = Executor.placed(transform, otherwise: conf.Q.map, flags: flags)
        return Promise(
            box: _chain(
                executor,
                ThenOperation { [transform] in when(fulfilled: try $0.map(transform)) })
        )
        .map(on: nil) { $0.flatMap { $0 } }
    }

    /// Keeps the elements that `isIncluded` accepts.
    ///
    /// `isIncluded` runs on `on` (``PMKConfiguration/Q`` `.map` by default, or the closure's
    /// actor; inline when `nil`),
    /// once per element, in order. A rejection skips it and rejects the result with the same
    /// error.
    ///
    /// ```swift
    /// fetchUsers().filterValues { $0.isActive }.done { active in show(active) }
    /// ```
    ///
    /// - Parameters:
    ///   - on: The queue `isIncluded` runs on; `nil` runs it inline.
    ///   - flags: Dispatch flags for the work item; ignored (and logged) with `on: nil`.
    ///   - isIncluded: Whether to keep an element.
    /// - Returns: A promise of the kept elements, in order.
    @_disfavoredOverload  // so that `on: .main` picks the main-actor form
    @inlinable
    public func filterValues(
        on: DispatchQueue?, flags: DispatchWorkItemFlags? = nil,
        _ isIncluded: @escaping @Sendable (T.Iterator.Element) -> Bool
    ) -> Promise<[T.Iterator.Element]> where T.Iterator.Element: Sendable {
        map(on: on, flags: flags) { $0.filter(isIncluded) }
    }

    /// ``filterValues(on:flags:_:)`` with its closure run where it is written: isolated to the
    /// actor of the code that writes it (the main actor runs it on the main queue), else on
    /// `conf.Q.map`.
    @inlinable
    public func filterValues(
        flags: DispatchWorkItemFlags? = nil,
        @_inheritActorContext _ isIncluded: @escaping @isolated(any) @Sendable (T.Iterator.Element) -> Bool
    ) -> Promise<[T.Iterator.Element]> where T.Iterator.Element: Sendable {
        let (executor, isIncluded) = Executor.placed(isIncluded, otherwise: conf.Q.map, flags: flags)
        return Promise(
            box: _chain(executor, MapOperation { [isIncluded] in $0.filter(isIncluded) }))
    }
}

extension Thenable where T: Collection, T.Iterator.Element: Sendable {
    /// The first element of the collection value.
    ///
    /// Computed inline (on the thread that fulfils this thenable, or at once when it already
    /// is); nothing is dispatched. An empty collection rejects the result with
    /// ``PMKError/emptySequence``, and a rejection passes through.
    ///
    /// ```swift
    /// search(query).firstValue.done { best in show(best) }
    /// ```
    ///
    /// - Returns: A promise of the first element.
    @inlinable
    public var firstValue: Promise<T.Iterator.Element> {
        map(on: nil) { collection in
            guard let first = collection.first else { throw PMKError.emptySequence }
            return first
        }
    }

    /// The first element of the collection value that `test` accepts.
    ///
    /// `test` runs on `on` (``PMKConfiguration/Q`` `.map` by default, or the closure's actor;
    /// inline when `nil`), on the elements in order until it accepts one. When none is accepted (or
    /// the collection is empty) the result is rejected with ``PMKError/emptySequence``; a rejection
    /// passes through.
    ///
    /// ```swift
    /// fetchUsers().firstValue { $0.isAdmin }.done { admin in notify(admin) }
    /// ```
    ///
    /// - Parameters:
    ///   - on: The queue `test` runs on; `nil` runs it inline.
    ///   - flags: Dispatch flags for the work item; ignored (and logged) with `on: nil`.
    ///   - test: Whether an element is the one wanted.
    /// - Returns: A promise of the first accepted element.
    @_disfavoredOverload  // so that `on: .main` picks the main-actor form
    @inlinable
    public func firstValue(
        on: DispatchQueue?, flags: DispatchWorkItemFlags? = nil,
        where test: @escaping @Sendable (T.Iterator.Element) -> Bool
    ) -> Promise<T.Iterator.Element> {
        map(on: on, flags: flags) { collection in
            guard let found = collection.first(where: test) else { throw PMKError.emptySequence }
            return found
        }
    }

    /// ``firstValue(on:flags:where:)`` with its closure run where it is written: isolated to the
    /// actor of the code that writes it (the main actor runs it on the main queue), else on
    /// `conf.Q.map`.
    @inlinable
    public func firstValue(
        flags: DispatchWorkItemFlags? = nil,
        @_inheritActorContext where test: @escaping @isolated(any) @Sendable (T.Iterator.Element) -> Bool
    ) -> Promise<T.Iterator.Element> {
        let (executor, test) = Executor.placed(test, otherwise: conf.Q.map, flags: flags)
        return Promise(
            box: _chain(
                executor,
                MapOperation { [test] collection in
                    guard let found = collection.first(where: test) else { throw PMKError.emptySequence }
                    return found
                }))
    }

    /// The last element of the collection value.
    ///
    /// Computed inline (on the thread that fulfils this thenable, or at once when it already
    /// is); nothing is dispatched. An empty collection rejects the result with
    /// ``PMKError/emptySequence``, and a rejection passes through. Works for any collection: one
    /// that can only move forward is walked to its end.
    ///
    /// ```swift
    /// fetchMessages().lastValue.done { newest in show(newest) }
    /// ```
    ///
    /// - Returns: A promise of the last element.
    @inlinable
    public var lastValue: Promise<T.Iterator.Element> {
        map(on: nil) { collection in
            guard !collection.isEmpty else { throw PMKError.emptySequence }
            return collection[collection.index(collection.startIndex, offsetBy: collection.count - 1)]
        }
    }
}

extension Thenable where T: Sequence, T.Iterator.Element: Comparable & Sendable {
    /// Sorts the elements of the sequence value in increasing order.
    ///
    /// The sort runs on `on` (``PMKConfiguration/Q`` `.map` by default, or the closure's actor;
    /// inline when `nil`). A rejection passes through, without dispatching.
    ///
    /// ```swift
    /// fetchScores().sortedValues().done { scores in print(scores) }
    /// ```
    ///
    /// - Parameters:
    ///   - on: The queue the sort runs on; `nil` runs it inline.
    ///   - flags: Dispatch flags for the work item; ignored (and logged) with `on: nil`.
    /// - Returns: A promise of the sorted elements.
    @inlinable
    public func sortedValues(
        on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil
    ) -> Promise<[T.Iterator.Element]> {
        map(on: on, flags: flags) { $0.sorted() }
    }
}
