import Dispatch

/// A sealed box whose handlers are due, or a queued handler whose input is in, together with the
/// function that runs it.
///
/// Handlers that seal another box hand back one of these instead of running that box's handlers
/// themselves; ``Trampoline/run(_:)`` runs them from a loop. The function is specialised for the
/// box's value type where the step is made, so running a step never goes through unspecialised
/// generic code.
///
/// A step holds its object through `Unmanaged`, so that moving steps around, and handing a count
/// from one step to the next, costs no reference counting. The step's function owns whatever
/// count the step holds: it gives it back once done with the object (after the object's last
/// use, outside the borrow it works in), or hands it on to a step it makes.
/// - A step that may wait (a box's cascade, a block's tail) holds a count, taken when it is made
///   or handed over by its maker. Every such step is run exactly once: the trampoline runs
///   every step it is handed or has stacked. (One that were dropped unrun would keep its object
///   alive for good.) A box's cascade hands its count to the tail its first hop becomes, if
///   that tail still waits when the firing ends (see ``Cascade/firingBoxKept``). A handler
///   that resolves its own target box hands the count it was given to that box's cascade
///   rather than taking a new one (see ``StepCount``). A block's tail makes no cascade step for
///   the box it resolves: it runs that box's firing itself, with the count it holds on the box,
///   which it may hand on to the next tail in the same way (see
///   ``EmptyBox/resolveFiring(_:_:)``).
/// - The cascade of a box that ``Box/seal(_:)`` seals holds no count: it is the first step of
///   the run `seal` starts, and `seal`'s caller keeps the box alive until that run is over. It
///   never hands a count to a tail, since that run has no queue.
/// - A hop (``isHop``) is run at once by the code that called the handler that made it: the box
///   firing that handler (see ``Handlers``), or the call that attached it to a box already
///   settled. A queued chained box's hop holds the count its handler was given on the box, and
///   hands it to the tail it makes, or gives it back (see ``QueuedChainedBox``). A hop whose
///   function captures what it needs (``ChainOperation``'s `dispatchedHop`) holds none.
///
/// Not API: the type is public only because ``Thenable/_pipe(_:_:)`` mentions it.
public struct _PledgeStep {
    @usableFromInline
    let object: Unmanaged<AnyObject>
    @usableFromInline
    let fire: (Unmanaged<AnyObject>, inout Cascade) -> _PledgeStep?
    /// Whether this is a queued handler's hop (see ``Cascade``), which the box firing the
    /// handler runs at once and which hands back no step, rather than a step to run later.
    @usableFromInline
    let isHop: Bool

    /// A step that may wait: it takes a count on `box`, which `fire` must give back.
    @inlinable
    init(_ box: AnyObject, fire: @escaping (Unmanaged<AnyObject>, inout Cascade) -> _PledgeStep?) {
        object = Unmanaged.passRetained(box)
        self.fire = fire
        isHop = false
    }

    /// A step on `box` that takes no count of its own. Either its maker owned a count on `box`
    /// and hands it over (and must not give it back too), which `fire` must give back; or the
    /// step holds none, when it is the first step of a run its maker starts at once while
    /// keeping `box` alive until the run is over, and `fire` gives nothing back (see
    /// ``StepCount``).
    @inlinable
    init(adopting box: Unmanaged<AnyObject>, fire: @escaping (Unmanaged<AnyObject>, inout Cascade) -> _PledgeStep?) {
        object = box
        self.fire = fire
        isHop = false
    }

    /// A hop that holds the count `box` brings, which `fire` must hand on or give back.
    @inlinable
    init(countedHop box: consuming AnyObject, fire: @escaping (Unmanaged<AnyObject>, inout Cascade) -> _PledgeStep?) {
        object = Unmanaged.passRetained(box)
        self.fire = fire
        isHop = true
    }

    /// A hop that holds no count on `box`: `fire` keeps what it needs, and the code running the
    /// hop keeps `box` alive meanwhile (see above).
    @inlinable
    init(hop box: AnyObject, fire: @escaping (Unmanaged<AnyObject>, inout Cascade) -> _PledgeStep?) {
        object = Unmanaged.passUnretained(box)
        self.fire = fire
        isHop = true
    }

    /// Runs the step; its function disposes of the count the step holds, if any (see above).
    ///
    /// - Returns: the step it hands back.
    @inlinable @inline(__always)
    func run(_ cascade: inout Cascade) -> _PledgeStep? {
        fire(object, &cascade)
    }
}

extension Optional where Wrapped == _PledgeStep {
    /// Checks, in debug builds, that a call whose result is dropped handed back no step: a
    /// counted step dropped unrun would keep its object alive for good (see ``_PledgeStep``).
    /// `what` names the call, for the failure message.
    @inlinable @inline(__always)
    func expectNone(_ what: StaticString) {
        assert(self == nil, "\(what)")
    }
}

