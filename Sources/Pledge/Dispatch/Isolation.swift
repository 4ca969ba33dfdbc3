import Dispatch

// Handlers that run where they are written. Every operator has a form without `on:` whose
// closure inherits the isolation of the code that writes it (`@_inheritActorContext` and
// `@isolated(any)`, as `Task { }` does): in a `@MainActor` type it runs on the main queue,
// isolated to the main actor; in an actor's method, isolated to that actor; elsewhere on the
// queue the operator's `on:` defaults to (`conf.Q`). The `on: .main` forms take a `@MainActor`
// closure and hand it to those forms.

/// The main queue, as the `on:` of an operator whose closure is isolated to the main actor.
///
/// Written `on: .main`, it picks the operator's main-actor form: the closure runs in a block on
/// the main queue (or, while the main thread waits in `wait()`, there), and the compiler knows
/// that it runs on the main actor, so it may touch main-actor state, from any context.
///
/// ```swift
/// @MainActor final class ProfileModel {
///     var name = ""
///     func load() {
///         fetchUser().done(on: .main) { self.name = $0.name }.catch(on: .main) { _ in self.name = "?" }
///     }
/// }
/// ```
///
/// On Linux, the main queue runs only when something drains it: `dispatchMain()`, a run loop, or
/// an app's event loop.
public struct PMKMainQueue: Sendable {
    @inlinable
    init() {}

    /// The main queue.
    @inlinable
    public static var main: PMKMainQueue { PMKMainQueue() }
}

/// Runs each body isolated to `actor`, never blocking a thread: the bodies one thread dispatches
/// reach the actor in the order it dispatched them, and the actor runs them in that order. A
/// body may run at once, on the dispatching thread, when the actor is idle.
@usableFromInline
struct ActorDispatcher: Sendable {
    /// The executor of a handler isolated to `actor`, in the actor's lane.
    @usableFromInline
    static func executor(_ actor: any Actor) -> CustomExecutor {
        let dispatcher = ActorDispatcher(actor)
        return CustomExecutor(lane: ActorLanes.lane(of: actor)) { body, _ in dispatcher.dispatch(body) }
    }

    let actor: any Actor

    init(_ actor: any Actor) {
        self.actor = actor
    }

    func dispatch(_ body: @escaping @Sendable () -> Void) {
        if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) {
            dispatchImmediately(body)
        } else {
            dispatchThroughSerialExecutor(body)
        }
    }

    /// A task started on this thread, which enqueues the body on the actor before returning:
    /// so the enqueues, and the actor's jobs, keep this thread's order.
    @available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
    func dispatchImmediately(_ body: @escaping @Sendable () -> Void) {
        let actor = actor
        Task.immediate { await runIsolated(to: actor, body) }
    }

    /// For systems without `Task.immediate`: tasks that start on one serial queue, in the order
    /// they were made, and from there enqueue the body on the actor.
    func dispatchThroughSerialExecutor(_ body: @escaping @Sendable () -> Void) {
        let actor = actor
        Task(executorPreference: SerialTaskExecutor.shared) { await runIsolated(to: actor, body) }
    }
}

/// Runs `body` isolated to `actor`.
func runIsolated(to actor: isolated any Actor, _ body: () -> Void) {
    body()
}

/// A task executor that runs its jobs one at a time, in the order they were enqueued.
final class SerialTaskExecutor: TaskExecutor {
    static let shared = SerialTaskExecutor()

    private let queue = DispatchQueue(label: "org.pledge.actor-hops")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// Where the handlers of the main actor run: each in a block on the main queue or, while the
/// main thread is blocked in `wait()`, on the main thread itself, whichever comes first.
///
/// In Swift 6, a command-line tool's top-level code and `static func main()` are on the main
/// actor, so the closures written there are main-actor handlers; its main queue runs only when
/// something drains it. `wait()` on the main thread therefore runs them itself, in order, as a
/// run loop would, rather than hang.
@usableFromInline
enum MainActorLane {
    /// The handlers not run yet, in the order they were dispatched, and the semaphores of the
    /// main thread's waits, innermost last.
    private static let state = LockedValue<(jobs: FIFOQueue<@Sendable () -> Void>, waits: [DispatchSemaphore])>(
        (FIFOQueue(), []))

    /// The executor of a main-actor handler (see ``Executor/init(_:flags:isolation:)``).
    @usableFromInline
    static let executor = CustomExecutor { body, _ in dispatch(body) }

    static func dispatch(_ body: @escaping @Sendable () -> Void) {
        let wait = state.withLock { state in
            state.jobs.append(body)
            return state.waits.last
        }
        wait?.signal()
        DispatchQueue.main.async { _ = runNext() }
    }

    /// Runs the oldest handler not run yet, on the main thread; whether there was one.
    static func runNext() -> Bool {
        guard let job = state.withLock({ $0.jobs.popFirst() }) else { return false }
        job()
        return true
    }

    /// Runs `body`, a wait on the main thread, with `semaphore` signalled as handlers arrive.
    static func waiting<Value>(on semaphore: DispatchSemaphore, _ body: () -> Value) -> Value {
        state.withLock { $0.waits.append(semaphore) }
        defer { state.withLock { _ = $0.waits.popLast() } }
        return body()
    }
}

/// The lanes of actors (see ``HandlerList``): each actor has one tag of its own, from the
/// threads' tags, so that no thread ever shares it. Handlers written on an actor take its lane
/// rather than the attaching thread's, so that they start in the order the actor attached them
/// even when its jobs run on different threads: a thread that attaches one while the promise
/// fires helps the actor's lane in order.
enum ActorLanes {
    private final class Entry: Sendable {
        weak let actor: (any Actor)?
        let lane: UInt64

        init(_ actor: any Actor, lane: UInt64) {
            self.actor = actor
            self.lane = lane
        }
    }

    /// The lanes by actor, and the size at which to drop the entries of actors that are gone.
    private static let table = LockedValue<(lanes: [ObjectIdentifier: Entry], prune: Int)>(([:], 64))

    /// The lane of `actor`.
    static func lane(of actor: any Actor) -> UInt64 {
        let id = ObjectIdentifier(actor)
        if let lane = table.withLock({ $0.lanes[id].flatMap { $0.actor === actor ? $0.lane : nil } }) { return lane }
        // A new tag, taken outside this table's lock; one that loses a race is never used.
        let tag = ThreadState.takeTag()
        // Reading a weak reference takes a count on a live actor. Those counts are let go after
        // the lock: the last one runs the actor's `deinit`, user code.
        var alive: [any Actor] = []
        let lane = table.withLock { table -> UInt64 in
            if let entry = table.lanes[id], entry.actor === actor { return entry.lane }
            table.lanes[id] = Entry(actor, lane: tag)
            if table.lanes.count >= table.prune {
                for (key, entry) in table.lanes {
                    if let live = entry.actor { alive.append(live) } else { table.lanes[key] = nil }
                }
                table.prune = max(64, 2 * table.lanes.count)
            }
            return tag
        }
        alive.removeAll()
        return lane
    }
}
