import Synchronization

/// A fixed-size array of atomic counters, for checking from many threads that each of many
/// handlers ran exactly once.
///
/// `Atomic` is not copyable, so it cannot live in an `Array`; the counters live in one heap
/// buffer that never moves.
final class RendezvousCounters: @unchecked Sendable {
    // Safety: `slots` is allocated and initialised in `init`, deinitialised and freed in
    // `deinit`, and in between only reached through `Atomic`'s own operations, which are safe
    // from any thread. The buffer never moves, as `Atomic` requires.
    private let slots: UnsafeMutablePointer<Atomic<Int>>

    /// The number of counters.
    let count: Int

    /// Makes `count` counters, all zero.
    init(count: Int) {
        precondition(count >= 0, "negative counter count")
        self.count = count
        slots = .allocate(capacity: max(count, 1))
        for index in 0..<count {
            (slots + index).initialize(to: Atomic(0))
        }
    }

    deinit {
        slots.deinitialize(count: count)
        slots.deallocate()
    }

    /// Adds `amount` to counter `index` and returns the new value.
    @discardableResult
    func add(_ amount: Int, at index: Int) -> Int {
        precondition(index >= 0 && index < count, "counter index out of range")
        return slots[index].wrappingAdd(amount, ordering: .acquiringAndReleasing).newValue
    }

    /// Replaces counter `index` with `desired` if it holds `expected`.
    ///
    /// - Returns: Whether it did, and the value it found.
    func compareExchange(at index: Int, expected: Int, desired: Int) -> (exchanged: Bool, original: Int) {
        precondition(index >= 0 && index < count, "counter index out of range")
        return slots[index].compareExchange(
            expected: expected, desired: desired, ordering: .acquiringAndReleasing)
    }

    /// The current value of counter `index`.
    subscript(index: Int) -> Int {
        precondition(index >= 0 && index < count, "counter index out of range")
        return slots[index].load(ordering: .acquiring)
    }

    /// The indices whose counter is not `expected`, at most `limit` of them, for failure messages.
    func indices(notEqualTo expected: Int, limit: Int = 10) -> [Int] {
        var found: [Int] = []
        for index in 0..<count where self[index] != expected {
            found.append(index)
            if found.count == limit { break }
        }
        return found
    }
}

/// One atomic counter, for totals and failure tallies shared between threads.
final class RendezvousTally: Sendable {
    private let value = Atomic<Int>(0)

    init() {}

    /// Adds `amount` (one by default).
    func add(_ amount: Int = 1) {
        value.wrappingAdd(amount, ordering: .acquiringAndReleasing)
    }

    /// The current total.
    var total: Int {
        value.load(ordering: .acquiring)
    }
}
