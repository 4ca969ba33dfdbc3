import Foundation
import Pledge

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLError: CancellableError {
    /// `true` for `URLError.cancelled`, the error a `URLSessionTask` reports when it is cancelled,
    /// so that `Error.isCancelled` and `CatchPolicy.allErrorsExceptCancellation` treat it as a
    /// cancellation, as PromiseKit does.
    ///
    /// ```swift
    /// URLError(.cancelled).isCancelled   // true
    /// URLError(.timedOut).isCancelled    // false
    /// ```
    public var isCancelled: Bool {
        code == .cancelled
    }
}

extension CocoaError: CancellableError {
    /// `true` for `CocoaError.userCancelled`, so that `Error.isCancelled` and
    /// `CatchPolicy.allErrorsExceptCancellation` treat it as a cancellation, as PromiseKit does.
    ///
    /// ```swift
    /// CocoaError(.userCancelled).isCancelled   // true
    /// CocoaError(.fileNoSuchFile).isCancelled  // false
    /// ```
    public var isCancelled: Bool {
        code == .userCancelled
    }
}

extension PMKError: LocalizedError {
    /// The error's `description`, so that `localizedDescription` reads as a
    /// sentence rather than Foundation's generic "The operation could not be completed."
    ///
    /// ```swift
    /// PMKError.timedOut.localizedDescription
    /// // "The thenable passed to timeout() did not settle in time"
    /// ```
    public var errorDescription: String? {
        description
    }
}
