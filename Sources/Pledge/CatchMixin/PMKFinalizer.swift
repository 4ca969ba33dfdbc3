import Dispatch

/// What `catch` returns: the end of a chain, to which only `finally` can be attached.
public final class PMKFinalizer: Sendable {
    @usableFromInline
    let box: Box<Result<Void, Error>>

    @inlinable
    init(_ box: Box<Result<Void, Error>>) {
        self.box = box
    }

    /// Runs `body` once the chain has ended, whether the `catch` before it ran or not, and
    /// whether the chain was fulfilled, rejected or cancelled (``cancel()`` included).
    ///
    /// `body` runs on `on` (``PMKConfiguration/Q`` `.return` by default, or the closure's actor;
    /// inline when `nil`).
    ///
    /// ```swift
    /// spinner.start()
    /// fetch().done { show($0) }.catch { showAlert($0) }.finally { spinner.stop() }
    /// ```
    @_disfavoredOverload  // so that `on: .main` picks the main-actor form
    @inlinable
    public func finally(
        on: DispatchQueue?, flags: DispatchWorkItemFlags? = nil,
        _ body: @escaping @Sendable () -> Void
    ) {
        _ = Promise(box: box).ensure(on: on, flags: flags, body)
    }

    /// ``finally(on:flags:_:)`` with its closure run where it is written: isolated to the actor
    /// of the code that writes it (the main actor runs it on the main queue), else on
    /// `conf.Q.return`.
    @inlinable
    public func finally(
        flags: DispatchWorkItemFlags? = nil,
        @_inheritActorContext _ body: @escaping @isolated(any) @Sendable () -> Void
    ) {
        _ = Promise(box: box).ensure(body)
    }

    /// ``finally(flags:_:)`` on the main queue, with its closure isolated to the main actor.
    @inlinable
    public func finally(
        on _: PMKMainQueue, _ body: @escaping @MainActor @Sendable () -> Void
    ) {
        finally(body)
    }
}
