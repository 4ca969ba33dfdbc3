import Synchronization

// The fan-in behind every `when` over inputs known in advance (arrays, variadic lists, tuples,
// guarantees): no allocation per input, and no lock per input but the short one that marks a
// promise input gone.

/// Collects the outcomes of inputs known in advance into one result: the box of that result,
/// which is also the receiver attached to each distinct input box, so a `when` allocates one
/// object for both and attaching allocates nothing per input. It is told which box called it; a
/// table built before the first attachment (and never written again) maps that box to its input
/// index, and to the indices of any repeats of the same input.
///
/// A fulfilment fills its slots and counts down `outstanding`; the one that reaches zero has, by
/// the acquire-release countdown, seen every slot written, and resolves the box. A rejection (in
/// the fail-fast modes) resolves the box at once. Whichever resolves it first claims `finished`,
/// so the box is resolved once; later outcomes are ignored. Delivering takes no lock but the
/// short one that marks a promise input gone (see ``gone``): a separate type from the pulling
/// ``FanIn``, whose state machine takes a lock per delivery.
///
/// The slots live as long as the fan-in, which each input's handler keeps until it runs (or its
/// input is freed unresolved). So after a rejection, the values of inputs fulfilled meanwhile
/// stay until the last input resolves or goes. The fan-in keeps no reference to its inputs, only
/// their identities: an input that can never resolve does not keep the others alive.
@usableFromInline
final class AllFanIn<Mode: FanInMode>: EmptyBox<Result<Mode.Output, Error>>, Receiver, @unchecked Sendable {
    // Safety: `table` and `repeats` are written only in `init`, before the fan-in is published
    // by the first attachment. `gone` is read and written only under the box's `lock`. Slot `i` is
    // written only by the handler of input `i`'s box, which runs once, and read only by the
    // thread that counted `outstanding` down to zero, after every other fulfilment's
    // acquire-release decrement; or by `deinit`, after every handler has gone. `outstanding`,
    // `finished` and `collected` are atomics.
    @usableFromInline
    let slots: UnsafeMutableBufferPointer<Mode.Slot?>

    /// The distinct input boxes, by identity, with the index of each one's first occurrence.
    @usableFromInline
    let table: IdentityTable

    /// For each input index, the next index at which the same box occurs again, or -1; `nil`
    /// when no input occurs twice.
    @usableFromInline
    let repeats: UnsafeMutableBufferPointer<Int>?

    /// Distinct inputs whose fulfilment has not arrived.
    @usableFromInline
    let outstanding: Atomic<Int>

    /// Whether the box has been (or is about to be) resolved.
    @usableFromInline
    let finished = Atomic<Bool>(false)

    /// Whether the slots have been emptied into the output, so that `deinit`, which runs
    /// unspecialised, need not visit them.
    @usableFromInline
    let collected = Atomic<Bool>(false)

    /// For inputs that are promises, which a cancelled fan-in cancels: by the index of each
    /// distinct input's first occurrence, whether it no longer holds the fan-in's handler (it
    /// delivered, or is being freed). Under the box's `lock`, an input not marked is alive, or its
    /// `deinit` waits for the lock in `abandon(from:)`, so its memory may be read (see
    /// ``cancelInputs()``). `nil` for guarantees.
    @usableFromInline
    let gone: UnsafeMutableBufferPointer<Bool>?

