/// Something worth telling the developer about, delivered to ``PMKConfiguration/logHandler``.
///
/// Pledge never crashes on misuse; it reports it here. The default handler prints one line per
/// event to standard error.
///
/// Four events report a promise that was lost, or seems to be, which is almost always a bug; in
/// debug builds they carry the ``CreationSite`` of the promise (or of the first promise of its
/// chain), and the default handler prints it:
///
/// ```swift
/// func refresh() {
///     fetchUser(id: 42).done { user in
///         print(user.name)
///     }  // no catch: a failure is reported as .unhandledRejection
/// }
/// ```
///
/// The default handler prints each event's ``message``, one line to standard error:
///
/// ```text
/// Pledge: warning: a rejected promise was released and no handler saw its error: offline (made at App/Sync.swift:42)
/// ```
///
/// | Event | When |
/// |---|---|
/// | ``unhandledRejection(_:site:)`` | a rejected promise was released and no handler, state read or `cancel()` saw its error (a chain without `catch`; printing the promise does not count); never for cancellations |
/// | ``pendingPromiseDeallocated(site:)`` | a ``Resolver`` was released without resolving its promise |
/// | ``pendingGuaranteeDeallocated(site:)`` | a guarantee's resolve function was released uncalled |
/// | ``cauterized(_:)`` | `cauterize()` dropped an error |
/// | ``waitOnHandlerQueue`` | `wait()` was called on a `conf.Q` queue while pending (it deadlocks if the chain needs that queue) |
/// | ``waitOnMainThread`` | the same, on the main thread, when `.main` is one of the `conf.Q` queues |
/// | ``nilDispatchQueueWithFlags`` | `flags:` were given with `on: nil`, so they are ignored |
/// | ``guaranteeReturnedSelf`` | a `then` or `recover` body returned the guarantee it was to resolve |
/// | ``badInput(_:)`` | a call whose result cannot fail got input it cannot use, such as `race()` of no guarantees or `after(seconds: .nan)`; also when `timeout`, `delay` or `retry` reject with ``PMKError/badInput`` |
/// | ``longPending(site:age:)`` | a promise has been pending for ``PMKConfiguration/longPendingThreshold`` (debug builds, off by default) |
public enum LogEvent: Sendable {
    /// `wait()` was called on the main thread while the promise was pending, and the main queue
    /// is one of the ``PMKConfiguration/Q`` queues: handlers there cannot run until `wait()`
    /// returns, so if the chain needs one, this wait never ends. Pledge continues waiting.
    case waitOnMainThread

    /// A pending promise can no longer be resolved: its ``Resolver`` was released without
    /// fulfilling or rejecting it. Everything waiting on it will wait forever. `site` is where
    /// the promise was made, in debug builds; `nil` in release builds.
    case pendingPromiseDeallocated(site: CreationSite?)

    /// A pending guarantee can no longer be resolved: the function that resolves it was
    /// released without being called. Everything waiting on it will wait forever. `site` is
    /// where the guarantee was made, in debug builds; `nil` in release builds.
    case pendingGuaranteeDeallocated(site: CreationSite?)

    /// A rejected promise was released, and no handler ever received its error: a chain that
    /// ends without `catch`, say, or a promise nobody attached to. Logged once per promise,
    /// never for a cancellation (see `Error.isCancelled`), and never when the error went on to
    /// a handler, such as a `catch`, `recover`, `cauterize()`, `wait()` or `async()`, was read
    /// through ``Thenable/result`` (or `value`, `error`, `isRejected` and the other state
    /// reads) once rejected, or was given up on with `cancel()`. An `onCancel` body is not a
    /// handler that sees it, and printing or dumping the promise does not count. `site` is where the promise, or the first promise of its chain, was
    /// made, in debug builds (see ``CreationSite`` for the promises that have none); `nil` in
    /// release builds.
    case unhandledRejection(Error, site: CreationSite?)

    /// An error reached ``CatchMixin/cauterize()`` and was dropped on purpose.
    case cauterized(Error)

    /// `flags` were given together with `on: nil`; with no queue to dispatch to they are ignored.
    case nilDispatchQueueWithFlags

    /// `wait()` was called on a queue in ``PMKConfiguration/Q`` while the promise was pending.
    /// Handlers on that queue cannot run until `wait()` returns, so if the chain needs one of
    /// them, this wait never ends. Wait from another thread, or pass `on:` explicitly.
    case waitOnHandlerQueue

    /// A `then` or `recover` body returned the very guarantee it was to resolve. A promise in
    /// that case is rejected with ``PMKError/returnedSelf``; a guarantee cannot fail, so it stays
    /// pending for good, and everything waiting on it waits forever.
    case guaranteeReturnedSelf

