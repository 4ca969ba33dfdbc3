import Dispatch

extension Thenable {
    /// Continues the chain with the thenable `body` returns: the result resolves as that one does.
    ///
    /// `body` runs on `on` (``PMKConfiguration/Q`` `.map` by default, or the closure's actor;
    /// inline when `nil`) once this thenable is fulfilled. A rejection skips `body` and rejects the
    /// result with the same error, without dispatching. If `body` throws, the result is rejected
    /// with that error; if it returns the very promise this call returns, the result is rejected
    /// with ``PMKError/returnedSelf``.
    ///
    /// ```swift
    /// login(user).then { token in
    ///     fetchProfile(token)
    /// }.done { profile in
    ///     show(profile)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - on: The queue `body` runs on; `nil` runs it inline: on the thread that resolves this
    ///     thenable, or at once when it is already resolved.
    ///   - flags: Dispatch flags for the work item; ignored (and logged) with `on: nil`.
    ///   - body: Gets the value and returns the thenable to continue with.
    /// - Returns: A promise that resolves as the thenable from `body` does.
    @_disfavoredOverload  // so that a guarantee's own form wins wherever it fits (see Guarantee+Map)
    @inlinable
    public func then<U: Thenable>(
        on: DispatchQueue?, flags: DispatchWorkItemFlags? = nil,
        _ body: @escaping @Sendable (T) throws -> U
    ) -> Promise<U.T> {
        Promise(box: _chain(Executor(on, flags: flags, isolation: nil), ThenOperation(body)))
    }

    /// ``then(on:flags:_:)`` with its closure run where it is written: isolated to the
    /// actor of the code that writes it (the main actor runs it on the main queue), else on
    /// `conf.Q.map`.
    @_disfavoredOverload  // so that a guarantee's own form wins wherever it fits (see Guarantee+Map)
    @inlinable
    public func then<U: Thenable>(
        flags: DispatchWorkItemFlags? = nil,
        @_inheritActorContext _ body: @escaping @isolated(any) @Sendable (T) throws -> U
    ) -> Promise<U.T> {
        let (executor, body) = Executor.placed(body, otherwise: conf.Q.map, flags: flags)
        return Promise(
            box: _chain(executor, ThenOperation(body))
        )
    }
}

/// `then`, and a guarantee's `then`: the result follows the thenable `body` returns.
@usableFromInline
struct ThenOperation<Input: Sendable, Next: Thenable>: ChainOperation {
    @usableFromInline typealias Output = Next.T

    @usableFromInline
    var body: (@Sendable (Input) throws -> Next)?

    @inlinable
    init(_ body: @escaping @Sendable (Input) throws -> Next) {
        self.body = body
    }

    @inlinable
    mutating func carry(_ context: HandlerContext) { if let body { self.body = context.wrap(body) } }

    @inlinable
    mutating func take() -> Self {
        let taken = self
        body = nil
        return taken
    }

    @inlinable
    mutating func run(_ result: Result<Input, Error>, into box: ChainedBox<Self>) -> Work? {
        guard let body = body.take() else { return box.seal(.failure(PMKError.cancelled)) }
        let next: Next
        do {
            next = try body(result.get())
        } catch {
            return box.seal(.failure(error))
        }
        return box.follow(next)
    }
}
