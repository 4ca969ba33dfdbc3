/// An error that knows whether it stands for a cancellation.
///
/// Conform your own error types to let ``CatchPolicy/allErrorsExceptCancellation`` and
/// `Error.isCancelled` recognise them.
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

extension Error {
    /// Whether this error stands for a cancellation.
    ///
    /// `true` for ``PMKError/cancelled``, for Swift concurrency's `CancellationError`, and for any
    /// ``CancellableError`` whose `isCancelled` is `true`.
    public var isCancelled: Bool {
        switch self {
        case let error as CancellableError: return error.isCancelled
        case is CancellationError: return true
        default: return false
        }
    }
}
