import Dispatch
import Pledge

/// A dispatcher that counts its dispatches and runs each body on a serial queue tagged for
/// ``TestQueues/isOn(_:)``.
final class CountingDispatcher: Dispatcher {
    let queue: DispatchQueue
    private let counter = AtomicCounter()

    init(_ name: String) {
        queue = TestQueues.serial(name)
    }

    /// How many bodies were dispatched so far.
    var dispatches: Int { counter.value }

    func dispatch(_ body: @escaping @Sendable () -> Void) {
        counter.increment()
        queue.async(execute: body)
    }
}

/// A dispatcher that calls each body at once, on the dispatching thread.
struct InlineDispatcher: Dispatcher {
    func dispatch(_ body: @escaping @Sendable () -> Void) { body() }
}

/// A dispatcher that keeps each body until ``runAll()``.
final class ManualDispatcher: Dispatcher {
    private let bodies = Recorder<@Sendable () -> Void>()

    var pending: Int { bodies.all.count }

    func dispatch(_ body: @escaping @Sendable () -> Void) { bodies.append(body) }

    func runAll() {
        for body in bodies.all { body() }
    }
}
