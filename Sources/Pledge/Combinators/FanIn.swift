// The one implementation behind every form of `when`: a fan-in that attaches an inline handler
// to each input, keeps their outcomes in input order, and resolves one box when the last input
// is in (or, for the fail-fast forms, when the first rejection arrives). Arrays, variadics,
// tuples and guarantees give it every input at once (`_fanIn(all:…)`); `when(…, concurrently:)`
// pulls them lazily from an iterator (`FanIn`).

/// Collects the outcomes of a sequence of thenables into one result: the part of a fan-in that
/// does not depend on where the inputs come from. Used as it is for inputs known in advance
/// (see ``_fanIn(all:settle:collect:)``); ``FanIn`` adds an iterator pulled lazily.
///
/// ## State machine
/// Everything shared lives in ``State`` and is touched only inside ``withState(_:)``, under one
/// ``SpinLock``. Each transition decides what must happen next (resolve the box, pull more
/// inputs, nothing) and the caller does it after the lock is released, so neither user code
/// (the iterator's `next()`, handlers of the result) nor a box cascade ever runs under the lock.
///
/// ## Inputs known in advance
/// Every slot exists and every input counts as outstanding before the first is attached, so
/// attaching costs no transition. The attaching thread keeps `pulling` set throughout, so no
/// delivery ever asks for a pull, and calls ``exhaust()`` once every input is attached.
///
/// ## Pulling
/// Exactly one thread at a time owns the iterator: the one that set `pulling` under the lock.
/// The owner pulls while fewer than `limit` inputs are outstanding and no rejection ended the
/// fan-in, then gives up ownership in the same critical section that found it must stop. A
/// thread that delivers an outcome and finds the iterator unowned, not exhausted and below the
/// limit takes ownership and pulls in turn. So no wake-up is lost, at most `limit` inputs are
/// outstanding, and inputs that are already resolved are consumed by the owner's loop instead of
/// by recursion.
///
/// The iterator goes as soon as no pull can follow: when it returns `nil`, or when a rejection
/// finishes the fan-in (the owner drops it then, and a rejection that finds no owner becomes the
/// owner to drop it). Until then the fan-in must keep it, and each outstanding input's handler
/// keeps the fan-in: an iterator that keeps the thenables it has returned (an array's, say)
/// therefore keeps one that never resolves, and that one keeps the fan-in, in a cycle. The
/// public `when(…, concurrently:)` documents this.
///
/// ## Cost
/// One allocation for the fan-in, one handler per input, a results buffer (allocated once when
/// the inputs are known in advance, grown by amortised appends when they are pulled), and O(n)
/// to build the output: O(n) time and memory overall.
///
/// The core is generic only over `Sendable` types, so that the handlers attached to the inputs
/// can capture it; a handler capturing the iterator's type would not be `Sendable`.
@usableFromInline
class FanInCore<Value: Sendable, Slot: Sendable, Output: Sendable>: @unchecked Sendable {
    // Safety: `state` is read and written only inside `withState`, which holds `lock`. The other
    // stored properties are immutable and `Sendable`. Subclasses document their own state.

    /// The shared part of the fan-in.
    @usableFromInline
    struct State {
        /// The outcome of each input attached so far, in input order; `nil` while it is pending.
        @usableFromInline var slots: [Slot?]
        /// Inputs attached (or about to be) whose outcome has not arrived yet.
        @usableFromInline var outstanding = 0
        /// Whether some thread owns the iterator, or, for inputs known in advance, is still
        /// attaching them. The creator owns it at first.
        @usableFromInline var pulling = true
        /// Whether every input has been attached: the iterator returned `nil`, or the loop over
        /// inputs known in advance has ended.
        @usableFromInline var exhausted = false
        /// Whether the box was (or is about to be) resolved; later outcomes are ignored.
        @usableFromInline var finished = false

        /// The state of a fan-in that pulls its inputs one by one: no slots yet.
        @inlinable
        init() {
            slots = []
        }

