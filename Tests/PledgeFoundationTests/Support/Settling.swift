import Dispatch
import Foundation
import Pledge

/// How long a test waits for something that should happen promptly: generous, so that a loaded
/// machine does not fail a test, and still finite, so that a broken one does not hang the run.
let testTimeout: DispatchTimeInterval = .seconds(60)

extension Thenable {
    /// The result once the thenable settles, waiting up to ``testTimeout``; `nil` if it is still
    /// pending then.
    func settled() -> Result<T, Error>? {
        let done = DispatchSemaphore(value: 0)
        pipe { _ in done.signal() }
        guard done.wait(timeout: .now() + testTimeout) == .success else { return nil }
        return result
    }
}

extension Result {
    var successValue: Success? {
        if case .success(let value) = self { return value }
        return nil
    }

    var failureError: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// Waits until `condition` holds, checking every 10 ms, up to ``testTimeout``: for conditions
/// no callback reports, such as a file another process creates.
func waitUntil(_ condition: () -> Bool) -> Bool {
    let deadline = DispatchTime.now() + testTimeout
    while !condition() {
        if DispatchTime.now() > deadline { return false }
        usleep(10_000)
    }
    return true
}

/// A fresh, empty temporary directory, removed by the caller.
func makeTemporaryDirectory() throws -> URL {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("PledgeFoundationTests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
}
