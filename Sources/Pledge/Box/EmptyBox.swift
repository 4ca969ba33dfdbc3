import Synchronization

/// A box that starts pending, stores handlers, and is sealed exactly once.
///
/// Its state is one enum behind one lock. Every transition takes the lock, moves the state out,
/// puts the next one in, drops the lock, and returns what the caller must do next; none runs a
/// handler or any other user code, and none takes a second lock.
///
/// ```
///              seal, handlers waiting             last handler returned
///  pending ─────────────────────────────▶ firing ──────────────────────▶ settled
///     │                                                                 ▲   ▲
///     ├──────────────── seal a value, no handler ──────────────────────┘   │
///     │                                               a handler, or a read  │
///     └── seal a failure, no handler ──▶ unobserved ────────────────────────┘
/// ```
///
/// A sealed box stays `firing` until every handler attached so far has returned, so that a
/// handler attached meanwhile waits for its own thread's earlier handlers (see ``HandlerList``).
///
/// The state is noncopyable, so the compiler moves handlers from one state to the next instead of
/// copying them, and it does not depend on the box's value type, so the transitions, and the
/// `deinit` of a box of any type, run without looking up generic types. Not final: ``ChainedBox``
/// extends it with the operation that resolves it, and ``LazyBox`` with the body that starts it.
@usableFromInline
class EmptyBox<R>: Box<R>, @unchecked Sendable {
    // Safety: `state` and `firstLane` are read and written only while `lock` is held (or in
    // `init`, before the box is published, and in `deinit`); so is `value` while the box is
    // pending (see `Box`). The lock's acquire and release order every access, ThreadSanitizer
    // models them, and they rule out overlapping accesses, so the dynamic exclusivity check is
    // off.

    @usableFromInline
    final let lock = SpinLock()

    /// The thread that attached the box's first handler (its lane, see ``HandlerList``): the one
    /// `state` keeps inline.
    @exclusivity(unchecked)
    @usableFromInline
    final var firstLane: UInt64 = 0

    @exclusivity(unchecked)
    @usableFromInline
    final var state: State

    /// A pending box for a promise made at `site` (see ``Box/init(value:isSealedBox:sealed:site:)``).
    @inlinable
    init<T>(site: SourceSite?) where R == Result<T, Error> {
        state = .pending(.none)
        super.init(value: .failure(PMKError.cancelledError), isSealedBox: false, sealed: false, site: site)
    }

    /// A box born sealed with the failure `result`, which it reports if nothing sees it.
    @inlinable
    init<T>(unobserved error: any Error, site: SourceSite?) where R == Result<T, Error> {
        state = .unobserved(error)
        super.init(value: .failure(error), isSealedBox: false, sealed: true, site: site)
    }

    /// A lazy box, whose first attachment starts its body (see ``LazyBox``).
    @inlinable
    init<T>(unstartedAt site: SourceSite?) where R == Result<T, Error> {
        state = .unstarted
        super.init(value: .failure(PMKError.cancelledError), isSealedBox: false, sealed: false, site: site)
    }

    deinit {
        switch state {
        case .settled: return
        default: break
        }
        #if DEBUG
            conf.pending.remove(self)
        #endif
        switch exchange(&state, with: .settled) {
        case .unobserved(let error):
            if !error.isCancelled { conf.log(.unhandledRejection(error, site: creationSite)) }
        case .pending(let waiting):
            // Freed unsealed: its handlers will never run. Each owns the rest of its chain, so
            // they are released from a loop rather than recursively (see `ThreadRun.release`).
            switch consume waiting {
            case .none:
                break
            case .one(let handler):
                handler.abandon(by: ObjectIdentifier(self))
                // Moved, so that no reference stays behind in this frame.
                ThreadRun.release(consume handler)
            case .many(let list):
                list.abandonAll(by: ObjectIdentifier(self))
                ThreadRun.release(consume list)
            }
        default:
            break
        }
    }

    @usableFromInline
    override func isSealed(observing: Bool) -> Bool {
        if isPending { return false }
        if observing {
            lock.lock()
            var unobserved = false
            switch state {
            case .unobserved: unobserved = true
            default: break
            }
            if unobserved { state = .settled }
            lock.unlock()
        }
        return true
    }

