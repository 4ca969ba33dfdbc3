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
                conf.pending.remove(self)
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
                conf.pending.remove(self)
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
    override func store(_ handler: consuming Handler, lane: UInt64, thread: UInt64) -> Attachment {
        let handler = handler
        return core.withLock { $0.store(handler, lane: lane, thread: thread) }
    }

    /// Seals the box with `result`, unless it is sealed already.
    ///
    /// - Returns: the work that fires the box when handlers are due, for the caller to do.
    @inlinable
    final func seal<T>(_ result: Result<T, Error>) -> Work? where R == Result<T, Error> {
        let failure: (any Error)? = if case .failure(let error) = result { error } else { nil }
        let sealed: Core.Sealed? = core.withLock { core in
            guard core.isSealable else { return nil }
            value = result
            outcome.store(failure == nil ? .fulfilled : .rejected, ordering: .releasing)
            return core.settle(unobserved: failure)
        }
        return finish(sealed)
    }

    /// What a seal leaves to do after the lock: take the box off the pending list, drop its
    /// `onCancel` hooks and its upstream, and hand back the work that fires it.
    @usableFromInline
    final func finish(_ sealed: consuming Core.Sealed?) -> Work? {
        guard let sealed else { return nil }
        #if DEBUG
            conf.pending.remove(self)
        #endif
        // The hooks run only for a cancellation; their captures are user code, so they go now,
        // after the lock, with the upstream.
        extendLifetime(sealed)
        return sealed.work(for: self)
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
        var next = core.withLock { $0.claim(runner, sealer: sealer, finished: 0) }
        while case .some(let (handler, lane)) = consume next {
            if let work = handler.receive(from: self) {
                if case .none = due { due = work } else { later.append(work) }
            }
            next = core.withLock { $0.claim(runner, sealer: sealer, finished: lane) }
        }
        return due
    }

    @usableFromInline
    override final func cancel(_ reason: CancelReason) -> AnyBox? {
        cancelTransition(reason)
    }

    /// This box's producer is gone (its resolver, the box it waits on, …): nothing can resolve it
    /// now but a cancellation. Its dependents are told, so that their references to it become
    /// weak and an abandoned chain is freed as soon as nobody holds it (see ``Upstream``).
    @usableFromInline
    final func orphan() {
        let dependents = core.withLock { $0.orphan() }
        for handler in dependents { handler.orphaned(self) }
    }

    /// Keeps only a weak reference to `upstream`, which nothing can resolve any more but a
    /// cancellation, if this box still depends on it (see ``Upstream``).
    @usableFromInline
    final func weaken(_ upstream: AnyBox) {
        let strong = core.withLock { $0.upstream.weaken(upstream) }
        // After the lock, from a loop: it may be the last reference to `upstream`.
        if let strong { ThreadRun.release(strong) }
    }

    /// Forgets the box this one depends on: its result is in hand, so it can no longer be
    /// cancelled through this one.
    @usableFromInline
    final func unlink() {
        // Its input is sealed: letting go of it frees no chain.
        _ = core.withLock { $0.upstream.take() }
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
