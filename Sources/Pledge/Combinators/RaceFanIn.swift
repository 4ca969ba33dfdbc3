/// The fan-in behind every `race`: makes the race's box, which records the caller's site, `file`
/// and `line`, and attaches one receiver to every distinct input. The first result seals the box
/// (with `fulfilledOnly`, the first fulfilment, or `noWinner` once all are rejected); the later
/// ones are ignored.
@inlinable
func _race<U: Thenable>(
    _ thenables: [U], fulfilledOnly: Bool = false, file: StaticString, line: UInt
) -> EmptyBox<Result<U.T, Error>> {
    // A thenable outside Pledge is bridged into a promise, which gives it a box.
    guard U.self == Promise<U.T>.self || U.self == Guarantee<U.T>.self else {
        return _race(thenables.map { Promise($0) }, fulfilledOnly: fulfilledOnly, file: file, line: line)
    }
    let box = EmptyBox<Result<U.T, Error>>(site: (file, line))
    // An input given twice is raced once: one handler, one dependent.
    var inputs: [Box<Result<U.T, Error>>] = []
    var seen = Set<ObjectIdentifier>()
    for thenable in thenables {
        if let input = thenable._box, seen.insert(ObjectIdentifier(input)).inserted { inputs.append(input) }
    }
    let race = RaceFanIn(
        resolving: box, inputs: inputs, fulfilledOnly: fulfilledOnly, linked: U.self == Promise<U.T>.self)
    if U.self == Promise<U.T>.self { box.addCancelHook { race.cancelInputs() } }
    // Every input is attached, even once a winner is in: each was handed to the race, so a
    // loser's later rejection counts as seen (see `LogEvent.unhandledRejection`).
    for input in inputs { input.attach(race) }
    return box
}

/// The receiver a race attaches to every input. It holds each input promise that has not
/// delivered (see ``Upstream``), to cancel those with the race; once no input can deliver any
/// more, the box is orphaned.
@usableFromInline
final class RaceFanIn<T: Sendable>: Receiver {
    @usableFromInline let fulfilledOnly: Bool

    @usableFromInline let state: Lock<State>

    @usableFromInline
    struct State: Sendable {
        /// The box the race resolves, until it does, or until no input can deliver any more.
        var box: EmptyBox<Result<T, Error>>?
        /// Inputs that may still deliver.
        var live: Int
        /// Inputs not rejected yet, for `race(fulfilled:)`.
        var unrejected: Int
        /// Each input promise that may still deliver, to cancel it with the race (see
        /// ``Upstream``); empty for guarantees.
        var inputs: [ObjectIdentifier: Upstream]
    }

    @usableFromInline
    init(resolving box: EmptyBox<Result<T, Error>>, inputs: [Box<Result<T, Error>>], fulfilledOnly: Bool, linked: Bool)
    {
        self.fulfilledOnly = fulfilledOnly
        var promises: [ObjectIdentifier: Upstream] = [:]
        if linked { for input in inputs { promises[ObjectIdentifier(input)] = .strong(input) } }
        state = Lock(State(box: box, live: inputs.count, unrejected: inputs.count, inputs: promises))
    }

    @usableFromInline
    func receive(from source: Box<Result<T, Error>>) -> Work? {
        let result = source.result()
        let fulfilledOnly = fulfilledOnly
        typealias Outcome = ((EmptyBox<Result<T, Error>>, Result<T, Error>)?, EmptyBox<Result<T, Error>>?)
        let (won, orphaned) = state.withLock { state -> Outcome in
            // Letting go of the input frees nothing: whoever delivers it holds it.
            state.inputs[ObjectIdentifier(source)] = nil
            guard state.box != nil else { return (nil, nil) }
            state.live -= 1
            if fulfilledOnly, case .failure = result {
                state.unrejected -= 1
                if state.unrejected == 0 {
                    return (state.box.take().map { ($0, Result<T, Error>.failure(PMKError.noWinner)) }, nil)
                }
                return (nil, state.live == 0 ? state.box.take() : nil)
            }
            return (state.box.take().map { ($0, result) }, nil)
        }
        orphaned?.orphan()
        guard let (box, result) = won else { return nil }
        return box.seal(result)
    }

    /// The input `source` is freed unresolved and will never deliver; the last one orphans the box.
    @usableFromInline
    func abandon(from source: ObjectIdentifier) {
        let orphaned = state.withLock { state -> EmptyBox<Result<T, Error>>? in
            // A promise being freed is held weakly here, if at all: it was orphaned first.
            guard state.box != nil else { return nil }
            state.live -= 1
            return state.live == 0 ? state.box.take() : nil
        }
        orphaned?.orphan()
    }

    @usableFromInline
    func upstreamOrphaned(_ source: AnyBox) {
        let strong = state.withLock { $0.inputs[ObjectIdentifier(source)].weaken(source) }
        if let strong { ThreadRun.release(strong) }
    }

    /// The race was cancelled: each input that may still deliver loses the race as a dependent,
    /// and is cancelled when that was its last one.
    @usableFromInline
    func cancelInputs() {
        let inputs = state.withLock { state -> [ObjectIdentifier: Upstream] in
            // The box is held by whoever cancels it.
            state.box = nil
            return exchange(&state.inputs, with: [:])
        }
        for case let input? in inputs.values.map(\.box) { cancelInput(input, of: self) }
    }
}
