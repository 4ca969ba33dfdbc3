import Dispatch
import Pledge

extension Thenable {
    /// The result once this thenable resolves, waiting up to the test timeout.
    ///
    /// Unlike `wait()`, it cannot hang the test run when a bug leaves the thenable pending: it
    /// returns `nil` instead.
    func settledResult() -> Result<T, Error>? {
        let settled = DispatchSemaphore(value: 0)
        pipe { _ in settled.signal() }
        guard settled.wait(timeout: .testTimeout) == .success else { return nil }
        return result
    }

    /// The value once this thenable is fulfilled; `nil` if it is rejected or still pending at
    /// the test timeout.
    func settledValue() -> T? {
        guard case .success(let value)? = settledResult() else { return nil }
        return value
    }

    /// The error once this thenable is rejected; `nil` if it is fulfilled or still pending at
    /// the test timeout.
    func settledError() -> Error? {
        guard case .failure(let error)? = settledResult() else { return nil }
        return error
    }
}
