/// The fan-in behind every `when` over inputs known in advance (arrays, variadic lists, tuples,
/// guarantees): one object, and one handler per distinct input box, whatever the input count.
///
/// It is the receiver attached to each distinct input box; a table built before the first
/// attachment, and never written again, maps the box that calls it to its index and its repeats'.
///
/// Each transition, under one lock, returns what its caller does after the lock (``Next``). A
/// fulfilment fills its slots; the last one collects them and seals the box. A rejection (in the
/// fail-fast modes) seals the box at once. Either way the fan-in is finished and lets go of the
/// box; later outcomes are ignored. It holds each input promise that may still deliver (see
/// ``Upstream``), so that cancelling the box cancels those nothing else depends on; once no
/// input can deliver any more, the box is orphaned.
///
/// The slots live as long as the fan-in, which each input's handler keeps until it runs (or its
/// input is freed unresolved): after a rejection, the values of inputs fulfilled meanwhile stay
/// until the last input resolves or goes.
@usableFromInline
final class AllFanIn<Mode: FanInMode>: Receiver {
    /// The index of each distinct input box's first occurrence.
    @usableFromInline let firstIndex: [ObjectIdentifier: Int]

    /// For each input index, the next index at which the same box occurs again, or -1; `nil`
    /// when no input occurs twice.
    @usableFromInline let repeats: [Int]?

    @usableFromInline let state: Lock<State>

    /// What changes as the inputs deliver.
    @usableFromInline
    struct State: Sendable {
        /// The box; `nil` once the fan-in is finished: resolved, or no input can deliver any more.
        @usableFromInline var box: EmptyBox<Result<Mode.Output, Error>>?
        /// The slot of each input, by index.
        @usableFromInline var slots: [Mode.Slot?]
        /// Distinct inputs not fulfilled yet.
        @usableFromInline var unfilled: Int
        /// Distinct inputs that may still deliver.
        @usableFromInline var live: Int
        /// Each distinct input promise that may still deliver, by first index, to cancel with the
        /// fan-in (see ``Upstream``); empty for guarantees, which cannot be cancelled.
        @usableFromInline var inputs: [Upstream?]

        @inlinable
        init(
            box: EmptyBox<Result<Mode.Output, Error>>, slots: [Mode.Slot?], unfilled: Int, live: Int,
            inputs: [Upstream?]
        ) {
            self.box = box
            self.slots = slots
            self.unfilled = unfilled
            self.live = live
            self.inputs = inputs
        }
    }

    /// What a thread must do after a transition, outside the lock.
    @usableFromInline
    enum Next: Sendable {
        case nothing
        case seal(EmptyBox<Result<Mode.Output, Error>>, Result<Mode.Output, Error>)
        /// No input can deliver any more: nothing but a cancellation can resolve the box.
        case orphan(EmptyBox<Result<Mode.Output, Error>>)
        /// The box was cancelled: cancel these inputs in turn.
        case cancel([AnyBox])
    }

    /// Sets up the fan-in that resolves `box` from the boxes of `inputs`, in order; attach it to
    /// each distinct input afterwards (see ``isFirstOccurrence(_:of:)``).
    @inlinable
    init<U: Thenable>(_ inputs: [U], resolving box: EmptyBox<Result<Mode.Output, Error>>) where U.T == Mode.Value {
        var firstIndex: [ObjectIdentifier: Int] = [:]
        firstIndex.reserveCapacity(inputs.count)
        var repeats: [Int]? = nil
        var promises: [Upstream?] = []
        let linked = U.self == Promise<U.T>.self
        for (index, input) in inputs.enumerated() {
            guard let box = input._box else { continue }
            let first = firstIndex[ObjectIdentifier(box), default: index]
            if first == index {
                firstIndex[ObjectIdentifier(box)] = index
                if linked {
                    promises.reserveCapacity(inputs.count)
                    promises.append(.strong(box))
                }
                continue
            }
            if linked { promises.append(nil) }
            // A repeat: chain it after the last occurrence so far.
            var chains = repeats ?? Array(repeating: -1, count: inputs.count)
            var last = first
            while chains[last] >= 0 { last = chains[last] }
            chains[last] = index
            repeats = chains
        }
        self.firstIndex = firstIndex
        self.repeats = repeats
        state = Lock(
            State(
                box: box, slots: Array(repeating: nil, count: inputs.count),
                unfilled: firstIndex.count, live: firstIndex.count, inputs: promises))
    }

    /// Whether `index` is where `box` first occurs among the inputs: the one occurrence the
    /// fan-in is attached for.
    @inlinable
    func isFirstOccurrence(_ index: Int, of box: AnyBox) -> Bool {
        repeats == nil || firstIndex[ObjectIdentifier(box)] == index
    }

