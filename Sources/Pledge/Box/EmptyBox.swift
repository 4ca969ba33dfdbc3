import Synchronization

/// A box that starts pending, stores handlers, and is sealed exactly once.
///
/// Its handlers and its value are guarded by a lock bit in the box's atomic state word (see
/// ``SpinLock`` for why a spin lock). Every transition below takes the lock, changes the state,
/// drops the lock with a release store that also publishes the new phase, and returns what the
/// caller must do next; no transition runs a handler or any other user code.
///
/// - ``store(_:lane:sealing:)``: attaching. Pending: the handler is kept. Firing: it is kept, and the
///   caller learns whether it must run its own lane's handlers itself (see
///   ``Box/attach(_:_:)``). Settled: the caller gets the handler back, to run at once.
/// - ``seal(_:)``: writes the value; the box becomes `firing` when handlers wait, else
///   `settled`. ``sealTakingFirst(_:)`` also takes the first handler.
/// - ``claimNext(as:finished:)``: a runner gives back the lane of the handler it finished and
///   takes its next one; the box settles once nothing is stored and nothing runs.
/// - ``remove(target:)``: takes back a handler that has not started.
///
/// A sealed box stays `firing` until its last handler has returned, so a handler attached while
/// an earlier one of the same thread still runs (or is about to) waits its turn (see
/// ``StateWord`` on lanes).
///
/// Field types are chosen so that the unspecialised `deinit` needs no generic metadata lookup:
/// `value` has the bare generic type `R` and `Handlers` has a fixed layout. A pending box
/// therefore holds a placeholder value, never read (see ``pendingPlaceholder()``).
///
/// Not final: ``ChainedBox`` extends it with the operation that resolves it, so that the box of
/// a chaining operator is also the handler it attaches.
@usableFromInline
class EmptyBox<R: Sendable>: Box<R>, @unchecked Sendable {
    // Safety: `handlers` is read and written only while the lock bit is held; the acquire and
    // release orderings of taking and dropping it order every access (and ThreadSanitizer
    // models them). The dynamic exclusivity check is off because the lock already guarantees
    // exclusivity.
    @exclusivity(unchecked)
    @usableFromInline
    final var handlers = Handlers()

    deinit {
        // A box is freed pending, settled, or unobserved (a firing box is kept alive by its loop).
        let phase = state.load(ordering: .relaxed) & BoxPhase.mask
        if phase != BoxPhase.settled {
            // The upstream link is not a reference: it must not be released as the
            // placeholder's error (see `linkWord`).
            if phase == BoxPhase.pending { linkWord = 0 } else { reportUnhandledRejection() }
        }
        // A box freed unsealed (abandoned) still holds the placeholder, whose destruction
        // releases nothing, and its handlers, which own the rest of its chain: those are
        // released iteratively (see `Teardown`). A sealed box has none left.
        if !handlers.isEmpty {
            // Those handlers will never run: let their targets drop what they kept for them.
            handlers.abandonTargets(from: ObjectIdentifier(self))
            var abandoned = Handlers()
            swap(&abandoned, &handlers)
            // Moved, not copied: no reference may stay behind in this frame, or releasing it
            // here would recurse after all.
            Teardown.park(consume abandoned)
        }
    }

    @usableFromInline
    override final func cancelStep(_ reason: CancelReason) -> AnyBox? {
        cancelAndFire(reason)
    }

    @usableFromInline
    override final func takeUpstream() -> AnyBox? {
        lockedUpstream()
    }

    /// Whether the box was cancelled: sealed by ``cancelTransition(_:)``, not rejected by its
    /// producer with a cancellation error of its own.
    @usableFromInline
    override final var endedCancelled: Bool {
        // Once sealed, the value never changes, so any thread may read it without the lock; it
        // is read as a value, not through `linkWord`, whose access is a modifying one.
        phase != BoxPhase.pending && ((value as? any CancellableOutcome)?.isWrittenByCancel ?? false)
    }

    /// Forgets the upstream (see ``linkWord``); ``ChainedBox`` also drops its operation.
    @usableFromInline
    override func abandon(from source: ObjectIdentifier) {
        unlink()
    }

    /// Makes a pending box; `placeholder` fills the value slot until the box is sealed and is
    /// never read. It must be ``pendingPlaceholder()``: sealing writes over it without
    /// destroying it.
    @inlinable
    init(placeholder: R) {
        super.init(value: placeholder, phase: BoxPhase.pending)
    }