    /// Sets up the fan-in for the boxes of `inputs`, promises or guarantees, in order, for a
    /// `when` called at `site`. Attach ``deliver(_:_:_:)`` to each distinct one afterwards (see
    /// ``isFirstOccurrence(_:of:)``).
    @inlinable
    init<U: Thenable>(_ inputs: [U], site: SourceSite) where U.T == Mode.Value {
        let count = inputs.count
        slots = .allocate(capacity: count)
        slots.initialize(repeating: nil)
        if U.self == Promise<U.T>.self {
            let gone = UnsafeMutableBufferPointer<Bool>.allocate(capacity: count)
            gone.initialize(repeating: false)
            self.gone = gone
        } else {
            gone = nil
        }
        var table = IdentityTable(capacity: count)
        var repeats: UnsafeMutableBufferPointer<Int>? = nil
        var distinct = 0
        for index in 0..<count {
            let first = table.insert(identity(of: inputs[index]), index: index)
            if first == index {
                distinct += 1
                continue
            }
            // A repeat: chain it after the last occurrence so far.
            let chains = repeats ?? .allocate(capacity: count)
            if repeats == nil {
                chains.initialize(repeating: -1)
                repeats = chains
            }
            var last = first
            while chains[last] >= 0 { last = chains[last] }
            chains[last] = index
        }
        self.table = table
        self.repeats = repeats
        outstanding = Atomic(distinct)
        super.init(site: site)
    }

    deinit {
        if !collected.load(ordering: .acquiring) { slots.deinitialize() }
        slots.deallocate()
        repeats?.deallocate()
        gone?.deallocate()
        table.deallocate()
    }

    /// An input is being freed unresolved: it no longer holds the fan-in's handler.
    @usableFromInline
    func abandon(from source: ObjectIdentifier) {
        guard let gone else { return }
        let first = table.index(of: source)
        lock.withLock { gone[first] = true }
    }

    /// The fan-in was cancelled: each input promise still holding its handler loses it, and is
    /// cancelled when that was its last dependent.
    @usableFromInline
    override func cancelInputs() {
        guard let gone else { return }
        var alive: [AnyBox] = []
        lock.withLock {
            for position in 0...table.mask {
                let entry = table.entries[position]
                // An input not marked gone has its memory (see `gone`).
                guard !gone[entry.index], let address = UnsafeRawPointer(bitPattern: entry.key),
                    let input = retainIfAlive(Unmanaged<AnyBox>.fromOpaque(address))
                else { continue }
                alive.append(input)
            }
        }
        for input in alive { cancelInput(input, of: self) }
    }

    /// Whether `index` is where `box` first occurs among the inputs: the one occurrence a handler
    /// is attached for.
    @inlinable
    func isFirstOccurrence(_ index: Int, of box: ObjectIdentifier) -> Bool {
        repeats == nil || table.index(of: box) == index
    }

    /// An input box delivers its outcome.
    ///
    /// - Returns: the fan-in, to fire, when this call sealed it and its handlers are due.
    @inlinable
    func receive(from source: Box<Result<Mode.Value, Error>>) -> Work? {
        deliver(source.result(), from: ObjectIdentifier(source))
    }

    /// Records the outcome of the input box `source`.
    @inlinable
    func deliver(_ result: Result<Mode.Value, Error>, from source: ObjectIdentifier) -> Work? {
        let first = table.index(of: source)
        if let gone { lock.withLock { gone[first] = true } }
        switch Mode.settle(result) {
        case .success(let slot):
            slots[first] = slot
            if let repeats {
                var index = repeats[first]
                while index >= 0 {
                    slots[index] = slot
                    index = repeats[index]
                }
            }
            guard outstanding.subtract(1, ordering: .acquiringAndReleasing).newValue == 0, claimFinish() else {
                return nil
            }
            let output = Mode.collect(slots)
            // `collect` moved every value out; what is left is empty and needs no deinitialising.
            collected.store(true, ordering: .releasing)
            return seal(.success(output))
        case .failure(let error):
            guard claimFinish() else { return nil }
            return seal(.failure(error))
        }
    }

    /// Whether this call is the one that resolves the fan-in.
    @inlinable
    func claimFinish() -> Bool {
        !finished.exchange(true, ordering: .acquiringAndReleasing)
    }
}

/// A fixed-size open-addressing table from object identities to the index of their first
/// insertion. Written only while it is built; read-only after.
@usableFromInline
struct IdentityTable {
    /// One entry: an identity (zero when empty: no object lives at address zero) and its index,
    /// side by side so that a lookup touches one cache line.
    @usableFromInline
    struct Entry {
        @usableFromInline var key: UInt
        @usableFromInline var index: Int

