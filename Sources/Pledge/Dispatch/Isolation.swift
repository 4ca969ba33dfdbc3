import Dispatch

// Handlers that run where they are written. An operator's form without `on:` takes a closure
// that inherits the isolation of the code writing it (`@_inheritActorContext`, `@isolated(any)`,
// as `Task { }` does): in a `@MainActor` type it runs on the main queue, on the main actor; in
// an actor's method, on that actor; elsewhere on `conf.Q`. The `on: .main` forms hand their
// `@MainActor` closure to those forms.

/// Runs each body isolated to `actor`, never blocking a thread: the actor runs the bodies in the
/// order they were dispatched, whichever threads dispatched them. A body may run at once, on the
/// dispatching thread, when the actor is idle.
///
/// Each body waits in the actor's queue (see ``ActorLanes``), and each dispatch starts a task
/// that, on the actor, runs the oldest body waiting, not necessarily its own: tasks may reach the
/// actor out of order (a task takes the priority of the code that starts it), bodies may not.
@usableFromInline
struct ActorDispatcher: Sendable {
    /// The executor of a handler isolated to `actor`, in the actor's lane.
    @usableFromInline
    static func executor(_ actor: any Actor) -> CustomExecutor {
        let dispatcher = ActorDispatcher(actor)
        return CustomExecutor(lane: dispatcher.lane) { body, _ in dispatcher.dispatch(body) }
    }

    let actor: any Actor
    let lane: UInt64
    let waiting: ActorLanes.Bodies

    init(_ actor: any Actor) {
        self.actor = actor
        (lane, waiting) = ActorLanes.lane(of: actor)
    }

    /// Queues `body` and starts a task that runs the oldest body waiting: with `Task.immediate`,
    /// which reaches the actor before returning when it is idle, where the system has it;
    /// otherwise (or when `throughPlainTask`, for tests) a plain task that gets there later.
    func dispatch(_ body: @escaping @Sendable () -> Void, throughPlainTask: Bool = false) {
        let (actor, waiting) = (actor, waiting)
        waiting.withLock { $0.append(body) }
        if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *), !throughPlainTask {
            Task.immediate { await runOldest(of: waiting, isolatedTo: actor) }
        } else {
            Task { await runOldest(of: waiting, isolatedTo: actor) }
        }
    }
}

/// Runs the oldest of the bodies `waiting` for `actor`, isolated to it.
func runOldest(of waiting: ActorLanes.Bodies, isolatedTo actor: isolated any Actor) {
    let body = waiting.withLock { $0.popFirst() }
    body?()
}

/// Where the handlers of the main actor run: each in a block on the main queue or, while the
/// main thread is blocked in `wait()`, on the main thread itself, whichever comes first.
///
/// In Swift 6, a command-line tool's top-level code and `static func main()` are on the main
/// actor, so closures written there are main-actor handlers, and its main queue runs only when
/// something drains it: `wait()` on the main thread runs them itself, in order, rather than hang.
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

/// The lanes of actors (see ``HandlerList``): each actor has a tag of its own, drawn with the
/// threads' tags, so no thread shares it. Handlers written on an actor take its lane, not the
/// attaching thread's, so that they start in the order the actor attached them even when its
/// jobs run on different threads: a thread attaching one while the promise fires helps the lane.
enum ActorLanes {
    /// The bodies handed to an actor and not run yet, oldest first (see ``ActorDispatcher``).
    typealias Bodies = LockedValue<FIFOQueue<@Sendable () -> Void>>

    private final class Entry: Sendable {
        weak let actor: (any Actor)?
        let lane: UInt64
        let waiting = Bodies(FIFOQueue())

        init(_ actor: any Actor, lane: UInt64) {
            self.actor = actor
            self.lane = lane
        }
    }

    /// The lanes by actor, and the size at which to drop the entries of actors that are gone.
    private static let table = LockedValue<(lanes: [ObjectIdentifier: Entry], prune: Int)>(([:], 64))

    /// The lane of `actor`, and its bodies waiting to run.
    static func lane(of actor: any Actor) -> (lane: UInt64, waiting: Bodies) {
        let id = ObjectIdentifier(actor)
        let known = table.withLock { $0.lanes[id].flatMap { $0.actor === actor ? $0 : nil } }
        if let known { return (known.lane, known.waiting) }
        // A new tag, taken outside this table's lock; one that loses a race is never used.
        let tag = ThreadRun.takeTag()
        // Reading a weak reference takes a count on a live actor. Those counts are let go after
        // the lock: the last one runs the actor's `deinit`, user code.
        var alive: [any Actor] = []
        let entry = table.withLock { table -> Entry in
            if let entry = table.lanes[id], entry.actor === actor { return entry }
            let entry = Entry(actor, lane: tag)
            table.lanes[id] = entry
            if table.lanes.count >= table.prune {
                for (key, entry) in table.lanes {
                    if let live = entry.actor { alive.append(live) } else { table.lanes[key] = nil }
                }
                table.prune = max(64, 2 * table.lanes.count)
            }
            return entry
        }
        alive.removeAll()
        return (entry.lane, entry.waiting)
    }
}