    /// Makes a box born sealed with the failure `value`, ``BoxPhase/unobserved`` (see
    /// ``bornSealed(_:)``).
    @inlinable
    init(unobserved value: R) {
        super.init(value: value, phase: BoxPhase.unobserved)
    }

    /// Runs the body of a ``LazyBox`` whose first handler the calling thread just stored (see
    /// ``StoreOutcome/start``); only a lazy box is ever told to. Not under any lock.
    @usableFromInline
    func startBody() {}

    /// Releases the body of a ``LazyBox`` cancelled before it started; only a lazy box is ever
    /// told to. Not under any lock: releasing the body's captures may run user code.
    @usableFromInline
    func discardBody() {}

    /// Takes the lock bit.
    ///
    /// - Returns: the state word at the time the lock was taken, which cannot change until
    ///   ``unlock(_:)``.
    @inlinable @inline(__always)
    final func lock() -> StateWord {
        StateWord(raw: state.takeLockBit(BoxPhase.lockBit))
    }

    /// Drops the lock bit and publishes the state word `word`, with release ordering.
    @inlinable @inline(__always)
    final func unlock(_ word: StateWord) {
        state.store(word.raw, ordering: .releasing)
    }

    /// What the caller of ``store(_:lane:sealing:)`` must do next.
    @usableFromInline
    enum StoreOutcome: ~Copyable {
        /// Nothing: the handler is stored, and whoever runs the box's handlers will run it.
        case stored
        /// The box fires and no thread runs the caller's lane: the handler is stored, and the
        /// caller must run its lane's handlers itself (see ``Box/attach(_:_:)``).
        case help
        /// Run the handler, given back, at once: the box has settled.
        case settled(Handler)
        /// The handler is stored, and it is the first one of a ``LazyBox``: the caller must start
        /// the box's body (``startBody()``) once it has dropped every lock it holds.
        case start
    }

    /// Attaches `handler`, of lane `lane` (the calling thread's tag), unless the box has
    /// settled (see ``StoreOutcome``). `sealing` is the calling thread's
    /// ``ThreadRunState/sealing``.
    @inlinable @inline(__always)
    final func store(_ handler: consuming Handler, lane: UInt32, sealing: ObjectIdentifier?) -> StoreOutcome {
        var word = lock()
        if word.phase == BoxPhase.pending {
            handlers.append(handler, lane: lane, &word)
            // Only a lazy box not yet started has the top bit: the one test the hot path pays.
            if word.raw >= BoxPhase.notStarted {
                word.raw &= ~BoxPhase.notStarted
                unlock(word)
                return .start
            }
            unlock(word)
            return .stored
        }
        return storeAfterSealing(handler, lane: lane, sealing: sealing, word)
    }

    /// ``store(_:lane:sealing:)`` on a sealed box, whose lock `word` holds. Kept out of line:
    /// rare.
    @inlinable @inline(never)
    final func storeAfterSealing(
        _ handler: consuming Handler, lane: UInt32, sealing: ObjectIdentifier?, _ locked: StateWord
    ) -> StoreOutcome {
        var word = locked
        if word.phase != BoxPhase.firing {
            // Settled: this handler receives the value, so an unobserved failure is now seen.
            word.markSeen()
            unlock(word)
            return .settled(handler)
        }
        // Firing: kept in the list, where every handler has its lane and helping threads are
        // recorded.
        let list = handlers.makeList(&word)
        list.append(HandlerList.Entry(handler, lane: lane))
        let outcome: StoreOutcome
        if sealing == ObjectIdentifier(self) {
            // Attached from inside one of the box's handlers by the loop that runs them: it
            // takes this one in its turn, after those attached before.
            outcome = .stored
        } else if lane == word.runningLane {
            // The sealing thread's loop runs this lane now: it takes this one next.
            list.preferred = lane
            outcome = .stored
        } else if list.helping.contains(lane) {
            // This thread is helping already, further out: it takes this one next.
            outcome = .stored
        } else {
            outcome = .help
        }
        unlock(word)
        return outcome
    }