    /// A function whose result cannot fail (a guarantee) was given input it cannot use, such as
    /// `race()` with no guarantees or `after(seconds: .nan)`. A promise would be rejected with
    /// ``PMKError/badInput``; here the message says what the call did instead. The time
    /// operators (`timeout`, `delay`, `retry`) log it too when they reject with
    /// ``PMKError/badInput``, since a NaN interval or a count below one is a bug worth seeing
    /// even where the rejection is handled.
    case badInput(String)

    /// A promise or guarantee has been pending for `age`, at least
    /// ``PMKConfiguration/longPendingThreshold``: its producer may never answer. Debug builds
    /// only, and only while a threshold is set; each promise is reported once, and never after it
    /// resolved. `site` is where it, or the first promise of its chain, was made (see
    /// ``CreationSite``); ``pendingPromises()`` lists all the others still pending.
    case longPending(site: CreationSite?, age: Duration)
}

extension LogEvent: CustomStringConvertible {
    /// The event's name, as PromiseKit prints its events: `"waitOnMainThread"`,
    /// `"pendingPromiseDeallocated"`, `"cauterized(<error>)"`. For people, see ``message``.
    ///
    /// ```swift
    /// conf.logHandler = { event in metrics.count("\(event)") }   // "pendingPromiseDeallocated"
    /// ```
    public var description: String {
        switch self {
        case .waitOnMainThread: "waitOnMainThread"
        case .pendingPromiseDeallocated: "pendingPromiseDeallocated"
        case .pendingGuaranteeDeallocated: "pendingGuaranteeDeallocated"
        case .unhandledRejection(let error, _): "unhandledRejection(\(error))"
        case .cauterized(let error): "cauterized(\(error))"
        case .nilDispatchQueueWithFlags: "nilDispatchQueueWithFlags"
        case .waitOnHandlerQueue: "waitOnHandlerQueue"
        case .guaranteeReturnedSelf: "guaranteeReturnedSelf"
        case .badInput(let message): "badInput(\(message))"
        case .longPending: "longPending"
        }
    }

    /// One line for people, signed by Pledge, saying what happened and what to do about it, with
    /// the creation site of a lost promise when there is one: what
    /// ``PMKConfiguration/defaultLogHandler`` prints.
    ///
    /// ```swift
    /// conf.logHandler = { event in logger.warning("\(event.message)") }
    /// ```
    public var message: String {
        switch self {
        case .waitOnMainThread:
            return "Pledge: warning: wait() called on the main thread while a Q queue is the main queue; "
                + "if the chain needs that queue, this wait never ends."
        case .pendingPromiseDeallocated(let site):
            return "Pledge: warning: a pending promise was deallocated: its Resolver was released unresolved."
                + Self.madeAt(site)
        case .pendingGuaranteeDeallocated(let site):
            return "Pledge: warning: a pending guarantee was deallocated: its resolve function was released uncalled."
                + Self.madeAt(site)
        case .unhandledRejection(let error, let site):
            return "Pledge: warning: a rejected promise was released and no handler saw its error: \(error)"
                + Self.madeAt(site)
        case .cauterized(let error):
            return "Pledge: cauterized error: \(error)"
        case .nilDispatchQueueWithFlags:
            return "Pledge: warning: flags were passed with `on: nil`; they are ignored."
        case .waitOnHandlerQueue:
            return "Pledge: warning: wait() called on a queue from conf.Q while the promise is pending; "
                + "if that queue is serial and the chain needs it, this wait never ends."
        case .guaranteeReturnedSelf:
            return "Pledge: warning: a then or recover body returned the guarantee it was to resolve; "
                + "that guarantee can never resolve."
        case .badInput(let message):
            return "Pledge: warning: bad input: \(message)"
        case .longPending(let site, let age):
            return "Pledge: warning: a promise has been pending for \(age); its producer may never answer."
                + Self.madeAt(site)
        }
    }

    /// ` (made at File.swift:12)`, or nothing without a site.
    /// A lost promise, as PromiseKit code writes the event, without a site.
    public static var pendingPromiseDeallocated: LogEvent { .pendingPromiseDeallocated(site: nil) }

    /// A lost guarantee, as PromiseKit code writes the event, without a site.
    public static var pendingGuaranteeDeallocated: LogEvent { .pendingGuaranteeDeallocated(site: nil) }

    private static func madeAt(_ site: CreationSite?) -> String {
        site.map { " (made at \($0))" } ?? ""
    }
}
