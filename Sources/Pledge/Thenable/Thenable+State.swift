extension Thenable {
    /// The value, or `nil` while pending or when rejected.
    @inlinable
    public var value: T? {
        if case .success(let value)? = result { return value }
        return nil
    }

    /// The error, or `nil` while pending or when fulfilled.
    @inlinable
    public var error: Error? {
        if case .failure(let error)? = result { return error }
        return nil
    }

    /// Whether this thenable is still waiting for its result.
    @inlinable
    public var isPending: Bool { result == nil }

    /// Whether this thenable has its result, a value or an error.
    @inlinable
    public var isResolved: Bool { !isPending }

    /// Whether this thenable is fulfilled with a value.
    @inlinable
    public var isFulfilled: Bool {
        if case .success? = result { return true }
        return false
    }

    /// Whether this thenable is rejected with an error.
    @inlinable
    public var isRejected: Bool {
        if case .failure? = result { return true }
        return false
    }
}

extension Box {
    /// How many handlers wait on this box while it is pending; 0 for a box born settled.
    var waitingHandlers: Int {
        (self as? EmptyBox<R>)?.storedHandlers ?? 0
    }
}
