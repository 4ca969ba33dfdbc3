/// The part of a pulling fan-in that handlers may capture: its state and the box it resolves.
/// ``FanIn`` adds the iterator, whose type need not be `Sendable`.
///
/// ## State machine
/// Everything shared is in ``State``, touched only inside ``withState(_:)``, under one ``Lock``.
/// Each transition returns what must happen next (``Next``), done after the lock: neither user
/// code (the iterator's `next()`, the result's handlers) nor a box's firing runs under it.
///
/// ## Pulling
/// One thread at a time owns the iterator: the one that set `pulling` under the lock. It pulls
/// while fewer than `limit` inputs are outstanding and the fan-in has not finished, then gives up
/// ownership in the critical section that found it must stop. A thread delivering an outcome that
/// finds the iterator unowned, not exhausted and below the limit takes ownership and pulls. So no
/// wake-up is lost, at most `limit` inputs are outstanding, and inputs already resolved are
/// consumed by the owner's loop, not by recursion.
///
/// The iterator goes, outside the lock (its `deinit` may run user code), once no pull can
/// follow: when it returns `nil`, or when the fan-in finishes, which keeps its owner for good
/// (a rejection or cancellation that finds no owner takes ownership to drop it). Until then the
/// fan-in keeps it, and each outstanding input's handler keeps the fan-in: an iterator keeping
/// the thenables it returned (an array's, say) keeps one that never resolves, which keeps the
/// fan-in, in a cycle (documented on the public `when(…, concurrently:)`).
///
/// It costs one allocation, one handler per input, amortised appends and O(n) for the output.
@usableFromInline
class FanInCore<Mode: FanInMode>: @unchecked Sendable {
    // Safety: `state` is behind its lock; the other stored properties are immutable and
    // `Sendable`. `FanIn` documents its own state.

    /// The shared part of the fan-in.
    @usableFromInline
    struct State: Sendable {
        /// The outcome of each input pulled so far, in pull order; `nil` while it is pending.
        @usableFromInline var slots: [Mode.Slot?] = []
        /// Inputs pulled (or about to be attached) whose outcome has not arrived yet.
        @usableFromInline var outstanding = 0
        /// Whether some thread owns the iterator. The creator owns it at first.
        @usableFromInline var pulling = true
        /// Whether every input has been pulled: the iterator returned `nil`.
        @usableFromInline var exhausted = false
        /// Whether the box was (or is about to be) resolved; later outcomes are ignored.
        @usableFromInline var finished = false
        /// Each promise pulled whose outcome has not arrived, by index: its box (see ``Upstream``)
        /// and its receiver, to cancel it with the fan-in (``FanInCore/cancelInputs()``).
        @usableFromInline var inputs: [Int: (box: Upstream?, receiver: FanInInput<Mode>)] = [:]

        @inlinable
        init() {}
    }

    /// What a thread must do after a transition, outside the lock.
    @usableFromInline
    enum Next: Sendable {
        case nothing
        /// Reject the box; the slots, `dropped`, go with this value after the lock (a `deinit` is
        /// user code). With `ownsSource`, this thread took over an idle iterator, to drop it.
        case reject(Error, dropped: [Mode.Slot?], ownsSource: Bool)
        case fulfil([Mode.Slot?])
        case pull
    }

    /// Whether the owner of the iterator may pull another input.
    @usableFromInline
    enum PullVerdict {
        case more
        case atLimit
        case finished
    }

    @usableFromInline let state = Lock(State())

    /// The most inputs that may be outstanding at once.
    @usableFromInline let limit: Int

    /// Backs the promise or guarantee that the `when` call returned.
    @usableFromInline let box: EmptyBox<Result<Mode.Output, Error>>

    @inlinable
    init(limit: Int, site: SourceSite) {
        self.limit = limit
        box = EmptyBox(site: site)
    }

    /// No input can deliver and no pull can follow: a box still pending is orphaned.
    deinit { box.orphan() }

    @inlinable
    final func withState<Result>(_ body: (inout State) -> sending Result) -> sending Result {
        state.withLock { body(&$0) }
    }

    /// Pulls and attaches inputs, as the owner of the iterator; overridden by ``FanIn``.
    ///
    /// - Returns: the fan-in's box when this call sealed it and its handlers are due.
    @inlinable
    func pull() -> Work? { nil }