    @usableFromInline
    override func store(_ handler: consuming Handler, lane: UInt64, thread: UInt64) -> Attachment {
        lock.lock()
        // The usual case first: the first handler of a pending box.
        var first = false
        switch state {
        case .pending(.none): first = true
        default: break
        }
        if first {
            state = .pending(.one(handler))
            firstLane = lane
            lock.unlock()
            return .stored
        }
        let attachment: Attachment
        switch exchange(&state, with: .settled) {
        case .pending(let waiting):
            switch consume waiting {
            case .none:
                state = .pending(.one(handler))
                firstLane = lane
            case .one(let first):
                state = .pending(.many(HandlerList([(first, firstLane), (handler, lane)])))
            case .many(let list):
                list.append(handler, lane: lane)
                state = .pending(.many(list))
            }
            attachment = .stored
        case .unstarted:
            state = .pending(.one(handler))
            firstLane = lane
            attachment = .start
        case .settled:
            attachment = .run(handler)
        case .unobserved:
            // The handler receives the result: a failure counts as seen.
            attachment = .run(handler)
        case .firing(let firing):
            let list: HandlerList
            switch consume firing {
            case .one(let stored): list = HandlerList([(stored, firstLane)])
            case .runningFirst(let sealer): list = HandlerList(sealerRunning: firstLane, sealer: sealer)
            case .many(let existing): list = existing
            }
            state = .firing(.many(list))
            attachment = list.attachWhileFiring(handler, lane: lane, from: thread)
        }
        lock.unlock()
        return attachment
    }

    /// Seals the box with `result`, unless it is sealed already.
    ///
    /// - Returns: the work that fires the box when handlers are due, for the caller to do.
    @inlinable
    final func seal<T>(_ result: Result<T, Error>) -> Work? where R == Result<T, Error> {
        lock.lock()
        switch exchange(&state, with: .settled) {
        case .pending(let waiting):
            value = result
            outcome.store(.sealed, ordering: .releasing)
            let (due, hooks) = settle(waiting)
            // A failure no handler waits for stays unobserved until something sees it.
            if case .none = due, case .failure(let error) = result { state = .unobserved(error) }
            lock.unlock()
            #if DEBUG
                conf.pending.remove(self)
            #endif
            // `onCancel` hooks run only for a cancellation: they go now, after the lock, since
            // their captures are user code.
            extendLifetime(hooks)
            return due
        case let other:
            state = other
            lock.unlock()
            return nil
        }
    }

    /// Moves a box just sealed out of `pending`, the lock held: to `firing` when handlers wait,
    /// else to `settled`. Returns the work that fires it, and the `onCancel` hooks (`nil` when
    /// there are none), which the caller drops (or runs) after the lock.
    @usableFromInline
    final func settle(_ waiting: consuming Waiting) -> (due: Work?, hooks: [@Sendable () -> Void]?) {
        switch consume waiting {
        case .one(let handler):
            state = .firing(.one(handler))
            return (.fire(self), nil)
        case .many(let list):
            var hooks: [@Sendable () -> Void] = []
            swap(&hooks, &list.hooks)
            if list.stored > 0 {
                state = .firing(.many(list))
                return (.fire(self), hooks)
            }
            state = .settled
            return (nil, hooks)
        case .none:
            state = .settled
            return (nil, nil)
        }
    }

    /// Seals the box with `result` and runs its handlers, and the chain they lead to, before
    /// returning (or, nested too deep, leaves them to the running loop): what resolving a promise
    /// does. Sealing a box that is sealed already does nothing.
    @inlinable
    final func resolve<T>(_ result: Result<T, Error>) where R == Result<T, Error> {
        if let work = seal(result) { ThreadRun.run(work) }
    }

    /// Runs the handlers `thread` may run, one at a time, each claimed under the lock, until
    /// none is left for it (see ``HandlerList``). Of the work they make due, the first is handed
    /// back to do next and the rest is scheduled on `thread`, to follow it, in order.
    @usableFromInline
    override final func fire(on thread: ThreadRun, helping lane: UInt64?) -> Work? {
        let runner = lane ?? 0
        var due: Work? = nil
        var next = claim(runner, sealer: thread.pointee.tag, finished: 0)
        while case .some(let (handler, lane)) = consume next {
            if let work = handler.receive(from: self) {
                if case .none = due { due = work } else { thread.schedule(work) }
            }
            next = claim(runner, sealer: thread.pointee.tag, finished: lane)
        }
        return due
    }