        @inlinable
        init(key: UInt, index: Int) {
            self.key = key
            self.index = index
        }
    }

    // Safety: `entries` is allocated with `mask + 1` elements in `init` and freed by
    // `deallocate()`, which the owner calls once, when no reader is left.
    @usableFromInline let entries: UnsafeMutablePointer<Entry>
    @usableFromInline let mask: Int

    /// A table for up to `capacity` identities, at most two-thirds full.
    @inlinable
    init(capacity: Int) {
        var size = 8
        while size < capacity + capacity / 2 { size *= 2 }
        mask = size - 1
        entries = .allocate(capacity: size)
        entries.initialize(repeating: Entry(key: 0, index: 0), count: size)
    }

    @inlinable
    func deallocate() {
        entries.deallocate()
    }

    /// Where `key`'s search starts: the address without its alignment bits. Boxes made one
    /// after another land in increasing positions, so building the table and looking inputs up
    /// in order walk it from one end to the other instead of touching a random cache line each
    /// time; a collision only costs a few more steps.
    @inlinable @inline(__always)
    func start(_ key: UInt) -> Int {
        Int(truncatingIfNeeded: key >> 4) & mask
    }

    /// Inserts `identity` with `index`, unless it is present.
    ///
    /// - Returns: the index stored for `identity`: `index`, or the earlier one.
    @inlinable
    mutating func insert(_ identity: ObjectIdentifier, index: Int) -> Int {
        let key = UInt(bitPattern: identity)
        var position = start(key)
        while true {
            if entries[position].key == 0 {
                entries[position] = Entry(key: key, index: index)
                return index
            }
            if entries[position].key == key { return entries[position].index }
            position = (position + 1) & mask
        }
    }

    /// The index stored for `identity`, which must be present.
    @inlinable
    func index(of identity: ObjectIdentifier) -> Int {
        let key = UInt(bitPattern: identity)
        var position = start(key)
        while entries[position].key != key { position = (position + 1) & mask }
        return entries[position].index
    }
}

/// The identity of the box behind `thenable`, a promise or a guarantee, read without taking a
/// count on it.
@inlinable @inline(__always)
func identity<U: Thenable>(of thenable: U) -> ObjectIdentifier {
    // Callers pass only promises and guarantees, which always have a box.
    thenable._box.map(ObjectIdentifier.init) ?? ObjectIdentifier(thenable)
}

/// Starts a fan-in over every input of an array at once and returns it: the box it resolves.
///
/// Every input is attached, even after a rejection has ended the fan-in, as PromiseKit does;
/// their outcomes are then ignored. When the returned box is cancelled, so is each input
/// promise that nothing else depends on. No inputs resolve the box at once with the empty output. A
/// thenable outside Pledge is first bridged into a promise, which gives it a box. The box records
/// `file` and `line`, the caller's site, before any input can resolve it.
@inlinable
func _fanIn<U: Thenable, Mode: FanInMode>(
    all inputs: [U], _ mode: Mode.Type, file: StaticString, line: UInt
) -> EmptyBox<Result<Mode.Output, Error>> where Mode.Value == U.T {
    guard U.self == Promise<U.T>.self || U.self == Guarantee<U.T>.self else {
        return _fanIn(all: inputs.map { Promise($0) }, mode, file: file, line: line)
    }
    let fanIn = AllFanIn<Mode>(inputs, site: (file, line))
    if inputs.isEmpty {
        fanIn.resolve(.success(Mode.collect(fanIn.slots)))
    }
    for index in inputs.indices where fanIn.isFirstOccurrence(index, of: identity(of: inputs[index])) {
        if let input = inputs[index]._box { input.attach(Handler(fanIn, for: input)) }
    }
    return fanIn
}
