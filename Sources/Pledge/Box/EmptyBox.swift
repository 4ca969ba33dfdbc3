import Synchronization

/// A box that starts pending, stores handlers, and is sealed exactly once.
///
/// Its mutable state is one ``AnyBox/Core`` behind one ``Lock``. Every transition is a mutating
/// method of `Core`, run inside `withLock`: it moves the state out, puts the next one in, and
/// returns what the caller must do after the lock. None runs a handler or any other user code,
/// and none takes a second lock.
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
/// `deinit` of a box of any type, run without looking up generic types. Not final:
/// ``ChainedBox`` extends it with the operation that resolves it.
@usableFromInline
class EmptyBox<R>: Box<R>, @unchecked Sendable {
    // Safety: every mutable field but `value` is in `core`, behind its lock; `value` is written
    // as `Box` says.

    @usableFromInline
    final let core: Lock<Core>

    /// A pending box for a promise made at `site` (see ``Box/init(value:isSealedBox:sealed:site:)``),
    /// depending on `upstream` (see ``Upstream``).
    @inlinable
    init<T>(site: SourceSite?, upstream: Upstream? = nil) where R == Result<T, Error> {
        core = Lock(Core(.pending(.none), upstream: upstream))
        super.init(value: .failure(PMKError.cancelledError), isSealedBox: false, outcome: .pending, site: site)
    }

    /// A box born sealed with the failure `result`, which it reports if nothing sees it.
    @inlinable
    init<T>(unobserved error: any Error, site: SourceSite?) where R == Result<T, Error> {
        core = Lock(Core(.unobserved(error)))
        super.init(value: .failure(error), isSealedBox: false, outcome: .rejected, site: site)
    }

    /// A lazy box (see ``Promise/lazy(_:file:line:)``): its first attachment starts `body`,
    /// which is given the box, in a run; cancelled first, or never attached to, it releases
    /// `body` unrun.
    @inlinable
    init<T>(site: SourceSite?, lazy body: @escaping @Sendable (AnyBox) -> Void) where R == Result<T, Error> {
        core = Lock(Core(.unstarted(body)))
        super.init(value: .failure(PMKError.cancelledError), isSealedBox: false, outcome: .pending, site: site)
    }

    deinit {
        // Fulfilled or cancelled, a box has settled: its handlers have all run (a firing box is
        // held by the run firing it), and it reports nothing.
        switch outcome.load(ordering: .acquiring) {
        case .fulfilled, .cancelled: return
        case .pending, .rejected: break
        }
        let state = core.withLock { core in exchange(&core.state, with: .settled) }
        switch consume state {
        case .settled:
            return
        case .unobserved(let error):
            if !error.isCancelled { conf.log(.unhandledRejection(error, site: creationSite)) }
        case .pending(let waiting):
            #if DEBUG
                conf.pending.record(self, .ended)
            #endif
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
        case .unstarted(let body):
            #if DEBUG
                conf.pending.record(self, .ended)
            #endif
            // The body may own the rest of a chain of lazy promises.
            ThreadRun.release(consume body)
        case .firing:
            break
        }
    }

    @usableFromInline
    override func isSealed(observing: Bool) -> Bool {
        if isPending { return false }
        if observing { core.withLock { $0.observe() } }
        return true
    }

