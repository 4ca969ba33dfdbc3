import Dispatch

/// Error handling for thenables that can fail: `catch`, `recover`, `ensure`, `cauterize`.
///
/// ``Promise`` conforms; ``Guarantee`` does not, because it cannot fail.
public protocol CatchMixin: Thenable {}

extension CatchMixin {
    /// Handles the error that ends a chain.
    ///
    /// `body` runs on `on` (``PMKConfiguration/Q`` `.return` by default, or the closure's actor;
    /// inline when `nil`) if this promise is rejected with an error `policy` accepts. With the
    /// default policy, ``CatchPolicy/allErrorsExceptCancellation``, cancellations are dropped
    /// silently.
    ///
    /// ```swift
    /// fetchUser(id).done { show($0) }.catch { error in
    ///     showAlert(error)
    /// }.finally {
    ///     spinner.stop()
    /// }
    /// ```
    ///
    /// - Returns: A finalizer, to run code with ``PMKFinalizer/finally(on:flags:_:)`` once the
    ///   chain has ended either way.
    @_disfavoredOverload  // so that `on: .main` picks the main-actor form
    @inlinable
    @discardableResult
    public func `catch`(
        on: DispatchQueue?, flags: DispatchWorkItemFlags? = nil,
        policy: CatchPolicy = conf.catchPolicy, _ body: @escaping @Sendable (Error) -> Void
    ) -> PMKFinalizer {
        PMKFinalizer(_chain(Executor(on, flags: flags, isolation: nil), CatchOperation(policy: policy, body)))
    }

    /// ``catch(on:flags:policy:_:)`` with its closure run where it is written: isolated to the
    /// actor of the code that writes it (the main actor runs it on the main queue), else on
    /// `conf.Q.return`.
    @inlinable
    @discardableResult
    public func `catch`(
        flags: DispatchWorkItemFlags? = nil,
        policy: CatchPolicy = conf.catchPolicy,
        @_inheritActorContext _ body: @escaping @isolated(any) @Sendable (Error) -> Void
    ) -> PMKFinalizer {
        let (executor, body) = Executor.placed(body, otherwise: conf.Q.return, flags: flags)
        return PMKFinalizer(
            _chain(
                executor,
                CatchOperation(policy: policy, body)))
    }

    /// Drops any error on purpose, reporting it as ``LogEvent/cauterized(_:)`` through
    /// ``PMKConfiguration/logHandler``.
    ///
    /// Use it to end a chain whose errors you have decided not to handle. Cancellations are
    /// treated as ``PMKConfiguration/catchPolicy`` says. The event is logged inline, on the
    /// thread that rejects the promise, rather than on a queue: logging needs no queue, and the
    /// log handler may be called on any thread anyway.
    ///
    /// - Returns: A finalizer, for ``PMKFinalizer/finally(on:flags:_:)``.
    @inlinable
    @discardableResult
    public func cauterize() -> PMKFinalizer {
        self.catch(on: nil) { conf.log(.cauterized($0)) }
    }
}

/// `catch`: `body` gets the errors `policy` accepts; the result is `Void` either way.
@usableFromInline
struct CatchOperation<Input: Sendable>: ValueOperation {
    @usableFromInline typealias Output = Void

    @usableFromInline
    let policy: CatchPolicy
    @usableFromInline
    var body: (@Sendable (Error) -> Void)?

    @inlinable
    init(policy: CatchPolicy, _ body: @escaping @Sendable (Error) -> Void) {
        self.policy = policy
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
    func acts(on result: Result<Input, Error>) -> Bool { policy.accepts(result) }

    @inlinable
    mutating func output(for result: Result<Input, Error>) -> Result<Void, Error> {
        if case .failure(let error) = result, policy.accepts(result) { body.take()?(error) }
        return .success(())
    }
}