        /// The state of a fan-in over `count` inputs known in advance: every slot exists and
        /// every input is outstanding before the first one is attached, so attaching them needs
        /// no transition of its own. The attaching thread stays the "owner" (`pulling`) and
        /// calls ``FanInCore/exhaust()`` when it has attached them all.
        @inlinable
        init(awaiting count: Int) {
            slots = Array(repeating: nil, count: count)
            outstanding = count
        }
    }

    /// What a thread must do after a transition, outside the lock.
    @usableFromInline
    enum Next {
        case nothing
        /// Reject the box; the slots taken from the state are released with this value, outside
        /// the lock, because releasing values may run user code (a `deinit`). With
        /// `ownsSource`, this thread took ownership of an iterator nobody was pulling, so that it
        /// lets the iterator go at once (see ``FanIn``).
        case reject(Error, dropped: [Slot?], ownsSource: Bool)
        case fulfil([Slot?])
        case pull
    }

    /// Whether the owner of the iterator may pull another input.
    @usableFromInline
    enum PullVerdict {
        case more
        case atLimit
        case finished
    }

    @usableFromInline
    let lock = SpinLock()

    @exclusivity(unchecked)
    @usableFromInline
    var state: State

    /// The most inputs that may be outstanding at once.
    @usableFromInline
    let limit: Int

    /// Backs the promise or guarantee that the `when` call returned.
    @usableFromInline
    let box: EmptyBox<Result<Output, Error>>

    /// Turns an input's result into its slot, or into the error that ends the fan-in at once.
    @usableFromInline
    let settle: @Sendable (Result<Value, Error>) -> Result<Slot, Error>

    /// Builds the output from the slots once every one of them is filled.
    @usableFromInline
    let collect: @Sendable ([Slot?]) -> Output

    @inlinable
    init(
        state: State, limit: Int,
        settle: @escaping @Sendable (Result<Value, Error>) -> Result<Slot, Error>,
        collect: @escaping @Sendable ([Slot?]) -> Output
    ) {
        self.state = state
        self.limit = limit
        self.box = pendingBox()
        self.settle = settle
        self.collect = collect
    }

    @inlinable
    final func withState<Result>(_ body: (inout State) -> Result) -> Result {
        lock.withLock { body(&state) }
    }

    /// Pulls and attaches inputs; overridden by ``FanIn``. Only the owner of the iterator calls
    /// it.
    ///
    /// - Returns: The step that runs the box's handlers when this call resolved it.
    @inlinable
    func pull(_ run: inout Run) -> Step? {
        nil
    }

    /// Reserves the slot of an input about to be attached.
    ///
    /// - Returns: The input's index.
    @inlinable
    final func admit() -> Int {
        withState { state in
            state.outstanding += 1
            state.slots.append(nil)
            return state.slots.count - 1
        }
    }

    /// The handler to attach to input `index`.
    @inlinable
    final func handler(for index: Int) -> HandlerFunction {
        { [self] _, source, run in deliver(Box<Result<Value, Error>>.attached(source).value, at: index, &run) }
    }

    /// Records the outcome of input `index`, and resolves the box or pulls more when it is due.
    ///
    /// - Returns: The step that runs the box's handlers when this call resolved it.
    @inlinable
    final func deliver(_ result: Result<Value, Error>, at index: Int, _ run: inout Run) -> Step? {
        let settled = settle(result)
        let next: Next = withState { state in
            guard !state.finished else { return .nothing }
            state.outstanding -= 1
            switch settled {
            case .failure(let error):
                state.finished = true
                var dropped: [Slot?] = []
                swap(&dropped, &state.slots)
                // An iterator that nobody owns would otherwise stay until the fan-in goes, which
                // an input that never resolves delays for good: own it, to let it go at once.
                let ownsSource = !state.pulling && !state.exhausted
                if ownsSource { state.pulling = true }
                return .reject(error, dropped: dropped, ownsSource: ownsSource)
            case .success(let slot):
                state.slots[index] = slot
                if state.exhausted {
                    return state.outstanding == 0 ? finish(&state) : .nothing
                }
                if !state.pulling, state.outstanding < limit {
                    state.pulling = true
                    return .pull
                }
                return .nothing
            }
        }
        return perform(next, &run)
    }