    /// Takes the next handler for a runner once it has finished one of lane `finished`: for the
    /// sealing thread (`helper` 0, whose tag is `sealer`), any lane no helper runs; for a helper,
    /// its own lane. The box settles once nothing is stored and nothing runs.
    @usableFromInline
    final func claim(_ helper: UInt64, sealer: UInt64, finished: UInt64) -> HandlerList.Entry? {
        lock.lock()
        let next: HandlerList.Entry?
        switch exchange(&state, with: .settled) {
        case .firing(let firing):
            switch consume firing {
            case .one(let handler):
                if helper == 0 {
                    state = .firing(.runningFirst(sealer: sealer))
                    next = (handler, firstLane)
                } else {
                    // Only the sealing thread takes the one handler; a helper always finds a list.
                    state = .firing(.one(handler))
                    next = nil
                }
            case .runningFirst:
                // The sealing thread's only handler has returned: settled.
                next = nil
            case .many(let list):
                next = helper == 0 ? list.claimForSealer(sealer, finished: finished) : list.claimForHelper(helper)
                if next != nil || !list.isIdle { state = .firing(.many(list)) }
            }
        case let other:
            state = other
            next = nil
        }
        lock.unlock()
        return next
    }

    @usableFromInline
    override final func cancel(_ reason: CancelReason) -> AnyBox? {
        cancelTransition(reason)
    }

    /// The box this one depends on, with a count, forgotten from now on; `nil` when there is
    /// none or it is being freed. Called under the lock; ``ChainedBox`` overrides it.
    @usableFromInline
    func takeUpstream() -> AnyBox? { nil }

    /// ``upstream()`` under the lock; ``ChainedBox`` overrides it.
    @usableFromInline
    func peekUpstream() -> AnyBox? { nil }

    /// Forgets the box this one depends on (see ``ChainedBox/upstreamLink``); ``ChainedBox``
    /// overrides it.
    @usableFromInline
    func unlink() {}

    /// The box was cancelled: drops what it kept to resolve itself (a lazy box's body), for the
    /// caller to release after the lock. Called under the lock.
    @usableFromInline
    func dropProducer() -> Any? { nil }

    /// The box was cancelled, and its lock dropped: a fan-in (``AllFanIn``) cancels the inputs
    /// nothing else depends on.
    @usableFromInline
    func cancelInputs() {}
}

extension AnyBox {
    /// Where a box is in its life, and its handlers. Not generic: the handlers a box stores are
    /// the same whatever its value type (see ``Handler``). Noncopyable: a transition moves it.
    @usableFromInline
    enum State: ~Copyable {
        /// A lazy box nothing has attached to yet: its body has not started.
        case unstarted
        /// Not sealed; these handlers wait.
        case pending(Waiting)
        /// Sealed; these handlers have not all returned.
        case firing(Firing)
        /// Sealed; every handler attached so far has returned: a new one runs at once.
        case settled
        /// Sealed with a failure no handler has received yet. The first handler or read makes
        /// it `settled`; freed in this state, it reports the failure as unhandled (unless it
        /// is a cancellation).
        case unobserved(any Error)

        /// Whether the box is not sealed yet.
        @inlinable
        var isPending: Bool {
            switch self {
            case .unstarted: true
            case .pending: true
            case .firing: false
            case .settled: false
            case .unobserved: false
            }
        }
    }

    /// The handlers of a pending box.
    @usableFromInline
    enum Waiting: ~Copyable {
        case none
        /// The usual case: the next link of a chain. Its lane is the box's `firstLane`.
        case one(Handler)
        case many(HandlerList)
    }

    /// The handlers of a firing box.
    @usableFromInline
    enum Firing: ~Copyable {
        /// One handler, not started yet; its lane is the box's `firstLane`.
        case one(Handler)
        /// The sealing thread, of tag `sealer`, runs the only handler, of lane `firstLane`.
        case runningFirst(sealer: UInt64)
        /// Several handlers, or handlers attached while firing: the list keeps who runs what.
        case many(HandlerList)
    }
}
