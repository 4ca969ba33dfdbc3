import Dispatch
import Foundation
import Pledge
import Synchronization

// Shared vocabulary of the Promises/A+ suite (Tests/PledgeTests/APlus/). Every name starts with
// `APlus` so that it cannot collide with the helpers of other test folders.

/// A rejection reason with identity: the spec says "rejected with the same reason", and `===`
/// on a class instance is the strictest way to check it.
final class APlusReason: Error, Sendable, CustomStringConvertible {
    let label: String

    init(_ label: String) {
        self.label = label
    }

    var description: String { "APlusReason(\(label))" }
}

/// A fulfilment value with identity, for "fulfilled with the same value" checks.
final class APlusToken: Sendable, CustomStringConvertible {
    let label: String

    init(_ label: String) {
        self.label = label
    }

    var description: String { "APlusToken(\(label))" }
}

/// Whether `error` is the very `reason` instance.
func aplusIsSame(_ error: Error?, as reason: APlusReason) -> Bool {
    (error as? APlusReason) === reason
}

/// How long a deterministic test waits for something that should happen at once: long enough
/// never to fire on a loaded two-core machine, short enough to fail a hung test.
let aplusTimeout: DispatchTimeInterval = .seconds(10)

/// Waits for `count` signals of `semaphore`, each within ``aplusTimeout``.
///
/// - Returns: Whether all of them came.
func aplusWait(_ semaphore: DispatchSemaphore, count: Int = 1) -> Bool {
    for _ in 0..<count where semaphore.wait(timeout: .now() + aplusTimeout) != .success {
        return false
    }
    return true
}

/// Events in the order they happened, appended from any thread: the shared ``Recorder``.
typealias APlusLog<Element: Sendable> = Recorder<Element>

/// A slot written once, later than the closure that reads it is made: how a handler gets hold
/// of the promise its own `then` returned.
final class APlusSlot<Value: Sendable>: @unchecked Sendable {
    // Safety: `stored` is read and written only while `lock` is held.
    private var stored: Value?
    private let lock = NSLock()

    init() {}

    var value: Value? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

/// A serial queue that can tell whether the current code runs on it.
final class APlusQueue: Sendable {
    private static let key = DispatchSpecificKey<Int>()
    private static let nextID = Atomic<Int>(0)

    let queue: DispatchQueue
    private let id: Int

    init(_ label: String = "aplus.serial") {
        let id = APlusQueue.nextID.wrappingAdd(1, ordering: .relaxed).newValue
        self.id = id
        queue = DispatchQueue(label: "\(label).\(id)")
        queue.setSpecific(key: APlusQueue.key, value: id)
    }

    /// Whether the calling code runs on this queue.
    var isCurrent: Bool {
        DispatchQueue.getSpecific(key: APlusQueue.key) == id
    }

    /// Blocks until everything already submitted to the queue has run.
    func drain() {
        queue.sync {}
    }
}

/// Where a handler runs in a parameterised test: inline (`on: nil`) or on a serial queue.
enum APlusPlacement: String, CaseIterable, Sendable, CustomStringConvertible {
    case inline
    case serialQueue

    var description: String { rawValue }

    /// A fresh queue for `.serialQueue`, `nil` for `.inline`.
    func makeQueue() -> APlusQueue? {
        switch self {
        case .inline: return nil
        case .serialQueue: return APlusQueue()
        }
    }
}

/// The Pledge operators that play the part of `then(onFulfilled)`: each runs its closure with
/// the value of a fulfilled promise and skips a rejected one.
enum APlusOnFulfilled: String, CaseIterable, Sendable, CustomStringConvertible {
    case map, compactMap, then, done, get, tap

    var description: String { rawValue }

    /// Attaches `body` to `promise` with this operator, on `queue` (inline when `nil`).
    ///
    /// - Returns: The promise the operator returned, as `Promise<Void>`.
    @discardableResult
    func attach<T: Sendable>(
        to promise: Promise<T>, on queue: DispatchQueue?, _ body: @escaping @Sendable (T) -> Void
    ) -> Promise<Void> {
        switch self {
        case .map: return promise.map(on: queue) { body($0) }
        case .compactMap: return promise.compactMap(on: queue) { body($0) }
        case .then:
            return promise.then(on: queue) { value -> Promise<Void> in
                body(value)
                return Promise()
            }
        case .done: return promise.done(on: queue) { body($0) }
        case .get: return promise.get(on: queue) { body($0) }.asVoid()
        case .tap:
            return promise.tap(on: queue) { result in
                if case .success(let value) = result { body(value) }
            }.asVoid()
        }
    }
}

/// The Pledge operators that play the part of `then(_, onRejected)`: each runs its closure with
/// the error of a rejected promise and lets a fulfilled one pass.
enum APlusOnRejected: String, CaseIterable, Sendable, CustomStringConvertible {
    case `catch`, recover, recoverWithGuarantee, tap

    var description: String { rawValue }

    /// Attaches `body` to `promise` with this operator, on `queue` (inline when `nil`). Policies
    /// are explicit, so that the test does not depend on ``PMKConfiguration/catchPolicy``.
    func attach(
        to promise: Promise<Int>, on queue: DispatchQueue?, _ body: @escaping @Sendable (Error) -> Void
    ) {
        switch self {
        case .catch:
            promise.catch(on: queue, policy: .allErrors) { body($0) }
        case .recover:
            _ = promise.recover(on: queue, policy: .allErrors) { error -> Promise<Int> in
                body(error)
                return Promise.value(0)
            }
        case .recoverWithGuarantee:
            promise.recover(on: queue) { error -> Guarantee<Int> in
                body(error)
                return Guarantee.value(0)
            }
        case .tap:
            _ = promise.tap(on: queue) { result in
                if case .failure(let error) = result { body(error) }
            }
        }
    }
}

/// Waits up to ``aplusTimeout`` for `thenable` to resolve, without blocking forever the way
/// `wait()` would if a bug left it pending.
///
/// - Returns: The result, or `nil` if it did not come in time.
func aplusSettle<U: Thenable>(_ thenable: U) -> Result<U.T, Error>? {
    let settled = DispatchSemaphore(value: 0)
    thenable.pipe { _ in settled.signal() }
    guard aplusWait(settled) else { return nil }
    return thenable.result
}