    /// Reserves the slot of an input about to be attached, and returns the input's index.
    @inlinable
    final func admit() -> Int {
        withState { state in
            state.outstanding += 1
            state.slots.append(nil)
            return state.slots.count - 1
        }
    }

    /// Keeps a link to the box of the promise pulled as input `index`, and the receiver attached
    /// to it, to cancel it with the fan-in.
    @usableFromInline
    final func keep(_ input: AnyBox, _ receiver: FanInInput<Mode>, at index: Int) {
        withState { $0.inputs[index] = (.strong(input), receiver) }
    }

    /// Input `index` is freed unresolved (it was orphaned first, so it is held weakly): the
    /// fan-in forgets it, and the receiver it attached, which holds the fan-in.
    @usableFromInline
    final func forget(_ index: Int) {
        let input = withState { $0.inputs.removeValue(forKey: index) }
        extendLifetime(input)
    }

    /// Input `index`, `source`, is orphaned (see ``Upstream``): keep only a weak reference to it.
    @usableFromInline
    final func weaken(_ index: Int, _ source: AnyBox) {
        let strong = withState { $0.inputs[index]?.box.weaken(source) ?? nil }
        if let strong { ThreadRun.release(strong) }
    }

    /// The fan-in's box was cancelled: stop pulling, let the iterator go, and cancel each input
    /// in flight that nothing else depends on.
    @usableFromInline
    final func cancelInputs() {
        let (inputs, ownsSource): ([(AnyBox, FanInInput<Mode>)], Bool) = withState { state in
            state.finished = true
            // Nobody owns the iterator while the fan-in waits at its limit: own it, to let it go.
            let ownsSource = !state.pulling && !state.exhausted
            if ownsSource { state.pulling = true }
            let alive = state.inputs.values.compactMap { input in input.box?.box.map { ($0, input.receiver) } }
            state.inputs = [:]
            return (alive, ownsSource)
        }
        if ownsSource { ThreadRun.run(pull(), deferrable: false) }
        for (input, receiver) in inputs { cancelInput(input, of: receiver) }
    }

    /// Records the outcome of input `index`, and resolves the box or pulls more when it is due.
    ///
    /// - Returns: the fan-in's box when this call sealed it and its handlers are due.
    @inlinable
    final func deliver(_ result: Result<Mode.Value, Error>, at index: Int) -> Work? {
        let settled = Mode.settle(result)
        let next: Next = withState { state in
            // Letting go of the input frees nothing: whoever delivers it holds it.
            state.inputs[index] = nil
            guard !state.finished else { return .nothing }
            state.outstanding -= 1
            switch settled {
            case .failure(let error):
                state.finished = true
                let dropped = exchange(&state.slots, with: [])
                // An iterator that nobody owns would otherwise stay until the fan-in goes, which
                // an input that never resolves delays for good: own it, to let it go at once.
                let ownsSource = !state.pulling && !state.exhausted
                if ownsSource { state.pulling = true }
                return .reject(error, dropped: dropped, ownsSource: ownsSource)
            case .success(let slot):
                state.slots[index] = slot
                if state.exhausted { return state.outstanding == 0 ? state.finish() : .nothing }
                if !state.pulling, state.outstanding < limit {
                    state.pulling = true
                    return .pull
                }
                return .nothing
            }
        }
        return perform(next)
    }

    /// Records, for the owner, that the iterator returned `nil`; does nothing once finished.
    ///
    /// - Returns: the step that fires the box when this call resolved it.
    @inlinable
    final func exhaust() -> Work? {
        perform(
            withState { state in
                guard !state.finished else { return .nothing }
                state.exhausted = true
                return state.outstanding == 0 ? state.finish() : .nothing
            })
    }

    /// Whether the owner of the iterator may pull again; at the limit, it gives up ownership.
    @inlinable
    final func verdict() -> PullVerdict {
        withState { state in
            if state.finished { return .finished }
            if state.outstanding >= limit {
                state.pulling = false
                return .atLimit
            }
            return .more
        }
    }

    @inlinable
    final func perform(_ next: Next) -> Work? {
        switch next {
        case .nothing: return nil
        // The dropped slots stay in `next`, which the caller holds until this returns: they are
        // released here, after the lock. Keep it that way.
        case .reject(let error, _, let ownsSource):
            let sealed = box.seal(.failure(error))
            // The fan-in has finished, so `pull` takes nothing more: it only lets the iterator go.
            if ownsSource { _ = pull() }
            return sealed
        case .fulfil(let slots):
            return box.seal(.success(Mode.collect(slots)))
        case .pull: return pull()
        }
    }
}

