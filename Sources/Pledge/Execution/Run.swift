import Dispatch

/// The state of one run of the ``Trampoline``: the steps still to run, and, for the body of a
/// block Pledge dispatched, the scheduler that may run the chain's next hop inline at the end of
/// the block (see ``BlockSharing``).
///
/// Passed `inout` to every step and handler of the run; noncopyable, so it is never copied.
@frozen @usableFromInline
struct Run: ~Copyable {
    /// Steps to run after the current one, last first.
    @usableFromInline
    var stack: StepStack

    /// The block-sharing scheduler, holding the tail when there is one.
    @usableFromInline
    var sharing: BlockSharing

    /// The state of the thread the run is on.
    @usableFromInline
    let thread: UnsafeMutablePointer<ThreadRunState>

    /// The tag of the thread the run is on (see ``ThreadRunState/tag``).
    @inlinable @inline(__always)
    var tag: UInt32 { thread.pointee.tag }

    /// The identity of the queue this run's block runs on, when it shares blocks; `nil`
    /// otherwise. The block keeps its queue alive for the whole run, so the identity cannot be
    /// reused by another queue meanwhile.
    @usableFromInline
    let queue: ObjectIdentifier?

    /// A run that is the body of a block on `queue`, which may share it with the chain's next
    /// hops; or, with `nil`, a run that dispatches every hop (started by code that resolves or
    /// attaches).
    @inlinable @inline(__always)
    init(sharingBlocksOn queue: DispatchQueue?, on thread: UnsafeMutablePointer<ThreadRunState>) {
        self.thread = thread
        stack = StepStack()
        self.queue = queue.map(ObjectIdentifier.init)
        sharing = BlockSharing(sharing: queue != nil)
    }

    /// Seals the box `box` holds with `value`, as a handler of this run.
    ///
    /// - Returns: the step that fires the box, which takes over the count; `nil` when no handler
    ///   is due (the count is given back).
    @inlinable @inline(__always)
    func seal<R>(_ box: consuming Retained<EmptyBox<R>>, with value: R) -> Step? {
        guard box.withObject({ $0.seal(value) }) else { return nil }
        return EmptyBox.fireStep(box)
    }

    /// A box starts firing (see ``BlockSharing/startFiring()``). A run that is not a block on a
    /// queue never shares one, so it skips the scheduler altogether.
    @inlinable @inline(__always)
    mutating func startFiring() {
        if queue != nil { sharing.startFiring() }
    }

    /// The tail kept for the end of the block, if any (see ``BlockSharing/takeTail()``).
    @inlinable @inline(__always)
    mutating func takeTail() -> Tail? {
        queue == nil ? nil : sharing.takeTail()
    }

    /// Whether `queue` is the queue of this run's block.
    @inlinable @inline(__always)
    func isBlock(of queue: DispatchQueue) -> Bool {
        self.queue == ObjectIdentifier(queue)
    }

    /// A queued handler of the box now firing offers `candidate`, its operation run as a tail,
    /// for `queue`: the run keeps it for the end of the block, or it is dispatched (after the
    /// earlier tail it must not overtake, when there is one).
    @inlinable
    mutating func hop(_ candidate: consuming Tail, to queue: DispatchQueue) {
        guard self.queue != nil else {
            candidate.run(.dispatch, &self).expectNone()
            return
        }
        switch sharing.offer(candidate, sameQueue: isBlock(of: queue)) {
        case .held:
            return
        case .dispatch(let candidate, let earlier):
            if let earlier { earlier.run(.dispatchUnshared, &self).expectNone() }
            candidate.run(.dispatch, &self).expectNone()
        }
    }

    /// A queued handler of the box now firing is dispatched to `queue` whatever the run says: it
    /// still counts as the box's first hop, and the tail the box made is dispatched before it
    /// when both go to the same queue.
    @inlinable
    mutating func noteDispatch(to queue: DispatchQueue) {
        guard self.queue != nil else { return }
        if let earlier = sharing.dispatched(sameQueue: isBlock(of: queue)) {
            earlier.run(.dispatchUnshared, &self).expectNone()
        }
    }
}

extension Optional where Wrapped: ~Copyable {
    /// Checks, in debug builds, that a call whose result is dropped handed back nothing.
    @inlinable @inline(__always)
    consuming func expectNone() {
        switch consume self {
        case .none: return
        case .some: assertionFailure("a call that hands back no step handed one back")
        }
    }
}
