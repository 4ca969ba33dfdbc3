/// Something worth telling the developer about, delivered to ``PMKConfiguration/logHandler``.
///
/// Pledge never crashes on misuse; it reports it here. The default handler prints one line per
/// event to standard error.
public enum LogEvent: Sendable {
    /// `wait()` was called on the main thread, which blocks it; Pledge continues waiting.
    case waitOnMainThread

    /// A pending promise can no longer be resolved: its ``Resolver`` was released without
    /// fulfilling or rejecting it. Everything waiting on it will wait forever.
    case pendingPromiseDeallocated

    /// A pending guarantee can no longer be resolved: the function that resolves it was
    /// released without being called. Everything waiting on it will wait forever.
    case pendingGuaranteeDeallocated

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
}

extension LogEvent: CustomStringConvertible {
    /// One line saying what happened and what to do about it.
    public var description: String {
        switch self {
        case .waitOnMainThread:
            return "Pledge: warning: wait() called on the main thread; it blocks until the promise resolves."
        case .pendingPromiseDeallocated:
            return "Pledge: warning: a pending promise was deallocated: its Resolver was released unresolved."
        case .pendingGuaranteeDeallocated:
            return "Pledge: warning: a pending guarantee was deallocated: its resolve function was released uncalled."
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
        }
    }
}
