import Dispatch
import Foundation
import Pledge
import Synchronization

// Helpers for the combinator, sequence, async-bridge and common-pattern tests. Every name starts
// with `Combo` (or is an extension member with that prefix) so that it cannot collide with the
// helpers of other test folders.

/// Errors the combinator tests reject with.
enum ComboError: Error, Equatable, Sendable {
    case boom
    case numbered(Int)
}

/// How long a test waits for something that should happen at once: generous for a loaded
/// two-core machine, finite so that a bug fails the test instead of hanging the run.
let comboTimeout: Double = 10

/// The static type of an expression, as a string. The generic parameter is inferred from the
/// argument alone, so this reports which overload the compiler picked without influencing it.
func comboStaticType<Value>(_: Value) -> String {
    "\(Value.self)"
}

extension Thenable {
    /// The result once this thenable resolves, waiting up to ``comboTimeout``; `nil` if it is
    /// still pending then.
    func comboResult() -> Result<T, Error>? {
        let settled = DispatchSemaphore(value: 0)
        pipe { _ in settled.signal() }
        guard settled.wait(timeout: .now() + comboTimeout) == .success else { return nil }
        return result
    }

    /// The value once fulfilled (up to ``comboTimeout``); `nil` if rejected or still pending.
    func comboValue() -> T? {
        guard case .success(let value)? = comboResult() else { return nil }
        return value
    }

    /// The error once rejected (up to ``comboTimeout``); `nil` if fulfilled or still pending.
    func comboError() -> Error? {
        guard case .failure(let error)? = comboResult() else { return nil }
        return error
    }
}

/// Whether `result` is a failure with `PMKError` `expected`.
func comboIsPMKError<T>(_ result: Result<T, Error>?, _ expected: PMKError) -> Bool {
    guard case .failure(let error as PMKError)? = result else { return false }
    return error == expected
}

/// A source of pending promises for `when(…, concurrently:)`: each pull makes a new pending
/// promise and keeps its resolver, and the source tracks how many of its promises are pending
/// at once (with an `Atomic`, so the count is right whichever thread pulls or resolves).
final class ComboPendingSource: Sendable {
    let count: Int
    private let pulled = Atomic<Int>(0)
    private let pending = Atomic<Int>(0)
    private let peakPending = Atomic<Int>(0)
    private let lock = Locked<[Resolver<Int>]>([])

    init(count: Int) {
        self.count = count
    }

    /// How many promises were pulled so far.
    var pulls: Int { pulled.load(ordering: .sequentiallyConsistent) }

    /// The most promises that were pending at the same time.
    var peak: Int { peakPending.load(ordering: .sequentiallyConsistent) }

    /// Makes promise `index` (its value is `index`), or `nil` past the end.
    func make() -> Promise<Int>? {
        guard pulled.load(ordering: .sequentiallyConsistent) < count else { return nil }
        pulled.add(1, ordering: .sequentiallyConsistent)
        let now = pending.add(1, ordering: .sequentiallyConsistent).newValue
        var peak = peakPending.load(ordering: .sequentiallyConsistent)
        while now > peak {
            let (exchanged, original) = peakPending.compareExchange(
                expected: peak, desired: now, ordering: .sequentiallyConsistent)
            if exchanged { break }
            peak = original
        }
        let (promise, resolver) = Promise<Int>.pending()
        lock.withLock { $0.append(resolver) }
        return promise
    }

    /// An iterator over this source, for `when(…, concurrently:)`.
    func makeIterator() -> AnyIterator<Promise<Int>> {
        AnyIterator { self.make() }
    }

    /// The resolver of promise `index`; it must have been pulled.
    func resolver(_ index: Int) -> Resolver<Int> {
        lock.withLock { $0[index] }
    }

    /// Fulfils promise `index` with `index`.
    func fulfil(_ index: Int) {
        pending.subtract(1, ordering: .sequentiallyConsistent)
        resolver(index).fulfill(index)
    }

    /// Rejects promise `index` with `ComboError.numbered(index)`.
    func reject(_ index: Int) {
        pending.subtract(1, ordering: .sequentiallyConsistent)
        resolver(index).reject(ComboError.numbered(index))
    }
}
