import Foundation

/// A small state and the lock that guards it, reachable only through ``withLock(_:)``.
///
/// The body runs under the lock, so it must only compute: it returns what must happen next, and
/// the caller does that after the lock is released.
final class LockedState<State>: @unchecked Sendable {
    // Safety: `state` is read and written only inside `withLock`, under `lock`.
    private var state: State
    private let lock = NSLock()

    init(_ state: State) {
        self.state = state
    }

    func withLock<Result>(_ body: (inout State) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&state)
    }
}
