import Dispatch

extension Thenable {
    /// Transforms the value: the result is fulfilled with what `transform` returns.
    ///
    /// `transform` runs on `on` (``PMKConfiguration/Q`` `.map` by default, or the closure's actor;
    /// inline when `nil`) once this thenable is fulfilled. A rejection skips it and rejects the
    /// result with the same error, without dispatching; a throw rejects the result with the thrown
    /// error.
    ///
    /// ```swift
    /// fetchUser(id).map { $0.name }.done { print($0) }
    /// ```
    ///
    /// - Parameters:
    ///   - on: The queue `transform` runs on; `nil` runs it inline: on the thread that resolves
    ///     this thenable, or at once when it is already resolved.
    ///   - flags: Dispatch flags for the work item; ignored (and logged) with `on: nil`.
    ///   - transform: Gets the value and returns the new one.
    /// - Returns: A promise of the transformed value.
    @_disfavoredOverload  // so that a guarantee's own form wins wherever it fits (see Guarantee+Map)
    @inlinable
    public func map<U: Sendable>(
        on: DispatchQueue?, flags: DispatchWorkItemFlags? = nil,
        _ transform: @escaping @Sendable (T) throws -> U
    ) -> Promise<U> {
        Promise(box: _chain(Executor(on, flags: flags, isolation: nil), MapOperation(transform)))
    }

    /// ``map(on:flags:_:)`` with its closure run where it is written: isolated to the
    /// actor of the code that writes it (the main actor runs it on the main queue), else on
    /// `conf.Q.map`.
    @_disfavoredOverload  // so that a guarantee's own form wins wherever it fits (see Guarantee+Map)
    @inlinable
    public func map<U: Sendable>(
        flags: DispatchWorkItemFlags? = nil,
        @_inheritActorContext _ transform: @escaping @isolated(any) @Sendable (T) throws -> U
    ) -> Promise<U> {
        let (executor, transform) = Executor.placed(transform, otherwise: conf.Q.map, flags: flags)
        return Promise(
            box: _chain(
                executor, MapOperation(transform)
            ))
    }

    /// Transforms the value, rejecting when the transform returns `nil`.
    ///
    /// Like ``map(on:flags:_:)``, except that a `nil` from `transform` rejects the result with
    /// ``PMKError/compactMap(_:_:)``, which describes the value that could not be mapped.
    ///
    /// ```swift
    /// fetchText().compactMap { Int($0) }.done { number in … }
    /// ```
    ///
    /// - Returns: A promise of the unwrapped transformed value.
    @_disfavoredOverload  // so that `on: .main` picks the main-actor form
    @inlinable
    public func compactMap<U: Sendable>(
        on: DispatchQueue?, flags: DispatchWorkItemFlags? = nil,
        _ transform: @escaping @Sendable (T) throws -> U?
    ) -> Promise<U> {
        Promise(box: _chain(Executor(on, flags: flags, isolation: nil), CompactMapOperation(transform)))
    }

    /// ``compactMap(on:flags:_:)`` with its closure run where it is written: isolated to the
    /// actor of the code that writes it (the main actor runs it on the main queue), else on
    /// `conf.Q.map`.
    @inlinable
    public func compactMap<U: Sendable>(
        flags: DispatchWorkItemFlags? = nil,
        @_inheritActorContext _ transform: @escaping @isolated(any) @Sendable (T) throws -> U?
    ) -> Promise<U> {
        let (executor, transform) = Executor.placed(transform, otherwise: conf.Q.map, flags: flags)
        return Promise(
            box: _chain(
                executor,
                CompactMapOperation(transform)))
    }

    /// Discards the value: the result is fulfilled with `Void` when this thenable is fulfilled
    /// and rejected with its error otherwise. Runs inline; nothing is dispatched.
    @inlinable
    public func asVoid() -> Promise<Void> {
        map(on: nil) { _ in }
    }
}

/// `map`, `done`, `asVoid`, and a guarantee's `map` and `done`: the value becomes `transform`'s.
@usableFromInline
struct MapOperation<Input: Sendable, Output: Sendable>: ValueOperation {
    @usableFromInline
    var transform: (@Sendable (Input) throws -> Output)?

    @inlinable
    init(_ transform: @escaping @Sendable (Input) throws -> Output) {
        self.transform = transform
    }

    @inlinable
    mutating func carry(_ context: HandlerContext) { if let transform { self.transform = context.wrap(transform) } }

    @inlinable
    mutating func take() -> Self {
        let taken = self
        transform = nil
        return taken
    }

    @inlinable
    mutating func output(for result: Result<Input, Error>) -> Result<Output, Error> {
        switch result {
        case .success(let value):
            guard let transform = transform.take() else { return .failure(PMKError.cancelled) }
            do {
                return .success(try transform(value))
            } catch {
                return .failure(error)
            }
        case .failure(let error):
            return .failure(error)
        }
    }
}

/// `compactMap`: like ``MapOperation``, but `nil` rejects with ``PMKError/compactMap(_:_:)``.
@usableFromInline
struct CompactMapOperation<Input: Sendable, Output: Sendable>: ValueOperation {
    @usableFromInline
    var transform: (@Sendable (Input) throws -> Output?)?

    @inlinable
    init(_ transform: @escaping @Sendable (Input) throws -> Output?) {
        self.transform = transform
    }

    @inlinable
    mutating func carry(_ context: HandlerContext) { if let transform { self.transform = context.wrap(transform) } }

    @inlinable
    mutating func take() -> Self {
        let taken = self
        transform = nil
        return taken
    }

    @inlinable
    mutating func output(for result: Result<Input, Error>) -> Result<Output, Error> {
        switch result {
        case .success(let value):
            guard let transform = transform.take() else { return .failure(PMKError.cancelled) }
            do {
                guard let mapped = try transform(value) else {
                    return .failure(PMKError.compactMapFailure(value, to: Output.self))
                }
                return .success(mapped)
            } catch {
                return .failure(error)
            }
        case .failure(let error):
            return .failure(error)
        }
    }
}