    @usableFromInline
    override func store(_ handler: Handler, lane: UInt64, thread: UInt64) -> Attachment {
        core.withLock { core in
            switch exchange(&core.state, with: .settled) {
            case .pending(let waiting):
                let orphanedHandler: Handler? = core.orphaned ? handler : nil
                switch consume waiting {
                case .none:
                    core.state = .pending(.one(handler))
                    core.firstLane = lane
                case .one(let first):
                    core.state = .pending(.many(HandlerList([(first, core.firstLane), (handler, lane)])))
                case .many(let list):
                    list.append(handler, lane: lane)
                    core.state = .pending(.many(list))
                }
                if let orphanedHandler { return .storedOrphaned(orphanedHandler) }
                return .stored
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
        }
    }

    /// Seals the box with `result`, unless it is sealed already.
    ///
    /// - Returns: the work that fires the box when handlers are due, for the caller to do.
    @inlinable
    final func seal<T>(_ result: Result<T, Error>) -> Work? where R == Result<T, Error> {
        let failure: (any Error)? = if case .failure(let error) = result { error } else { nil }
        let sealed = core.withLock { core -> Core.Sealed? in
            guard let sealed = core.settle(unobserved: failure) else { return nil }
            // Stored before `outcome` publishes it, and before the lock, which handlers are
            // claimed under, is dropped.
            value = result
            outcome.store(failure == nil ? .fulfilled : .rejected, ordering: .releasing)
            return sealed
        }
        guard let sealed else { return nil }
        #if DEBUG
            conf.pending.record(self, .ended)
        #endif
        // The hooks run only for a cancellation; their captures are user code, so they go now,
        // after the lock, with the upstream.
        extendLifetime(sealed)
        return sealed.fires ? .fire(self) : nil
    }

    /// Seals the box with `result` and runs its handlers, and the chain they lead to, before
    /// returning (or, nested too deep, leaves them to the running loop): what resolving a promise
    /// does. Sealing a box that is sealed already does nothing.
    @inlinable
    final func resolve<T>(_ result: Result<T, Error>) where R == Result<T, Error> {
        if let work = seal(result) { ThreadRun.run(work) }
    }

    /// Runs the handlers the calling thread may run, one at a time, each claimed under the lock,
    /// until none is left for it (see ``HandlerList``). Of the work they make due, the first is
    /// handed back to do next and the rest goes on `later`, to follow it, in order.
    override final func fire(helping lane: UInt64?, scheduling later: inout [Work]) -> Work? {
        let runner = lane ?? 0
        let sealer = ThreadRun.tag
        var due: Work? = nil
        var finished: UInt64 = 0
        // Takes the next handler for this runner once it has finished one of lane `finished`: for
        // the sealing thread (runner 0), any lane no helper runs; for a helper, its own lane. The
        // box settles once nothing is stored and nothing runs.
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
    override final func cancel(_ reason: CancelReason) -> AnyBox? {
        cancelTransition(reason)
    }

    /// How many handlers a pending box stores: for debug descriptions and tests.
    final var storedHandlers: Int {
        core.withLock { core in
            switch core.state {
            case .pending(.one): 1
            case .pending(.many(let list)): list.stored
            default: 0
            }
        }
    }
}

// A box's mutable state and its transitions, all under the box's lock. Not generic: the handlers
// a box stores are the same whatever its value type (see `Handler`), so the transitions and the
// `deinit` of a box of any type run without looking up generic types.

extension AnyBox {
    /// Everything about an ``EmptyBox`` that changes, kept together behind its ``Lock``.
    @usableFromInline
    struct Core: ~Copyable, Sendable {
        /// Where the box is in its life, and its handlers.
        var state: State
        /// The lane of the thread that attached the box's first handler (see ``HandlerList``):
        /// the one `state` keeps inline.
        var firstLane: UInt64 = 0
        /// Whether nothing but a cancellation can resolve the box any more (see ``Link``). Read
        /// only while pending.
        var orphaned = false
        /// The promise this one depends on while pending (see ``Upstream``): a ``ChainedBox``'s
        /// input, or the promise it follows.
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
        /// Sealed; these handlers have not all returned.
        case firing(Firing)
        /// Sealed; every handler attached so far has returned: a new one runs at once.
        case settled
        /// Sealed with a failure no handler has received yet. The first handler or read makes
        /// it `settled`; freed in this state, it reports the failure as unhandled (unless it
        /// is a cancellation).
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
    /// What sealing leaves to do after the lock (see ``EmptyBox/seal(_:)``): whether handlers
    /// wait, so that the box must be fired; the `onCancel` hooks, released unrun; the upstream,
    /// which the box no longer depends on.
    @usableFromInline
    typealias Sealed = (fires: Bool, hooks: [@Sendable () -> Void]?, upstream: Upstream?)

    /// Whether the box is pending and started, so that sealing it counts.
    @usableFromInline
    var isSealable: Bool {
        switch state {
        case .pending: true
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
        case .pending: true
        case .firing: false
        case .settled: false
        case .unobserved: false
        }
    }

    /// A read of the box's result: a failure counts as seen.
    mutating func observe() {
        switch exchange(&state, with: .settled) {
        case .unobserved: break
        case let other: state = other
        }
    }

    /// Moves a pending box, just sealed, out of `pending`: to `firing` when handlers wait, else to
    /// `settled` (`unobserved` for a failure, `error`, that nothing waits for). `nil`, and no
    /// change, when the box is not pending.
    @usableFromInline
    mutating func settle(unobserved error: (any Error)?) -> Sealed? {
        switch exchange(&state, with: .settled) {
        case .pending(let waiting):
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
        case let other:
            state = other
            return nil
        }
    }

}
