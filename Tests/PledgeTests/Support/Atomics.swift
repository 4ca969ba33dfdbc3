import Synchronization

/// A counter shared across threads.
final class AtomicCounter: Sendable {
    private let storage = Atomic<Int>(0)

    init() {}

    /// Adds one and returns the new count.
    @discardableResult
    func increment() -> Int {
        storage.add(1, ordering: .sequentiallyConsistent).newValue
    }

    /// Subtracts one and returns the new count.
    @discardableResult
    func decrement() -> Int {
        storage.subtract(1, ordering: .sequentiallyConsistent).newValue
    }

    var value: Int {
        storage.load(ordering: .sequentiallyConsistent)
    }
}

/// A flag that is set once, from any thread.
final class AtomicFlag: Sendable {
    private let storage = Atomic<Bool>(false)

    init() {}

    func set() {
        storage.store(true, ordering: .sequentiallyConsistent)
    }

    var isSet: Bool {
        storage.load(ordering: .sequentiallyConsistent)
    }
}
