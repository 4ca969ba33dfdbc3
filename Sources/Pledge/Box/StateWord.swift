/// An ``EmptyBox``'s atomic state word, as read and written under the box's lock.
///
/// | Bits | Field |
/// |---|---|
/// | 0–1 | the phase (``BoxPhase``) |
/// | 2 | the lock bit |
/// | 3–16 | ``storedLane``: the lane of the one handler stored inline (see ``Handlers``) |
/// | 17–30 | ``runningLane``: the lane of the handler the sealing thread's firing loop is running |
/// | 31 | ``BoxPhase/notStarted``: a ``LazyBox`` whose body has not started |
///
/// A *lane* is what keeps one thread's handlers in order: the handlers a thread attached to a
/// box, named by the thread's tag (see ``ThreadRunState/tag``); 0 names none. While a box fires,
/// at most one thread at a time runs a handler of a given lane, and a lane's handlers are taken
/// in the order they were attached, so each starts only after the one before it has returned
/// (see ``EmptyBox/claimNext(as:finished:)``). Keeping the two lanes the usual box needs in its
/// state word is what spares that box a list object.
@frozen @usableFromInline
struct StateWord {
    @usableFromInline
    var raw: UInt32

    @inlinable @inline(__always)
    init(raw: UInt32) {
        self.raw = raw
    }

    /// A word in `phase` with no lanes.
    @inlinable @inline(__always)
    init(phase: UInt32) {
        raw = phase
    }

    @inlinable @inline(__always)
    var phase: UInt32 { raw & BoxPhase.mask }

    /// Makes an ``BoxPhase/unobserved`` word ``BoxPhase/settled``: its failure has been seen.
    /// Leaves any other phase as it is.
    @inlinable @inline(__always)
    mutating func markSeen() {
        if phase == BoxPhase.unobserved { raw = raw & ~BoxPhase.mask | BoxPhase.settled }
    }

    /// The lane of the handler stored inline; 0 when the box stores none there.
    @inlinable
    var storedLane: UInt32 {
        @inline(__always) get { (raw >> Lanes.storedShift) & Lanes.mask }
        @inline(__always) set { raw = raw & ~(Lanes.mask << Lanes.storedShift) | newValue << Lanes.storedShift }
    }

    /// The lane of the handler the sealing thread's firing loop has taken and not yet finished;
    /// 0 when it runs none.
    @inlinable
    var runningLane: UInt32 {
        @inline(__always) get { (raw >> Lanes.runningShift) & Lanes.mask }
        @inline(__always) set { raw = raw & ~(Lanes.mask << Lanes.runningShift) | newValue << Lanes.runningShift }
    }
}

/// The width of a lane in the state word (see ``StateWord``).
@usableFromInline
enum Lanes {
    /// The largest lane, and so the largest thread tag.
    @inlinable static var mask: UInt32 { (1 << 14) - 1 }
    @inlinable static var storedShift: UInt32 { 3 }
    @inlinable static var runningShift: UInt32 { 17 }
}
