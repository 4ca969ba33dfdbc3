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
/// the main queue, as with `on: DispatchQueue.main`, and the compiler knows that it runs on the
/// main actor, so it may touch main-actor state, from any context.
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
struct ActorDispatcher: Dispatcher {
    @usableFromInline
    let actor: any Actor

    @inlinable
    init(_ actor: any Actor) {
        self.actor = actor
    }

    @usableFromInline
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