    /// Seals the box with `newValue`, unless it is sealed already.
    ///
    /// - Returns: whether handlers are due: the box is now `firing`, and the caller must run
    ///   them (see ``EmptyBox/fireStep(_:)``). `false` when the box has settled with none, or was
    ///   sealed before.
    @inlinable @inline(__always)
    final func seal(_ newValue: R) -> Bool {
        guard var word = lockIfPending(writing: newValue) else { return false }
        let due = !handlers.isEmpty
        if due, Box.restingPhase(for: newValue) == BoxPhase.unobserved, restUnobservedIfOnlyHooks(word) { return false }
        // The inline handler's lane stays in the word.
        word.raw = word.raw & ~BoxPhase.mask | (due ? BoxPhase.firing : Box.restingPhase(for: newValue))
        unlock(word)
        return due
    }

    /// ``seal(_:)``, taking the first handler for the sealing thread's loop in the same critical
    /// section: for a caller that runs the box's handlers at once, before anything else (see
    /// ``resolve(_:)``). One that hands back a step must not: the step may wait while other
    /// handlers of its run attach to the box, and a handler taken early would let them overtake
    /// it.
    ///
    /// - Returns: the first handler, to call and then run the rest (see
    ///   ``runHandlers(of:as:_:_:)``); `nil` when none is due.
    @inlinable @inline(__always)
    final func sealTakingFirst(_ newValue: R) -> Claim? {
        guard var word = lockIfPending(writing: newValue) else { return nil }
        let resting = Box.restingPhase(for: newValue)
        if resting == BoxPhase.unobserved, !handlers.isEmpty, restUnobservedIfOnlyHooks(word) { return nil }
        // No thread can be helping yet: helping starts only once the box fires.
        var first = handlers.takeInline(&word)
        if first == nil, let entry = handlers.list?.takeFirst(where: { _ in true }) { first = Claim(entry) }
        guard let claim = first else {
            unlock(StateWord(phase: resting))
            return nil
        }
        word.raw = word.raw & ~BoxPhase.mask | BoxPhase.firing
        word.runningLane = claim.lane
        unlock(word)
        return claim
    }

    /// For a box just written a failure, its lock held in `word`, with handlers stored: when
    /// they are all `onCancel` hooks, takes them out, publishes ``BoxPhase/unobserved`` (which
    /// reports the failure if nothing sees it) and releases them after the lock. A hook is no
    /// dependent, and runs only for a cancellation, which a seal never is. Kept out of line:
    /// rare.
    ///
    /// - Returns: whether it did, and dropped the lock; `false`, the lock still held, when a
    ///   dependent waits.
    @usableFromInline @inline(never)
    final func restUnobservedIfOnlyHooks(_ word: StateWord) -> Bool {
        guard !handlers.hasDependents else { return false }
        var hooks = Handlers()
        swap(&hooks, &handlers)
        unlock(StateWord(phase: BoxPhase.unobserved))
        // Released here, after the lock: a hook's captures are user code.
        _ = consume hooks
        return true
    }

    /// Takes the lock and, when the box is pending, writes `newValue` into it and returns with
    /// the lock held, for the caller to publish the new phase with ``unlock(_:)``.
    ///
    /// - Returns: the state word, the lock held; `nil`, with the lock dropped, when the box was
    ///   sealed already.
    @inlinable @inline(__always)
    final func lockIfPending(writing newValue: R) -> StateWord? {
        let word = lock()
        guard word.phase == BoxPhase.pending else {
            unlock(word)
            return nil
        }
        // Written over the placeholder without destroying it, which would do nothing (see
        // `pendingPlaceholder()`).
        // Safety: `value` is a stored property of this object, so the pointer is its storage,
        // and the lock gives this thread exclusive access to it.
        withUnsafeMutablePointer(to: &value) { $0.initialize(to: newValue) }
        return word
    }

    /// Who runs a firing box's handlers.
    @usableFromInline
    enum Runner {
        /// The loop of the thread that sealed the box (or the step it handed back): it takes
        /// handlers of any lane no helping thread is running.
        case sealer
        /// A thread that attached to the box while it fired, and runs only its own lane (see
        /// ``Box/attach(_:_:)``).
        case helper(lane: UInt32)
    }