/// The state of one run of the ``Trampoline``: the steps still to run, and the queue whose block
/// the run is, if any.
///
/// A handler with a queue does not dispatch from inside the handler call; it hands back a hop
/// step (see ``QueuedChainedBox``), which the box that called it runs at once, while it is still
/// firing, so hops are dispatched in attachment order. The hop asks the run whether it may skip
/// the dispatch and run its operation at the end of the current block instead, as the block's
/// tail:
/// - only when the run is the body of a block Pledge dispatched to the hop's queue (never the
///   main queue, and only while ``PMKConfiguration/chainsShareBlocks`` is on);
/// - only for the first queued handler of the firing box: handlers after it are dispatched, so
///   on a concurrent queue they still run concurrently with it, and on a serial one after it.
///   When one of them is for the same queue, the tail is dispatched too, just before it, as a
///   plain block that shares with nothing: a tail would start only once the block ends, after
///   a sibling that a concurrent queue may start at once, and handlers for one queue must start
///   in the order they were attached. (A handler attached only after the box has finished
///   firing is not covered: it starts a run of its own, which knows nothing of this tail, so on
///   a concurrent queue it may start first. ``PMKConfiguration/chainsShareBlocks`` documents
///   this exception. Keeping the box `firing` until its tail starts would close it, but a
///   handler attached to the box later in the same block, or inside the tail, would then wait
///   for the tail, and code there waiting for that handler would hang.);
/// - only when the run has no tail yet: the tail runs once everything else the block started
///   has run, exactly where a block dispatched at that moment would have started had the queue
///   been empty;
/// - only while the block has dispatched no hop to its own queue: a later tail would overtake
///   that hop's block;
/// - at most ``Cascade/hopsPerBlock`` times per block.
///
/// So a tail overtakes no handler the block's own run dispatched. It does overtake other work
/// queued on the queue meanwhile, including what user code queued from inside a handler (by
/// `async`, or by resolving a promise whose handler is for the queue), which is the trade-off
/// ``PMKConfiguration/chainsShareBlocks`` documents.
///
/// User code that resolves a promise starts a run of its own, with no queue, so a queued handler
/// never runs inside user code, or inside a `sync` block that user code entered.
///
/// Noncopyable: a run's state is only ever passed `inout`, and a copyable struct holding a step
/// (a closure) is copied and destroyed through outlined value-witness calls, which made W2 run
/// 7% more instructions.
@usableFromInline
struct Cascade: ~Copyable {
    /// How many hops a block on a queue runs inline before it hands the rest of its chain to a
    /// new block on the same queue, so that a long chain cannot hold a serial queue for long.
    @inlinable
    static var hopsPerBlock: Int { 16 }

    /// Steps to run after the current one, popped last first.
    @usableFromInline
    var stack: [_PledgeStep]

    /// The identity of the queue this run's block runs on; `nil` when the run is not a Pledge
    /// block on a queue. The block keeps the queue alive for the whole run (it runs on it), so
    /// the identity cannot be reused by another queue meanwhile.
    @usableFromInline
    let queue: ObjectIdentifier?

    /// How many more hops to ``queue`` this run may take inline.
    @usableFromInline
    var hopsLeft: Int

    /// Whether the next hop is the first one of the box now firing: set by
    /// ``EmptyBox/fire(_:_:)``, cleared by the first hop that asks.
    @usableFromInline
    var firstHopOfBox: Bool

    /// The run's tail: the one hop that runs inline in this block, run once ``stack`` is empty,
    /// so that it runs once everything else has. The trampoline takes it out before running it,
    /// so the tail may make the run's next tail. Kept apart from the stack, rather than at its
    /// bottom, so that making a tail and running it move no array elements: 90 fewer
    /// instructions per W3 step.
    @usableFromInline
    var tail: _PledgeStep?

    /// Whether the run has its tail (see ``tail``).
    @inlinable
    var hasTail: Bool { tail != nil }

    /// Whether the tail is a handler of the box now firing: set by ``setTail(_:)``, cleared when
    /// the next box starts firing (``startFiring()``).
    @usableFromInline
    var tailBelongsToFiringBox: Bool

    /// Set while ``dispatchTail()`` runs the tail's step: the step dispatches its operation
    /// instead of running it.
    @usableFromInline
    var dispatchesTail: Bool

    /// Whether the box now firing has handed the count its firing holds (its cascade step's, or
    /// that of the tail that fires it in place) to the tail it made: set by the hop that makes
    /// the tail, which needs that box, its input, alive until the tail runs. The firing then ends
    /// without giving that count back (see ``EmptyBox/fire(_:_:)`` and
    /// ``EmptyBox/resolveFiring(_:_:)``), and the tail gives it back instead. This saves a retain
    /// and a release per inline hop.
    ///
    /// Only a box's firing is ever running when a hop sets this: a tail is made only by a hop
    /// run inside the firing of the box it waited on (``mayHopInline(to:)`` refuses every hop
    /// outside a block's run, and the hop a settled box's handler hands back starts a run of its
    /// own), and a firing runs no other step until it ends, except hops and the tail itself when
    /// ``dispatchTail()`` dispatches it early. That clears this first: a dispatched tail only
    /// borrows the firing box, which is still running its handlers.
    @usableFromInline
    var firingBoxKept: Bool

