/// The scheduler of one run: decides, for each queued handler whose input comes in (a hop),
/// whether it runs inline at the end of the current block, as the block's *tail*, or is
/// dispatched in a block of its own. A state machine: each transition says what the caller must
/// do, and the state cannot describe an illegal combination.
///
/// A hop may become the tail only when all of these hold:
/// - the run is the body of a block Pledge dispatched to the hop's queue, on a queue that shares
///   blocks (never the main queue, and only while ``PMKConfiguration/chainsShareBlocks`` is on);
///   otherwise the run starts ``closed``;
/// - it is the first hop of the box now firing (``open(hopsLeft:awaitingFirstHop:)``): later
///   handlers of that box are dispatched, so that on a concurrent queue they still run
///   concurrently with it;
/// - the run holds no tail yet: the tail runs once everything else the block started has run,
///   where a block dispatched at that moment would have started on an idle queue;
/// - the block has not dispatched a hop to its own queue: a later tail would overtake that block.
///   Such a dispatch closes the block (``closed``, ``closedHolding(_:)``);
/// - the block has taken fewer than ``hopsPerBlock`` hops inline, so a long chain cannot hold a
///   serial queue for long.
///
/// When a later handler of the box that made the tail goes to the same queue, it must not start
/// before the tail, so the tail is dispatched first (unshared), just ahead of it. A handler
/// attached only after the box finished firing starts a run of its own that knows nothing of the
/// tail, so on a concurrent queue it may start first: ``PMKConfiguration/chainsShareBlocks``
/// documents that exception.
@usableFromInline
enum BlockSharing: ~Copyable {
    /// Every hop is dispatched: the run is not a block that shares, or the block has dispatched
    /// a hop to its own queue, or it has taken all the hops it may.
    case closed
    /// No tail is held; `hopsLeft` (at least 1) more hops may run inline. `awaitingFirstHop`:
    /// the box now firing has not hopped yet, so its next hop may become the tail.
    case open(hopsLeft: Int, awaitingFirstHop: Bool)
    /// `tail` waits for the end of the block; `ofFiringBox` when the box now firing made it.
    /// After it has run, `hopsLeft` more hops may run inline.
    case holding(Tail, hopsLeft: Int, ofFiringBox: Bool)
    /// Closed, with the tail an earlier box made still waiting for the end of the block.
    case closedHolding(Tail)

    /// How many hops a block runs inline before the rest of its chain goes to a new block.
    @inlinable
    static var hopsPerBlock: Int { 16 }

    /// The state a run starts in: `open` for the body of a block that shares, `closed` otherwise.
    @inlinable @inline(__always)
    init(sharing: Bool) {
        self = sharing ? .open(hopsLeft: Self.hopsPerBlock, awaitingFirstHop: false) : .closed
    }

    /// A box starts firing: its first hop may become the tail, and a tail held now was made by
    /// an earlier box.
    @inlinable @inline(__always)
    mutating func startFiring() {
        switch consume self {
        case .closed:
            self = .closed
        case .open(let hopsLeft, _):
            self = .open(hopsLeft: hopsLeft, awaitingFirstHop: true)
        case .holding(let tail, let hopsLeft, _):
            self = .holding(tail, hopsLeft: hopsLeft, ofFiringBox: false)
        case .closedHolding(let tail):
            self = .closedHolding(tail)
        }
    }

    /// A hop of the box now firing offers `candidate`, which goes to the block's own queue when
    /// `sameQueue`.
    ///
    /// - Returns: ``HopAction/held`` when the run keeps `candidate` as its tail; otherwise the
    ///   candidate, to dispatch, and maybe the tail to dispatch (unshared) before it.
    @inlinable
    mutating func offer(_ candidate: consuming Tail, sameQueue: Bool) -> HopAction {
        if sameQueue, let hopsLeft = hopsLeftForTail {
            self = .holding(candidate, hopsLeft: hopsLeft - 1, ofFiringBox: true)
            return .held
        }
        return .dispatch(candidate, after: dispatched(sameQueue: sameQueue))
    }

    /// When the next hop of the box now firing may become the tail: the hops the block may take
    /// inline, that one included.
    @inlinable @inline(__always)
    var hopsLeftForTail: Int? {
        switch self {
        case .open(let hopsLeft, true): return hopsLeft
        default: return nil
        }
    }

    /// A hop of the box now firing is dispatched whatever the run says (it has flags, or it
    /// follows a thenable outside Pledge). It counts as that box's first hop, and when
    /// `sameQueue` it closes the block.
    ///
    /// - Returns: the tail to dispatch, unshared, before that hop: the one the same box made,
    ///   when the hop goes to the same queue.
    @inlinable
    mutating func dispatched(sameQueue: Bool) -> Tail? {
        switch consume self {
        case .closed:
            self = .closed
            return nil
        case .closedHolding(let tail):
            self = .closedHolding(tail)
            return nil
        case .open(let hopsLeft, _):
            self = sameQueue ? .closed : .open(hopsLeft: hopsLeft, awaitingFirstHop: false)
            return nil
        case .holding(let tail, let hopsLeft, let ofFiringBox):
            guard sameQueue else {
                self = .holding(tail, hopsLeft: hopsLeft, ofFiringBox: ofFiringBox)
                return nil
            }
            if ofFiringBox {
                self = .closed
                return tail
            }
            self = .closedHolding(tail)
            return nil
        }
    }

    /// The block has nothing else left to run: takes the tail out, to run it inline.
    @inlinable @inline(__always)
    mutating func takeTail() -> Tail? {
        switch consume self {
        case .holding(let tail, let hopsLeft, _):
            self = hopsLeft > 0 ? .open(hopsLeft: hopsLeft, awaitingFirstHop: false) : .closed
            return tail
        case .closedHolding(let tail):
            self = .closed
            return tail
        case .open(let hopsLeft, let awaitingFirstHop):
            self = .open(hopsLeft: hopsLeft, awaitingFirstHop: awaitingFirstHop)
            return nil
        case .closed:
            self = .closed
            return nil
        }
    }
}

/// What a hop must do, as ``BlockSharing/offer(_:sameQueue:)`` decides.
@usableFromInline
enum HopAction: ~Copyable {
    /// The run keeps the candidate as its tail.
    case held
    /// Dispatch `after` first (unshared), when there is one, then the candidate.
    case dispatch(Tail, after: Tail?)
}