    /// Records that every input has been attached; called by the owner of the iterator once it
    /// returns `nil`, or by the thread that attached inputs known in advance. Does nothing once
    /// the fan-in has finished.
    ///
    /// - Returns: The step that runs the box's handlers when this call resolved it.
    @inlinable
    final func exhaust(_ run: inout Run) -> Step? {
        perform(
            withState { state in
                guard !state.finished else { return .nothing }
                state.exhausted = true
                return state.outstanding == 0 ? finish(&state) : .nothing
            }, &run)
    }

    /// Decides, for the owner of the iterator, whether it may pull again; gives up ownership
    /// when the limit is reached.
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

    /// Marks the fan-in finished and takes the filled slots.
    @inlinable
    final func finish(_ state: inout State) -> Next {
        state.finished = true
        var slots: [Slot?] = []
        swap(&slots, &state.slots)
        return .fulfil(slots)
    }

    @inlinable
    final func perform(_ next: Next, _ run: inout Run) -> Step? {
        switch next {
        case .nothing: return nil
        // The dropped slots stay in `next`, which the caller holds until this returns, so they
        // are released here, after the lock: keep it that way.
        case .reject(let error, _, let ownsSource):
            let step = run.seal(Retained(box), with: .failure(error))
            // The fan-in has finished, so `pull` takes nothing more: it only lets the iterator go.
            if ownsSource { pull(&run).expectNone() }
            return step
        case .fulfil(let slots): return run.seal(Retained(box), with: .success(collect(slots)))
        case .pull: return pull(&run)
        }
    }
}

/// A fan-in over the thenables an iterator produces.
@usableFromInline
final class FanIn<Source: IteratorProtocol, Slot: Sendable, Output: Sendable>:
    FanInCore<Source.Element.T, Slot, Output>, @unchecked Sendable
