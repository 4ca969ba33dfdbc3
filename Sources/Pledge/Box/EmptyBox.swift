import Synchronization

/// A box that starts pending, stores handlers, and is sealed exactly once.
///
/// Its mutable state is one ``AnyBox/Core`` behind one ``Lock``. Each transition runs inside
/// `withLock`: it moves the state out, puts the next one in, and returns what the caller must do
/// after the lock. None runs user code or takes another lock.
///
/// ```
///              seal, handlers waiting             last handler returned
///  pending ─────────────────────────────▶ firing ──────────────────────▶ settled
///     │                                                                 ▲   ▲
///     ├──────────────── seal a value, no handler ──────────────────────┘   │
///     │                                               a handler, or a read  │
///     └── seal a failure, no handler ──▶ unobserved ────────────────────────┘
/// ```
/// `orphaned` is `pending` with its producer gone (see ``Upstream``): only a cancellation seals it.
///
/// A sealed box stays `firing` until every handler attached so far has returned, so that a
/// handler attached meanwhile waits for its own thread's earlier handlers (see ``HandlerList``).
///
/// The state is noncopyable: handlers move from state to state, never copied. Not final:
/// ``ChainedBox`` adds the operation that resolves it.
@usableFromInline
class EmptyBox<R>: Box<R>, @unchecked Sendable {
    // Safety: every mutable field but `value` is in `core`, behind its lock; `value` is written
    // as `Box` says.

    @usableFromInline
    final let core: Lock<Core>

    /// A pending box for a promise made at `site`, depending on `upstream` (see ``Upstream``).
    @inlinable
    init<T>(site: SourceSite?, upstream: Upstream? = nil) where R == Result<T, Error> {
        core = Lock(Core(.pending(.none), upstream: upstream))
        super.init(value: .failure(PMKError.cancelledError), isSealedBox: false, outcome: .pending, site: site)
    }

    /// A box born sealed with the failure `error`, which it reports if nothing sees it.
    @inlinable
    init<T>(unobserved error: any Error, site: SourceSite?) where R == Result<T, Error> {
        core = Lock(Core(.unobserved(error)))
        super.init(value: .failure(error), isSealedBox: false, outcome: .rejected, site: site)
    }

    /// A lazy box (see ``Promise/lazy(_:file:line:)``): its first attachment starts `body`, given
    /// the box, in a run; cancelled first, or never attached to, it releases `body` unrun.
    @inlinable
    init<T>(site: SourceSite?, lazy body: @escaping @Sendable (AnyBox) -> Void) where R == Result<T, Error> {
        core = Lock(Core(.unstarted(body)))
        super.init(value: .failure(PMKError.cancelledError), isSealedBox: false, outcome: .pending, site: site)
    }

    deinit {
        // Fulfilled or cancelled: all handlers ran (the run firing a box holds it); no report.
        let outcome = outcome.load(ordering: .acquiring)
        if outcome == .fulfilled || outcome == .cancelled { return }
        let state = core.withLock { core in exchange(&core.state, with: .settled) }
        switch consume state {
        case .settled:
            return
        case .unobserved(let error):
            if !error.isCancelled { conf.log(.unhandledRejection(error, site: creationSite)) }
        case .pending(let waiting):
            abandon(waiting)
        case .orphaned(let waiting):
            abandon(waiting)
        case .unstarted(let body):
            abandon(.none)
            // The body may own the rest of a chain of lazy promises.
            ThreadRun.release(consume body)
        case .firing:
            break
        }
    }

    /// Tells the handlers of a box freed unsealed that they will never run. Each owns the rest of
    /// its chain: released from a loop, not recursively (see `ThreadRun.release`).
    final func abandon(_ waiting: consuming Waiting) {
        #if DEBUG
            conf.pending.record(self, .ended)
        #endif
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
    }

    @usableFromInline
    override func isSealed(observing: Bool) -> Bool {
        if isPending { return false }
        if observing { core.withLock { $0.observe() } }
        return true
    }

