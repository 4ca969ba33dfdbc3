import Dispatch

extension Thenable {
    /// Checks the value: passes it on when `isValid` returns `true`, and rejects the result with
    /// ``PMKError/validationFailed(_:_:)`` when it returns `false`.
    ///
    /// `isValid` runs on `on` (``PMKConfiguration/Q`` `.map` by default, or the closure's actor;
    /// inline when `nil`) once this thenable is fulfilled. A rejection skips it and rejects the
    /// result with the same error, without dispatching; a throw rejects the result with the thrown
    /// error. The ``PMKError/validationFailed(_:_:)`` error carries `String(describing:)` of the
    /// value and `String(reflecting:)` of its type.
    ///
    /// ```swift
    /// fetchStatusCode().validate { (200..<300).contains($0) }.done { _ in … }
    /// ```
    ///
    /// - Parameters:
    ///   - on: The queue `isValid` runs on; `nil` runs it inline.
    ///   - flags: Dispatch flags for the work item; ignored (and logged) with `on: nil`.
    ///   - isValid: Gets the value and says whether it may pass.
    /// - Returns: A promise of the same value, once it has passed the check.
    @_disfavoredOverload  // so that `on: .main` picks the main-actor form
    @inlinable
    public func validate(
        on: DispatchQueue?, flags: DispatchWorkItemFlags? = nil,
        _ isValid: @escaping @Sendable (T) throws -> Bool
    ) -> Promise<T> {
        map(on: on, flags: flags) { value in
            guard try isValid(value) else {
                throw PMKError.validationFailed(String(describing: value), String(reflecting: T.self))
            }
            return value
        }
    }

    /// ``validate(on:flags:_:)`` with its closure run where it is written: isolated to the
    /// actor of the code that writes it (the main actor runs it on the main queue), else on
    /// `conf.Q.map`.
    @inlinable
    public func validate(
        flags: DispatchWorkItemFlags? = nil,
        @_inheritActorContext _ isValid: @escaping @isolated(any) @Sendable (T) throws -> Bool
    ) -> Promise<T> {
        let (executor, isValid) = Executor.placed(isValid, otherwise: conf.Q.map, flags: flags)
        return Promise(
            box: _chain(
                executor,
                MapOperation { [isValid] value in
                    guard try isValid(value) else {
                        throw PMKError.validationFailed(String(describing: value), String(reflecting: T.self))
                    }
                    return value
                }))
    }
}
