/// An error that knows whether it stands for a cancellation.
///
/// Conform your own error types to let ``CatchPolicy/allErrorsExceptCancellation`` and
/// `Error.isCancelled` recognise them, and implement ``isCancelled``: a type that leaves it out
/// gets a default of `false`, so its errors count as failures and still reach `catch`.
///
/// ```swift
/// enum DownloadError: CancellableError {
///     case userCancelled, network
///     var isCancelled: Bool { self == .userCancelled }
/// }
/// ```
public protocol CancellableError: Error {
    /// Whether this error means the operation was cancelled rather than failed.
    var isCancelled: Bool { get }
}

extension CancellableError {
    /// The default for a conforming type that does not implement `isCancelled`: `false`, so its
    /// errors are treated as failures and `catch` still receives them.
    ///
    /// Without this default, the `isCancelled` that every `Error` has would stand in for the
    /// missing implementation, and it asks the error's own `isCancelled`: itself, forever, until
    /// the stack overflowed. (PromiseKit has that defect.)
    ///
    /// As with any protocol default, a class that conforms without implementing `isCancelled`
    /// gets this one for good: a subclass that adds its own is not asked. Implement it in the
    /// class that declares the conformance.
    public var isCancelled: Bool { false }
}

extension Error {
    /// Whether this error stands for a cancellation.
    ///
    /// `true` for ``PMKError/cancelled``, for Swift concurrency's `CancellationError`, and for any
    /// ``CancellableError`` whose `isCancelled` is `true`. Pledge does not import Foundation, so
    /// Foundation's `URLError.cancelled` and `CocoaError.userCancelled` count as cancellations,
    /// as in PromiseKit, once `PledgeFoundation` is imported (it declares both types
    /// ``CancellableError``); without it, declare such types ``CancellableError`` yourself.
    public var isCancelled: Bool {
        switch self {
        case let error as CancellableError: return error.isCancelled
        case is CancellationError: return true
        default: return false
        }
    }
}
