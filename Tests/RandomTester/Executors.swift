import Dispatch
import Pledge

/// A global actor for the "actor" executor: a closure marked `@TesterActor` runs isolated to it.
@globalActor
actor TesterActor {
    static let shared = TesterActor()
}

/// The queues and the dispatcher the programs' handlers run on, each tagged so that a handler can
/// check where it runs.
enum Executors {
    static let tag = DispatchSpecificKey<String>()

    static let serialQueue = tagged(DispatchQueue(label: "random-tester.serial"), "serialQueue")
    static let concurrentQueue = tagged(
        DispatchQueue(label: "random-tester.concurrent", attributes: .concurrent), "concurrentQueue")
    static let dispatcherQueue = tagged(
        DispatchQueue(label: "random-tester.dispatcher", attributes: .concurrent), "dispatcher")
    static let dispatcher = TesterDispatcher(queue: dispatcherQueue)

    /// Tags the main queue and Pledge's default queue; call once before the first round.
    static func prepare() {
        _ = tagged(DispatchQueue.main, "main")
        _ = tagged(PMKConfiguration.defaultQueue, "standard")
    }

    private static func tagged(_ queue: DispatchQueue, _ name: String) -> DispatchQueue {
        queue.setSpecific(key: tag, value: name)
        return queue
    }

    /// The queue `executor` is given as `on:`, for the executors that take a `DispatchQueue?`.
    static func queue(_ executor: Executor) -> DispatchQueue? {
        switch executor {
        case .serialQueue: return serialQueue
        case .concurrentQueue: return concurrentQueue
        case .mainQueue: return DispatchQueue.main
        default: return nil
        }
    }

    /// Whether the calling handler runs where `executor` puts it, as far as a tag can tell.
    static func isOn(_ executor: Executor) -> Bool {
        let here = DispatchQueue.getSpecific(key: tag)
        switch executor {
        case .inline, .actor: return true
        case .standard: return here == "standard"
        case .serialQueue: return here == "serialQueue"
        case .concurrentQueue: return here == "concurrentQueue"
        case .dispatcher: return here == "dispatcher"
        case .mainQueue, .mainActor: return here == "main"
        }
    }

    /// Waits until the work each executor had been handed has run (the main queue and the actor
    /// too), so that a handler that runs late or twice shows before the round is checked.
    /// `false` if one has not drained by `end`.
    static func drain(until end: ContinuousClock.Instant) -> Bool {
        let done = DispatchSemaphore(value: 0)
        serialQueue.async { done.signal() }
        concurrentQueue.async(flags: .barrier) { done.signal() }
        dispatcherQueue.async(flags: .barrier) { done.signal() }
        PMKConfiguration.defaultQueue.async { done.signal() }
        DispatchQueue.main.async { done.signal() }
        Task { @TesterActor in done.signal() }
        for _ in 0..<6 {
            guard done.wait(timeout: .now() + .nanoseconds(nanoseconds(until: end))) == .success else { return false }
        }
        return true
    }
}

/// A ``Dispatcher`` written outside Pledge: hands each body to its queue.
struct TesterDispatcher: Dispatcher {
    let queue: DispatchQueue

    func dispatch(_ body: @escaping @Sendable () -> Void) {
        queue.async(execute: body)
    }
}
