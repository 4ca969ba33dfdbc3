import Dispatch

/// Something that runs work later: the execution context of an operator's closure, for operators
/// given `on:` a dispatcher rather than a `DispatchQueue`.
///
/// A dispatcher decides where and when each body runs: on a queue of its own, a limited number at
/// a time, a thread pool, a run loop. Pledge hands it one body per step that acts on a result (a
/// `map` given a value, a `catch` given an error); results an operator passes through unchanged go
/// on inline, without a dispatch. `DispatchQueue` conforms, and an operator given a queue, even as
/// `any Dispatcher`, takes the queue's own path.
///
/// ```swift
/// struct LoggingDispatcher: Dispatcher {
///     let queue: DispatchQueue
///     func dispatch(_ body: @escaping @Sendable () -> Void) {
///         print("dispatching")
///         queue.async(execute: body)
///     }
/// }
///
/// fetchUser(id).map(on: LoggingDispatcher(queue: .global())) { $0.name }.done { print($0) }
/// ```
public protocol Dispatcher: Sendable {
    /// Runs `body` exactly once, later.
    ///
    /// Conforming types must call `body` exactly once, asynchronously (never on the caller's stack
    /// before returning, unless they accept that the chain then runs there), and never while they
    /// hold a lock of their own: `body` runs user code and may dispatch again.
    ///
    /// ```swift
    /// DispatchQueue.global().dispatch { print("on a global queue") }
    /// ```
    ///
    /// - Parameter body: The work to run.
    func dispatch(_ body: @escaping @Sendable () -> Void)

    /// The queue this dispatcher is, when it is one: operators given it dispatch there directly,
    /// as they do when given the queue itself. `nil` by default; `DispatchQueue` returns itself.
    var _dispatchQueue: DispatchQueue? { get }
}

extension Dispatcher {
    /// `nil`: this dispatcher is not a `DispatchQueue`.
    public var _dispatchQueue: DispatchQueue? { nil }
}

extension DispatchQueue: Dispatcher {
    /// The queue itself.
    public var _dispatchQueue: DispatchQueue? { self }

    /// Runs `body` asynchronously on this queue: `async(execute:)`.
    ///
    /// ```swift
    /// let queue: any Dispatcher = DispatchQueue.main
    /// queue.dispatch { print("on the main queue") }
    /// ```
    ///
    /// - Parameter body: The work to run.
    public func dispatch(_ body: @escaping @Sendable () -> Void) { async(execute: body) }
}

/// A dispatcher that may drop work instead of running it (InvalidatableQueue). The engine calls this form, and when
/// `dropped` is called instead of `body`, it cancels the operator's promise (rejected with PMKError.cancelled through
/// `Cancellation.run(from: box, .cancelled)`; a guarantee's box simply stays pending, no log event).
@usableFromInline
protocol DroppingDispatcher: Dispatcher {
    /// Calls exactly one of `body` and `dropped`, exactly once, never under a lock of the
    /// dispatcher's.
    func dispatch(_ body: @escaping @Sendable () -> Void, orDrop dropped: @escaping @Sendable () -> Void)
}