where Source.Element: Thenable {
    // Safety: `source` is touched only by the thread that owns the iterator (see "Pulling" in
    // `FanInCore`): ownership is taken and given up under `lock`, whose acquire/release orderings
    // make every use of `source` happen after the previous owner's last one.
    @exclusivity(unchecked)
    @usableFromInline
    var source: Source?

    @inlinable
    init(
        source: Source, limit: Int,
        settle: @escaping @Sendable (Result<Source.Element.T, Error>) -> Result<Slot, Error>,
        collect: @escaping @Sendable ([Slot?]) -> Output
    ) {
        self.source = source
        super.init(state: State(), limit: limit, settle: settle, collect: collect)
    }

    /// Pulls and attaches inputs until the iterator is exhausted, the limit is reached or the
    /// fan-in has finished. Only the owner of the iterator calls it.
    @inlinable
    override func pull(_ run: inout Run) -> Step? {
        // A rejection may have finished the fan-in since the delivery that made this thread the
        // owner: then pull nothing. A finished fan-in keeps its owner for good, so the iterator
        // can go (outside the lock: its deinit may run user code).
        if withState({ $0.finished }) {
            source = nil
            return nil
        }
        while true {
            guard let input = source?.next() else {
                // Still the owner, and once `exhausted` is set nobody takes ownership again, so
                // the iterator can go now (outside the lock: its deinit may run user code).
                source = nil
                return exhaust(&run)
            }
            input._pipeOnce(handler(for: admit()))
            switch verdict() {
            case .more:
                continue
            case .finished:
                // A finished fan-in keeps its owner for good, so nobody pulls again and this
                // thread may release the iterator.
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
///   - limit: The most inputs outstanding at once.
///   - settle: Maps an input's result to its slot; a failure ends the fan-in with that error.
///   - collect: Builds the output from the filled slots.
@inlinable
func _fanIn<Source: IteratorProtocol, Slot: Sendable, Output: Sendable>(
    _ source: Source, limit: Int,
    settle: @escaping @Sendable (Result<Source.Element.T, Error>) -> Result<Slot, Error>,
    collect: @escaping @Sendable ([Slot?]) -> Output
) -> EmptyBox<Result<Output, Error>> where Source.Element: Thenable {
    let fanIn = FanIn(source: source, limit: limit, settle: settle, collect: collect)
    Trampoline.run { fanIn.pull(&$0) }
    return fanIn.box
}

/// Starts a fan-in over every input of an array at once and returns the box it resolves.
///
/// The form every `when` over an array (or a variadic list, or a tuple) uses. The count is known,
/// so the slots and the count of outstanding inputs are set up in one go, and attaching an input
/// costs no lock of the fan-in's: only its delivery does. Every input is attached, even after a
/// rejection has ended the fan-in, as PromiseKit does; their outcomes are then ignored.
@inlinable
func _fanIn<U: Thenable, Slot: Sendable, Output: Sendable>(
    all inputs: [U],
    settle: @escaping @Sendable (Result<U.T, Error>) -> Result<Slot, Error>,
    collect: @escaping @Sendable ([Slot?]) -> Output
) -> EmptyBox<Result<Output, Error>> {
    let fanIn = FanInCore(
        state: .init(awaiting: inputs.count), limit: .max, settle: settle, collect: collect)
    for index in inputs.indices {
        inputs[index]._pipeOnce(fanIn.handler(for: index))
    }
    Trampoline.run { fanIn.exhaust(&$0) }
    return fanIn.box
}

/// The ways `when` maps its inputs' results to slots and the slots to its output: passed to
/// ``_fanIn(_:limit:settle:collect:)`` and ``_fanIn(all:settle:collect:)``.
@usableFromInline
enum FanInForm {
    /// Fails fast: a value is its own slot, and the first rejection ends the fan-in.
    @inlinable
    static func value<T>(_ result: Result<T, Error>) -> Result<T, Error> {
        result
    }

    /// Never fails: the whole result is the slot.
    @inlinable
    static func result<T>(_ result: Result<T, Error>) -> Result<Result<T, Error>, Error> {
        .success(result)
    }

    /// Fails fast and keeps nothing but the fact that an input was fulfilled.
    @inlinable
    static func void<T>(_ result: Result<T, Error>) -> Result<Void, Error> {
        result.map { _ in () }
    }

    /// The slots' contents in order, in an array allocated once at its final size. Every slot
    /// is filled when a fan-in finishes without a rejection.
    @inlinable
    static func filled<Slot>(_ slots: [Slot?]) -> [Slot] {
        var values: [Slot] = []
        values.reserveCapacity(slots.count)
        for case let slot? in slots {
            values.append(slot)
        }
        return values
    }

    /// No output but completion.
    @inlinable
    static func nothing<Slot>(_ slots: [Slot?]) {}
}

/// A fan-in over an array that fails fast: every input must be fulfilled, and the first
/// rejection rejects the result with its error. The values come back in input order.
@inlinable
func _fanInValues<U: Thenable>(_ inputs: [U]) -> EmptyBox<Result<[U.T], Error>> {
    _fanIn(all: inputs, settle: FanInForm.value, collect: FanInForm.filled)
}

/// A fan-in over an array that never fails: it waits for every input and returns their results
/// in input order.
@inlinable
func _fanInResults<U: Thenable>(_ inputs: [U]) -> EmptyBox<Result<[Result<U.T, Error>], Error>> {
    _fanIn(all: inputs, settle: FanInForm.result, collect: FanInForm.filled)
}

/// A fan-in over an array that fails fast and discards the values.
@inlinable
func _fanInVoid<U: Thenable>(_ inputs: [U]) -> EmptyBox<Result<Void, Error>> {
    _fanIn(all: inputs, settle: FanInForm.void, collect: FanInForm.nothing)
}
