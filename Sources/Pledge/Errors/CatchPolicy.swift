/// Which errors a `catch` or `recover` handler is given.
///
/// The default for every call that takes a policy is ``PMKConfiguration/catchPolicy``.
public enum CatchPolicy: Sendable {
    /// Every error, cancellations included.
    case allErrors

    /// Every error except those whose `Error.isCancelled` is `true`; a cancellation
    /// passes by the handler and stays in the chain.
    case allErrorsExceptCancellation
}

extension CatchPolicy {
    /// Whether a handler under this policy should be given `error`.
    @inlinable
    func handles(_ error: Error) -> Bool {
        switch self {
        case .allErrors: return true
        case .allErrorsExceptCancellation: return !error.isCancelled
        }
    }

    /// Whether a handler under this policy should be given `result`: a rejection it handles.
    @inlinable
    func accepts<T>(_ result: Result<T, Error>) -> Bool {
        guard case .failure(let error) = result else { return false }
        return handles(error)
    }
}
