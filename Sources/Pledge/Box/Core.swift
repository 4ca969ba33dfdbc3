// A box's mutable state and its transitions, all under the box's lock (see `EmptyBox`). Not
// generic: the handlers a box stores are the same whatever its value type (see `Handler`), so the
// transitions and the `deinit` of a box of any type run without looking up generic types.

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

extension AnyBox.Core.Sealed {
    /// The work that fires `box`, when handlers wait.
    @usableFromInline
    func work(for box: AnyBox) -> Work? {
        fires ? .fire(box) : nil
    }
}

extension AnyBox.Core {
    /// What sealing leaves to do after the lock (see ``EmptyBox/finish(_:)``).
    @usableFromInline
    struct Sealed: Sendable {
        /// Whether handlers wait, so that the box must be fired.
        let fires: Bool
        /// The `onCancel` hooks, released unrun.
        let hooks: [@Sendable () -> Void]?
        /// The upstream, which the box no longer depends on.
        let upstream: Upstream?
    }

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

    /// Moves a box just sealed out of `pending`: to `firing` when handlers wait, else to
    /// `settled` (`unobserved` for a failure, `error`, that nothing waits for).
    @usableFromInline
    mutating func settle(unobserved error: (any Error)?) -> Sealed {
        let upstream = upstream.take()
        switch exchange(&state, with: .settled) {
        case .pending(let waiting):
            switch consume waiting {
            case .one(let handler):
                state = .firing(.one(handler))
                return Sealed(fires: true, hooks: nil, upstream: upstream)
            case .many(let list):
                var hooks: [@Sendable () -> Void] = []
                swap(&hooks, &list.hooks)
                if list.stored > 0 {
                    state = .firing(.many(list))
                    return Sealed(fires: true, hooks: hooks, upstream: upstream)
                }
                if let error { state = .unobserved(error) }
                return Sealed(fires: false, hooks: hooks, upstream: upstream)
            case .none:
                if let error { state = .unobserved(error) }
                return Sealed(fires: false, hooks: nil, upstream: upstream)
            }
        case let other:
            // Callers check `isSealable` first.
            state = other
            return Sealed(fires: false, hooks: nil, upstream: upstream)
        }
    }

    /// Stores `handler` of lane `lane`, attached by the thread of tag `thread`, or says what to
    /// do instead (see ``Attachment``).
    mutating func store(_ handler: consuming Handler, lane: UInt64, thread: UInt64) -> Attachment {
        switch exchange(&state, with: .settled) {
        case .pending(let waiting):
            let orphanedHandler = orphaned ? copy handler : nil
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
            return orphanedHandler.map { .storedOrphaned($0) } ?? .stored
        case .unstarted(let body):
            state = .pending(.one(handler))
            firstLane = lane
            return .start(body)
        case .settled:
            return .run(handler)
        case .unobserved:
            // The handler receives the result: a failure counts as seen.
            return .run(handler)
        case .firing(let firing):
            let list: HandlerList
            switch consume firing {
            case .one(let stored): list = HandlerList([(stored, firstLane)])
            case .runningFirst(let sealer): list = HandlerList(sealerRunning: firstLane, sealer: sealer)
            case .many(let existing): list = existing
            }
            state = .firing(.many(list))
            return list.attachWhileFiring(handler, lane: lane, from: thread)
        }
    }

    /// Takes the next handler for a runner once it has finished one of lane `finished`: for the
    /// sealing thread (`helper` 0, whose tag is `sealer`), any lane no helper runs; for a helper,
    /// its own lane. The box settles once nothing is stored and nothing runs.
    mutating func claim(_ helper: UInt64, sealer: UInt64, finished: UInt64) -> HandlerList.Entry? {
        switch exchange(&state, with: .settled) {
        case .firing(let firing):
            switch consume firing {
            case .one(let handler):
                if helper == 0 {
                    state = .firing(.runningFirst(sealer: sealer))
                    return (handler, firstLane)
                }
                // Only the sealing thread takes the one handler; a helper always finds a list.
                state = .firing(.one(handler))
                return nil
            case .runningFirst:
                // The sealing thread's only handler has returned: settled.
                return nil
            case .many(let list):
                let next = helper == 0 ? list.claimForSealer(sealer, finished: finished) : list.claimForHelper(helper)
                if next != nil || !list.isIdle { state = .firing(.many(list)) }
                return next
            }
        case let other:
            state = other
            return nil
        }
    }

    /// Marks a pending box orphaned (see ``Link``) and hands back its handlers, to be told.
    mutating func orphan() -> [Handler] {
        guard !orphaned else { return [] }
        switch exchange(&state, with: .settled) {
        case .pending(let waiting):
            orphaned = true
            switch consume waiting {
            case .none:
                state = .pending(.none)
                return []
            case .one(let handler):
                state = .pending(.one(handler))
                return [handler]
            case .many(let list):
                state = .pending(.many(list))
                return list.handlers
            }
        case let other:
            state = other
            return []
        }
    }
}
