extension Guarantee {
    /// Waits for the guarantee's value without blocking a thread.
    ///
    /// The awaiting task is suspended until the guarantee resolves and is resumed directly from
    /// the thread that resolves it; no queue is involved.
    ///
    /// Cancelling the awaiting task does **not** end this wait: the method cannot throw, and it
    /// has no value to return before the guarantee has one. Code that must stop waiting when
    /// cancelled awaits a promise instead, `try await Promise(guarantee).async()`, which throws
    /// `CancellationError` at once.
    ///
    /// ```swift
    /// let image = await cachedImage(named: "logo").async()
    /// ```
    ///
    /// - Returns: The guarantee's value.
    @inlinable
    public func async() async -> T {
        if case .success(let value)? = result { return value }
        return await withCheckedContinuation { continuation in
            pipe { result in
                // A guarantee's box is only ever sealed with a success (see `Guarantee`).
                if case .success(let value) = result { continuation.resume(returning: value) }
            }
        }
    }

    /// Starts `body` in a new `Task` and returns a guarantee of its value.
    ///
    /// The task is unstructured: it inherits the priority and task-local values of the calling
    /// context but not its actor, so `body` runs on the global concurrent executor unless it is
    /// isolated itself. The guarantee resolves with what `body` returns, on the thread that ran
    /// the end of `body`. Nothing cancels the task.
    ///
    /// ```swift
    /// let greeting = Guarantee { await greeter.greeting() }
    /// ```
    ///
    /// - Parameters:
    ///   - body: The asynchronous work.
    ///   - file: Where the guarantee was made, for ``pendingPromises()`` in debug builds (see
    ///     ``CreationSite``); leave it out.
    ///   - line: The line that goes with `file`; leave it out.
    public convenience init(
        task body: @escaping @Sendable () async -> T, file: StaticString = #fileID, line: UInt = #line
    ) {
        let box = EmptyBox<Result<T, Error>>(site: (file, line))
        self.init(box: box)
        Task {
            box.resolve(.success(await body()))
        }
    }
}
