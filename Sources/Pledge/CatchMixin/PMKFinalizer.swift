import Dispatch

/// What `catch` returns: the end of a chain, to which only `finally` can be attached.
public final class PMKFinalizer: Sendable {
    @usableFromInline
    let box: Box<Result<Void, Error>>

    @inlinable
    init(_ box: Box<Result<Void, Error>>) {
        self.box = box
    }

    /// Runs `body` once the chain has ended, whether the `catch` before it ran or not.
    ///
    /// `body` runs on `on` (``PMKConfiguration/Q`` `.return` by default; inline when `nil`).
    ///
    /// ```swift
    /// spinner.start()
    /// fetch().done { show($0) }.catch { showAlert($0) }.finally { spinner.stop() }
    /// ```
    @inlinable
    public func finally(
        on: DispatchQueue? = conf.Q.return, flags: DispatchWorkItemFlags? = nil,
        _ body: @escaping @Sendable () -> Void
    ) {
        _ = Promise(box: box).ensure(on: on, flags: flags, body)
    }
}