/// The fan-in behind `when(…, concurrently:)`: pulls thenables lazily from `source`, keeps their
/// outcomes in pull order, and resolves one box when the last one is in (or, in the fail-fast
/// modes, at the first rejection).
@usableFromInline
final class FanIn<Source: IteratorProtocol, Mode: FanInMode>: FanInCore<Mode>, @unchecked Sendable
where Source.Element: Thenable, Source.Element.T == Mode.Value {
    // Safety: `source` is touched only by the thread that owns the iterator (see "Pulling" in
    // `FanInCore`): ownership is taken and given up under the state's lock, which orders every
    // use of `source` after the previous owner's last one.
    @usableFromInline var source: Source?

    @inlinable
    init(source: Source, limit: Int, site: SourceSite) {
        self.source = source
        super.init(limit: limit, site: site)
    }

    /// Pulls and attaches inputs until the iterator is exhausted, the limit is reached or the
    /// fan-in has finished. Only the owner of the iterator calls it.
    @inlinable
    override func pull() -> Work? {
        // A rejection may have finished the fan-in since this thread became the owner: then pull
        // nothing, and let the iterator go (see "Pulling" in `FanInCore`).
        if withState({ $0.finished }) {
            source = nil
            return nil
        }
        while true {
            guard let input = source?.next() else {
                // Still the owner, and once `exhausted` is set nobody takes ownership again.
                source = nil
                return exhaust()
            }
            let index = admit()
            if let box = input._box {
                let receiver = FanInInput(self, index: index)
                // A promise is cancelled with the fan-in, when nothing else depends on it.
                if Source.Element.self == Promise<Mode.Value>.self { keep(box, receiver, at: index) }
                box.attach(receiver)
            } else {
                // A thenable outside Pledge may call back more than once: only the first counts.
                let once = OnceFlag()
                let core: FanInCore<Mode> = self
                input.pipe { result in
                    if once.claim() { ThreadRun.run(core.deliver(result, at: index), deferrable: false) }
                }
            }
            switch verdict() {
            case .more: continue
            case .finished:
                // A finished fan-in keeps its owner: nobody pulls again.
                source = nil
                return nil
            case .atLimit:
                // Ownership is given up: `source` belongs to the next owner now.
                return nil
            }
        }
    }
}

/// Starts a fan-in over `source`, pulled lazily, and returns the box it resolves.
///
/// - Parameters:
///   - limit: the most inputs outstanding at once.
///   - file: the caller's site, recorded on the box.
///   - line: the line that goes with `file`.
@inlinable
func _fanIn<Source: IteratorProtocol, Mode: FanInMode>(
    _ source: Source, limit: Int, _: Mode.Type, file: StaticString, line: UInt
) -> EmptyBox<Result<Mode.Output, Error>> where Source.Element: Thenable, Source.Element.T == Mode.Value {
    let fanIn = FanIn<Source, Mode>(source: source, limit: limit, site: (file, line))
    // Weakly: the fan-in keeps the box, which keeps the hook.
    let core: FanInCore<Mode> = fanIn
    fanIn.box.addCancelHook { [weak core] in core?.cancelInputs() }
    ThreadRun.run(fanIn.pull(), deferrable: false)
    return fanIn.box
}

/// The receiver a pulling fan-in attaches to one input: delivers its outcome at its index.
@usableFromInline
final class FanInInput<Mode: FanInMode>: Receiver {
    @usableFromInline let fanIn: FanInCore<Mode>
    @usableFromInline let index: Int

    @inlinable
    init(_ fanIn: FanInCore<Mode>, index: Int) {
        self.fanIn = fanIn
        self.index = index
    }

    @inlinable
    func receive(from source: Box<Result<Mode.Value, Error>>) -> Work? { fanIn.deliver(source.result(), at: index) }

    @inlinable
    func abandon(from _: ObjectIdentifier) { fanIn.forget(index) }

    @inlinable
    func upstreamOrphaned(_ source: AnyBox) { fanIn.weaken(index, source) }
}

extension FanInCore.State {
    /// Marks the fan-in finished and takes the filled slots.
    @inlinable
    mutating func finish() -> FanInCore.Next {
        finished = true
        return .fulfil(exchange(&slots, with: []))
    }
}