    @usableFromInline
    override func store(_ handler: consuming Handler, lane: UInt64, thread: UInt64) -> Attachment {
        // Moved into the lock: a closure borrows what it captures, and a copy costs a retain.
        var moving = Optional(handler)
        return core.withLock { core in
            guard let handler = moving.take() else { return .stored }
            let waiting: Waiting
            let orphaned: Bool
            switch exchange(&core.state, with: .settled) {
            case .pending(let pending):
                waiting = pending
                orphaned = false
            case .orphaned(let pending):
                waiting = pending
                orphaned = true
            case .unstarted(let body):
                core.state = .pending(.one(handler))
                core.firstLane = lane
                return .start(body)
            case .settled:
                return .run(handler)
            case .unobserved:
                // The handler receives the result: a failure counts as seen.
                return .run(handler)
            case .firing(let firing):
                let list: HandlerList
                switch consume firing {
                case .one(let stored): list = HandlerList([(stored, core.firstLane)])
                case .runningFirst(let sealer): list = HandlerList(sealerRunning: core.firstLane, sealer: sealer)
                case .many(let existing): list = existing
                }
                core.state = .firing(.many(list))
                return list.attachWhileFiring(handler, lane: lane, from: thread)
            }
            // In an orphaned box, the handler hears at once that only a cancellation can resolve it.
            let told = orphaned ? handler : nil
            let stored: Waiting
            switch consume waiting {
            case .none:
                stored = .one(handler)
                core.firstLane = lane
            case .one(let first): stored = .many(HandlerList([(first, core.firstLane), (handler, lane)]))
            case .many(let list):
                list.append(handler, lane: lane)
                stored = .many(list)
            }
            guard let told else {
                core.state = .pending(stored)
                return .stored
            }
            core.state = .orphaned(stored)
            return .storedOrphaned(told)
        }
    }

    /// Seals the box with `result`, unless it is sealed already.
    ///
    /// - Returns: the work that fires the box when handlers are due, for the caller to do.
    @inlinable
    @inline(__always)  // Every operator's hot path ends in this transition; a call would split it.
    final func seal<T>(_ result: Result<T, Error>) -> Work? where R == Result<T, Error> {
        let failure: (any Error)? = if case .failure(let error) = result { error } else { nil }
        let sealed = core.withLock { core -> Core.Sealed? in
            guard let sealed = core.settle(unobserved: failure) else { return nil }
            // Written before `outcome` publishes it, and before dropping the lock handlers are
            // claimed under.
            value = result
            outcome.store(failure == nil ? .fulfilled : .rejected, ordering: .releasing)
            return sealed
        }
        guard let sealed else { return nil }
        #if DEBUG
            conf.pending.record(self, .ended)
        #endif
        // Hooks run only on cancel: their captures (user code) and the upstream go now, unlocked.
        extendLifetime(sealed)
        return sealed.fires ? .fire(self) : nil
    }

    /// What resolving a promise does: seals the box with `result`, unless it is sealed, and runs
    /// its handlers and their chain before returning (nested too deep: the running loop does).
    @inlinable
    @inline(never)  // Inlined, its exits each end the caller's objects, then freed by the runtime.
    final func resolve<T>(_ result: Result<T, Error>) where R == Result<T, Error> {
        if let work = seal(result) { ThreadRun.run(work) }
    }

    /// Claims each handler this thread may run under the lock, and runs it after the lock.
    override final func fire(helping lane: UInt64?, scheduling later: inout [Work]) -> Work? {
        let runner = lane ?? 0
        let sealer = ThreadRun.tag
        var due: Work? = nil
        var finished: UInt64 = 0
        // The next handler for this runner, which has finished one of lane `finished`: for the
        // sealer (runner 0), of any lane no helper runs; for a helper, of its own. The box settles
        // once nothing is stored and nothing runs.
        while let (handler, lane) = core.withLock({ (core: inout Core) -> HandlerList.Entry? in
            switch exchange(&core.state, with: .settled) {
            case .firing(let firing):
                switch consume firing {
                case .one(let handler):
                    if runner == 0 {
                        core.state = .firing(.runningFirst(sealer: sealer))
                        return (handler, core.firstLane)
                    }
                    // Only the sealing thread takes the one handler; a helper always finds a list.
                    core.state = .firing(.one(handler))
                    return nil
                case .runningFirst:
                    // The sealing thread's only handler has returned: settled.
                    return nil
                case .many(let list):
                    let next =
                        runner == 0 ? list.claimForSealer(sealer, finished: finished) : list.claimForHelper(runner)
                    if next != nil || !list.isIdle { core.state = .firing(.many(list)) }
                    return next
                }
            case let other:
                core.state = other
                return nil
            }
        }) {
            if let work = handler.call(handler.receiver, .sealed(self)) {
                if case .none = due { due = work } else { later.append(work) }
            }
            finished = lane
        }
        return due
    }

    @usableFromInline
    override final func cancel(_ reason: CancelReason) -> AnyBox? { cancelTransition(reason) }

    /// How many handlers a pending box stores: for debug descriptions and tests.
    final var storedHandlers: Int {
        core.withLock { core in
            switch core.state {
            case .pending(.one): 1
            case .orphaned(.one): 1
            case .pending(.many(let list)): list.stored
            case .orphaned(.many(let list)): list.stored
            default: 0
            }
        }
    }
}

