import Foundation
import Pledge

/// A thenable written outside Pledge, as a client library might write one: only `pipe(to:)` and
/// `result`, so Pledge reaches it through its default implementations. It cannot be cancelled.
final class ForeignThenable: Thenable, @unchecked Sendable {
    typealias T = Int

    // Safety: `state` is only read or written while `lock` is held; handlers run after unlocking.
    private var state: State = .waiting([])
    private let lock = NSLock()

    private enum State {
        case waiting([@Sendable (Result<Int, Error>) -> Void])
        case done(Result<Int, Error>)
    }

    func pipe(to body: @escaping @Sendable (Result<Int, Error>) -> Void) {
        let ready: Result<Int, Error>? = lock.withLock {
            switch state {
            case .waiting(let handlers):
                state = .waiting(handlers + [body])
                return nil
            case .done(let result):
                return result
            }
        }
        if let ready { body(ready) }
    }

    var result: Result<Int, Error>? {
        lock.withLock {
            if case .done(let result) = state { return result }
            return nil
        }
    }

    /// Settles the thenable and calls the handlers; a second call does nothing.
    func resolve(_ result: Result<Int, Error>) {
        let handlers: [@Sendable (Result<Int, Error>) -> Void] = lock.withLock {
            guard case .waiting(let handlers) = state else { return [] }
            state = .done(result)
            return handlers
        }
        for handler in handlers { handler(result) }
    }
}
