extension Result {
    /// Whether this result is a success, as PromiseKit's `Result.isFulfilled` said.
    ///
    /// Pledge hands out `Swift.Result` wherever PromiseKit had its own `Result<T>` (in
    /// ``Thenable/result``, ``Thenable/tap(on:flags:_:)`` and `when(resolved:)`), so code that asked
    /// PromiseKit's result whether it was fulfilled keeps compiling:
    ///
    /// ```swift
    /// when(resolved: downloads).done { results in
    ///     print("\(results.filter(\.isFulfilled).count) of \(results.count) succeeded")
    /// }
    /// ```
    @inlinable
    public var isFulfilled: Bool {
        if case .success = self { return true }
        return false
    }

    /// Whether this result is a failure: the opposite of ``isFulfilled``.
    @inlinable
    public var isRejected: Bool {
        !isFulfilled
    }
}