    /// An input box delivers its outcome.
    ///
    /// - Returns: the box, to fire, when this call sealed it and its handlers are due.
    @inlinable
    func receive(from source: Box<Result<Mode.Value, Error>>) -> Work? {
        let first = firstIndex[ObjectIdentifier(source)] ?? 0
        let settled = Mode.settle(source.result())
        return perform(state.withLock { $0.deliver(settled, at: first, repeats: repeats) })
    }

    /// An input is being freed unresolved: it will never deliver.
    @usableFromInline
    func abandon(from source: ObjectIdentifier) {
        let first = firstIndex[source] ?? 0
        _ = perform(state.withLock { $0.forget(first) })
    }

    @usableFromInline
    func upstreamOrphaned(_ source: AnyBox) {
        let first = firstIndex[ObjectIdentifier(source)] ?? 0
        let strong = state.withLock { state in state.inputs.isEmpty ? nil : state.inputs[first].weaken(source) }
        if let strong { ThreadRun.release(strong) }
    }

    /// The fan-in's box was cancelled: each input promise that may still deliver is cancelled
    /// too, when nothing else depends on it.
    @usableFromInline
    func cancelInputs() { _ = perform(state.withLock { $0.cancel() }) }

    @inlinable
    func perform(_ next: consuming Next) -> Work? {
        switch consume next {
        case .nothing: return nil
        case .seal(let box, let result): return box.seal(result)
        case .orphan(let box):
            box.orphan()
            return nil
        case .cancel(let inputs):
            for input in inputs { cancelInput(input, of: self) }
            return nil
        }
    }
}

extension AllFanIn.State {
    /// Records the outcome of the input whose first occurrence is `first`. Letting go of its
    /// promise frees nothing: whoever delivers it holds it.
    @inlinable
    mutating func deliver(_ settled: Result<Mode.Slot, Error>, at first: Int, repeats: [Int]?) -> AllFanIn.Next {
        guard box != nil else { return .nothing }
        live -= 1
        if !inputs.isEmpty { inputs[first] = nil }
        switch settled {
        case .failure(let error):
            return box.take().map { .seal($0, .failure(error)) } ?? .nothing
        case .success(let slot):
            slots[first] = slot
            var index = repeats?[first] ?? -1
            while index >= 0 {
                slots[index] = slot
                index = repeats?[index] ?? -1
            }
            unfilled -= 1
            guard unfilled == 0, let box = box.take() else { return live == 0 ? orphan() : .nothing }
            return .seal(box, .success(Mode.collect(exchange(&slots, with: []))))
        }
    }

    /// The input whose first occurrence is `first` will never deliver.
    @usableFromInline
    mutating func forget(_ first: Int) -> AllFanIn.Next {
        guard box != nil else { return .nothing }
        live -= 1
        // A promise being freed is held weakly here, if at all: it was orphaned first.
        if !inputs.isEmpty { inputs[first] = nil }
        return live == 0 ? orphan() : .nothing
    }

    /// No input can deliver any more.
    @inlinable
    mutating func orphan() -> AllFanIn.Next { box.take().map { .orphan($0) } ?? .nothing }

    /// The box was cancelled: the fan-in is finished, and hands back the inputs to cancel.
    @usableFromInline
    mutating func cancel() -> AllFanIn.Next {
        guard box != nil else { return .nothing }
        // The box is held by whoever cancels it.
        box = nil
        return .cancel(exchange(&inputs, with: []).compactMap { $0?.box })
    }
}

/// Starts a fan-in over every input of an array at once and returns the box it resolves, which
/// records `file` and `line`, the caller's site, before any input can resolve it.
///
/// Every input is attached, even after a rejection has ended the fan-in, as PromiseKit does; their
/// outcomes are then ignored. Cancelling the box cancels each input promise nothing else depends
/// on. No inputs resolve it at once with the empty output. A thenable outside Pledge is first
/// bridged into a promise, which gives it a box.
@inlinable
func _fanIn<U: Thenable, Mode: FanInMode>(
    all inputs: [U], _ mode: Mode.Type, file: StaticString, line: UInt
) -> EmptyBox<Result<Mode.Output, Error>> where Mode.Value == U.T {
    guard U.self == Promise<U.T>.self || U.self == Guarantee<U.T>.self else {
        return _fanIn(all: inputs.map { Promise($0) }, mode, file: file, line: line)
    }
    let box = EmptyBox<Result<Mode.Output, Error>>(site: (file, line))
    // The fan-in holds the box until it is finished; the box holds the hook until it is sealed.
    let fanIn = AllFanIn<Mode>(inputs, resolving: box)
    if inputs.isEmpty {
        box.resolve(.success(Mode.collect([])))
        return box
    }
    if U.self == Promise<U.T>.self { box.addCancelHook { fanIn.cancelInputs() } }
    for (index, input) in inputs.enumerated() {
        guard let input = input._box, fanIn.isFirstOccurrence(index, of: input) else { continue }
        input.attach(fanIn)
    }
    return box
}
