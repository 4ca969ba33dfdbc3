import Foundation

/// A value behind a lock, for test bookkeeping across threads.
final class Locked<Value>: @unchecked Sendable {
    // Safety: `stored` is read and written only while `lock` is held.
    private var stored: Value
    private let lock = NSLock()

    init(_ value: Value) {
        stored = value
    }

    var value: Value {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }

    @discardableResult
    func mutate<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&stored)
    }
}