extension AnyBox {
    /// Everything about an ``EmptyBox`` that changes, behind its ``Lock``. Not generic (handlers
    /// are the same whatever the value type), so the transitions and the `deinit` of a box of any
    /// type run without looking up generic types.
    @usableFromInline
    struct Core: ~Copyable, Sendable {
        /// Where the box is in its life, and its handlers.
        var state: State
        /// The lane of the first handler, the one `state` keeps inline (see ``HandlerList``).
        var firstLane: UInt64 = 0
        /// While pending, the promise this one depends on (see ``Upstream``).
        var upstream: Upstream?

        @usableFromInline
        init(_ state: consuming State, upstream: Upstream? = nil) {
            self.state = state
            self.upstream = upstream
        }
    }

    /// Where a box is in its life, and its handlers. Noncopyable: a transition moves it.
    @usableFromInline
    enum State: ~Copyable, Sendable {
        /// A lazy box nothing has attached to yet: its body, not started.
        case unstarted(@Sendable (AnyBox) -> Void)
        /// Not sealed; these handlers wait.
        case pending(Waiting)
        /// Not sealed, and only a cancellation can resolve it now (see ``Upstream``).
        case orphaned(Waiting)
        /// Sealed; these handlers have not all returned.
        case firing(Firing)
        /// Sealed; every handler attached so far has returned: a new one runs at once.
        case settled
        /// Sealed with a failure no handler or read has received; freed so, it reports the
        /// failure as unhandled (unless it is a cancellation).
        case unobserved(any Error)
    }

    /// The handlers of a pending box.
    @usableFromInline
    enum Waiting: ~Copyable, Sendable {
        case none
        /// The usual case: the next link of a chain. Its lane is the core's `firstLane`.
        case one(Handler)
        case many(HandlerList)
    }

    /// The handlers of a firing box.
    @usableFromInline
    enum Firing: ~Copyable, Sendable {
        /// One handler, not started yet; its lane is the core's `firstLane`.
        case one(Handler)
        /// The sealing thread, of tag `sealer`, runs the only handler, of lane `firstLane`.
        case runningFirst(sealer: UInt64)
        /// Several handlers, or handlers attached while firing: the list keeps who runs what.
        case many(HandlerList)
    }
}

extension AnyBox.Core {
    /// What sealing leaves to do after the lock (see ``EmptyBox/seal(_:)``): whether to fire the
    /// box; the `onCancel` hooks, to release or run; the upstream, no longer depended on.
    @usableFromInline
    typealias Sealed = (fires: Bool, hooks: [@Sendable () -> Void]?, upstream: Upstream?)

    /// Whether the box is pending and started, so that sealing it counts.
    @usableFromInline
    var isSealable: Bool {
        switch state {
        case .pending: true
        case .orphaned: true
        case .unstarted: false
        case .firing: false
        case .settled: false
        case .unobserved: false
        }
    }

    /// Whether the box is not sealed yet.
    var isPending: Bool {
        switch state {
        case .unstarted: true
        default: isSealable
        }
    }

    /// A read of the box's result: a failure counts as seen.
    mutating func observe() {
        switch exchange(&state, with: .settled) {
        case .unobserved: break
        case let other: state = other
        }
    }

    /// Moves a pending box, just sealed, to `firing` when handlers wait, else to `settled`
    /// (`unobserved` for a failure, `error`, nothing waits for); `nil` when it is not pending.
    @usableFromInline
    mutating func settle(unobserved error: (any Error)?) -> Sealed? {
        let waiting: AnyBox.Waiting
        switch exchange(&state, with: .settled) {
        case .pending(let pending): waiting = pending
        case .orphaned(let orphaned): waiting = orphaned
        case let other:
            state = other
            return nil
        }
        do {
            let upstream = upstream.take()
            switch consume waiting {
            case .one(let handler):
                state = .firing(.one(handler))
                return (fires: true, hooks: nil, upstream: upstream)
            case .many(let list):
                var hooks: [@Sendable () -> Void] = []
                swap(&hooks, &list.hooks)
                if list.stored > 0 {
                    state = .firing(.many(list))
                    return (fires: true, hooks: hooks, upstream: upstream)
                }
                if let error { state = .unobserved(error) }
                return (fires: false, hooks: hooks, upstream: upstream)
            case .none:
                if let error { state = .unobserved(error) }
                return (fires: false, hooks: nil, upstream: upstream)
            }
        }
    }
}
