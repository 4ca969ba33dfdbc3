import Foundation
import Pledge

/// A thenable written outside Pledge, the way a client library might: it implements only
/// `pipe(to:)` and `result`, so Pledge's operators reach it through the default `_pipe`.
final class ForeignThenable<T: Sendable>: Thenable, @unchecked Sendable {
    // Safety: `stored` and `waiting` are only touched while `lock` is held; handlers run after
    // it is released.
    private var stored: Result<T, Error>?
    private var waiting: [@Sendable (Result<T, Error>) -> Void] = []
    private let lock = NSLock()
    /// How many times each handler is called: 1, unless the thenable is made to misbehave.
    private let calls: Int

    /// - Parameter calls: How many times to call each handler with the result; above 1, the
    ///   thenable breaks `pipe`'s contract, as a buggy client type might.
    init(callingEachHandler calls: Int = 1) {
        self.calls = calls
    }

    func pipe(to body: @escaping @Sendable (Result<T, Error>) -> Void) {
        lock.lock()
        if let stored {
            lock.unlock()
            for _ in 0..<calls { body(stored) }
        } else {
            waiting.append(body)
            lock.unlock()
        }
    }

    var result: Result<T, Error>? {
        lock.withLock { stored }
    }

    /// How many handlers are waiting for the result.
    var waitingCount: Int {
        lock.withLock { waiting.count }
    }

    /// Resolves with `result` and runs the handlers; later calls are ignored.
    func resolve(_ result: Result<T, Error>) {
        lock.lock()
        guard stored == nil else {
            lock.unlock()
            return
        }
        stored = result
        let due = waiting
        waiting = []
        lock.unlock()
        for handler in due {
            for _ in 0..<calls { handler(result) }
        }
    }
}