    /// Takes the next handler `runner` may run, once it has finished the one of lane
    /// `finished` (0 for none), whose lane is then free again. The box settles once no handler
    /// is stored and none is running.
    ///
    /// A lane's handlers are taken in attachment order, and only while no other runner runs one
    /// of the same lane: so a thread's handlers start in the order it attached them, each after
    /// the one before has returned, whichever threads run them.
    ///
    /// - Returns: the handler and its lane; `nil` when `runner` has nothing more to run.
    @inlinable @inline(__always)
    final func claimNext(as runner: Runner, finished: UInt32) -> Claim? {
        var word = lock()
        guard word.phase == BoxPhase.firing else {
            // Settled already: a helper ran the last handlers before this loop began.
            unlock(word)
            return nil
        }
        if case .sealer = runner {
            word.runningLane = 0
            if let claim = handlers.takeInline(&word) {
                // No list, so no thread is helping.
                word.runningLane = claim.lane
                unlock(word)
                return claim
            }
            if handlers.isEmpty {
                // The usual end: nothing stored, and with no list no thread is helping.
                unlock(StateWord(phase: BoxPhase.settled))
                return nil
            }
        }
        return claimFromList(as: runner, finished: finished, word)
    }

    /// ``claimNext(as:finished:)`` when the handlers are in a list, or there are none; `word`
    /// holds the lock.
    @inlinable
    final func claimFromList(as runner: Runner, finished: UInt32, _ locked: StateWord) -> Claim? {
        var word = locked
        guard let list = handlers.list else {
            // Nothing stored, and only the sealing thread's loop could have been running.
            unlock(StateWord(phase: BoxPhase.settled))
            return nil
        }
        switch runner {
        case .sealer:
            if let entry = list.takeForSealer(finished: finished) {
                word.runningLane = entry.lane
                unlock(word)
                return Claim(entry)
            }
        case .helper(let lane):
            if finished != 0, let index = list.helping.firstIndex(of: finished) {
                list.helping.remove(at: index)
            }
            if word.runningLane != lane, let entry = list.takeFirst(of: lane) {
                list.helping.append(lane)
                unlock(word)
                return Claim(entry)
            }
        }
        if list.isEmpty, list.helping.isEmpty, word.runningLane == 0 {
            // Nothing stored and nothing running: settled. The list, empty, goes.
            handlers = Handlers()
            unlock(StateWord(phase: BoxPhase.settled))
        } else {
            // The handlers left are for runners that are busy now, and will take them.
            unlock(word)
        }
        return nil
    }

    /// Whether a handler is stored (attached, and not yet taken to run or taken back).
    final var hasHandlers: Bool {
        let word = lock()
        let stored = handlers.hasStored
        unlock(word)
        return stored
    }

    /// Takes back the handler attached with `target`, unless it has started.
    ///
    /// - Returns: the handler, for the caller to release after the lock; `nil` when it has
    ///   started (or was never attached).
    @inlinable
    final func remove(target: AnyObject) -> Handler? {
        var word = lock()
        let removed = handlers.remove(target: target, &word)
        unlock(word)
        return removed
    }
}

extension Claim {
    /// A handler the list held.
    @inlinable @inline(__always)
    init(_ entry: HandlerList.Entry) {
        self.init(Handler(target: entry.target, function: entry.function), lane: entry.lane)
    }
}

/// The value a pending box holds until it is sealed, never read: a failure whose error
/// reference is null.
///
/// A pending box must hold some value of its generic type, and Pledge has no value of an
/// arbitrary `T` to put there. A failure needs only an error, and this one is the null
/// reference, which costs nothing to make, copy or destroy: `swift_retain` and `swift_release`
/// return at once for null, so freeing an unsealed box needs no special case.
///
/// `Result` is laid out by the runtime's rule for two cases with payloads: the larger payload,
/// then a tag byte, for every `T` (`AbandonedCaptureTests` frees pending boxes of many layouts).
/// So this value is a null reference with the failure tag, and copying or destroying it only
/// ever passes null to the runtime. Sealing (``EmptyBox/lockIfPending(writing:)``) writes the
/// real value over it without destroying it. Reflection never sees it: promises, guarantees and
/// resolvers show their state to `dump` and `Mirror`, not their box.
@inlinable @inline(__always)
func pendingPlaceholder<T>() -> Result<T, Error> {
    // Safety: `any Error` is one reference, here the null one. Only the value-witness copy and
    // destroy of `Result` ever see it (see above), never code that would read the error: a
    // box's value is read only once its phase has left `pending`, after the real value was
    // written over this one.
    .failure(unsafeBitCast(0 as UInt, to: (any Error).self))
}

/// Makes a pending box for a promise or a guarantee.
@inlinable
func pendingBox<T>() -> EmptyBox<Result<T, Error>> {
    EmptyBox(placeholder: pendingPlaceholder())
}