    @inlinable @inline(__always)
    init(queue: DispatchQueue?) {
        stack = []
        self.queue = queue.map(ObjectIdentifier.init)
        hopsLeft = queue == nil ? 0 : Cascade.hopsPerBlock
        firstHopOfBox = false
        tail = nil
        tailBelongsToFiringBox = false
        dispatchesTail = false
        firingBoxKept = false
    }

    /// Whether the firing that just ended handed its count on the box to the tail (see
    /// ``firingBoxKept``), clearing the flag for the next firing.
    @inlinable @inline(__always)
    mutating func takeFiringBoxKept() -> Bool {
        defer { firingBoxKept = false }
        return firingBoxKept
    }

    /// Marks the start of a box's firing: its first hop may become the tail.
    @inlinable @inline(__always)
    mutating func startFiring() {
        firstHopOfBox = true
        tailBelongsToFiringBox = false
    }

    /// Whether a hop to `queue` may run inline, as the run's tail, instead of in a block of its
    /// own; if so, counts it. Either way, later hops of the same firing box may not.
    ///
    /// A hop to this run's own queue that is refused is dispatched behind the current block, so
    /// from then on no hop may run inline in this block: a later tail would overtake it.
    @inlinable
    mutating func mayHopInline(to queue: DispatchQueue) -> Bool {
        let first = firstHopOfBox
        firstHopOfBox = false
        guard self.queue == ObjectIdentifier(queue) else { return false }
        guard first, !hasTail, hopsLeft > 0 else {
            hopsLeft = 0
            // A later handler of the tail's own box, for the same queue: it is dispatched, so
            // the tail goes first (see ``Cascade``).
            if tailBelongsToFiringBox { dispatchTail() }
            return false
        }
        hopsLeft -= 1
        return true
    }

    /// Records a hop to `queue` that is dispatched whatever the run says (one with flags): it
    /// counts as the firing box's first hop, and, when it goes to this run's own queue, ends
    /// inline hops in this block (see ``mayHopInline(to:)``).
    @inlinable
    mutating func noteDispatchedHop(to queue: DispatchQueue) {
        firstHopOfBox = false
        guard self.queue == ObjectIdentifier(queue) else { return }
        hopsLeft = 0
        if tailBelongsToFiringBox { dispatchTail() }
    }

    /// Makes `step` the run's tail (see ``tail``). Only after ``mayHopInline(to:)`` said yes.
    @inlinable
    mutating func setTail(_ step: consuming _PledgeStep) {
        tail = step
        tailBelongsToFiringBox = true
    }

    /// Dispatches the tail of the box now firing at once, instead of running it at the end of
    /// the block.
    @usableFromInline
    mutating func dispatchTail() {
        tailBelongsToFiringBox = false
        guard let tail = tail.take() else { return }
        // The firing box keeps its count: the dispatched tail borrows it (see
        // ``firingBoxKept``).
        firingBoxKept = false
        dispatchesTail = true
        tail.run(&self).expectNone("a dispatched tail hands back no step")
        dispatchesTail = false
    }
}

/// Runs cascades of handlers iteratively, so that resolving a chain of any length uses constant
/// stack depth.
///
/// A handler that seals a box through `seal(_:)` (user code calling a `Resolver`) rather than
/// handing back a step starts a nested run: that nests once per such handler, not once per link
/// of a chain built with Pledge's operators.
@usableFromInline
enum Trampoline {
    /// Runs `first` and every step it leads to, depth first, until none is left.
    @inlinable
    static func run(_ first: consuming _PledgeStep?) {
        if first == nil { return }
        var cascade = Cascade(queue: nil)
        drain(first, &cascade)
    }

    /// Runs `first` and every step it leads to, as the body of a block Pledge dispatched to
    /// `queue`: hops to `queue` may run in this block (see ``Cascade``). The caller decides
    /// whether `queue` may share its blocks (not the main queue, and only while
    /// ``PMKConfiguration/chainsShareBlocks`` is on).
    @inlinable
    static func run(_ first: consuming _PledgeStep?, onQueue queue: DispatchQueue) {
        if first == nil { return }
        var cascade = Cascade(queue: queue)
        drain(first, &cascade)
    }

    /// The loop behind both `run`s. Each step is moved out of `current` and run once; its
    /// function disposes of the count it holds on its object (see ``_PledgeStep``). When a step
    /// hands back none, the next is the top of the stack, and once that is empty, the tail.
    @inlinable @inline(__always)
    static func drain(_ first: consuming _PledgeStep?, _ cascade: inout Cascade) {
        var current = first
        while let step = current.take() {
            current = step.run(&cascade)
            if current == nil { current = cascade.stack.popLast() ?? cascade.tail.take() }
        }
    }
}
