import Dispatch

/// A sealed box whose handlers are due, or a queued handler waiting for its hop, together with
/// the function that runs it.
///
/// Handlers that seal another box hand back one of these instead of running that box's handlers
/// themselves; ``Trampoline/run(_:)`` runs them from a loop. The function is specialised for the
/// box's value type where the step is made, so running a step never goes through unspecialised
/// generic code.
///
/// Not API: the type is public only because ``Thenable/_pipe(_:_:)`` mentions it.
public struct _PledgeStep {
    @usableFromInline
    let box: AnyObject
    @usableFromInline
    let fire: (AnyObject, inout Cascade) -> _PledgeStep?

    @inlinable
    init(_ box: AnyObject, fire: @escaping (AnyObject, inout Cascade) -> _PledgeStep?) {
        self.box = box
        self.fire = fire
    }
}

/// The state of one run of the ``Trampoline``: the steps still to run, and the queue whose block
/// the run is, if any.
///
/// A handler with a queue does not dispatch from inside the handler call; it hands back a hop
/// step (see ``QueuedChainedBox``), and the run that pops it decides. A run that is the body of
/// a block Pledge dispatched to queue `q` runs a hop to `q` at once, in the same block, up to
/// ``Cascade/hopsPerBlock`` times; every other run dispatches it. Only a run knows which
/// block it is: user code that resolves a promise starts a run of its own, with no queue, so a
/// handler never runs inline inside user code, or inside a `sync` block that user code entered.
@usableFromInline
struct Cascade {
    /// How many hops a block on a queue runs inline before it hands the rest of its chain to a
    /// new block on the same queue, so that a long chain cannot hold a serial queue for long:
    /// other work queued there waits for at most this many of the chain's handlers.
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

    @inlinable @inline(__always)
    init(queue: DispatchQueue?) {
        stack = []
        self.queue = queue.map(ObjectIdentifier.init)
        hopsLeft = queue == nil ? 0 : Cascade.hopsPerBlock
    }

    /// Whether a handler for `queue` may run now, inline, instead of in a block of its own; if
    /// so, counts the hop.
    @inlinable
    mutating func mayHopInline(to queue: DispatchQueue) -> Bool {
        guard hopsLeft > 0, self.queue == ObjectIdentifier(queue) else { return false }
        hopsLeft -= 1
        return true
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
    /// `queue`: hops to `queue` may run in this block (see ``Cascade``).
    @inlinable
    static func run(_ first: consuming _PledgeStep?, onQueue queue: DispatchQueue) {
        if first == nil { return }
        var cascade = Cascade(queue: queue)
        drain(first, &cascade)
    }

    /// The loop behind both `run`s. Each step is moved out of `current` and dropped once it has
    /// run, so the loop copies nothing: no retain and release of a step's box around its call.
    @inlinable @inline(__always)
    static func drain(_ first: consuming _PledgeStep?, _ cascade: inout Cascade) {
        var current = first
        while let step = current.take() {
            current = step.fire(step.box, &cascade) ?? cascade.stack.popLast()
        }
    }
}
