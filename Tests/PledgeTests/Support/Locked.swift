import Foundation

/// A value shared across threads, read and written under a lock.
final class Locked<Value: Sendable>: @unchecked Sendable {
    // Safety: `storage` is only touched while `lock` is held.
    private var storage: Value
    private let lock = NSLock()

    init(_ value: Value) {
        storage = value
    }

    var value: Value {
        get { lock.withLock { storage } }
        set { lock.withLock { storage = newValue } }
    }

    /// Runs `body` with exclusive access to the value.
    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.withLock { body(&storage) }
    }
}
