/// The handlers of a box that has had more than one, or had one attached while it fired, in
/// attachment order, with who runs which; touched only under its box's lock.
///
/// Each handler has a *lane*: the thread that attached it. The thread that sealed the box (the
/// *sealer*) runs them one at a time; a thread attaching meanwhile runs its own lane (a *helper*),
/// so it never waits for another thread's handler. Each lane's handlers start in the order its
/// thread attached them, each after the one before has returned, whichever threads run them.
@usableFromInline
final class HandlerList: @unchecked Sendable {
    // Safety: the list is reachable only from its box's state, and every property is read and
    // written only inside that box's `withLock` (see `EmptyBox`).

    /// A handler and its lane (the tag of the thread that attached it, see ``ThreadRun/tag``).
    typealias Entry = (handler: Handler, lane: UInt64)

    /// The handlers in attachment order; `nil` where one was taken out, as all before `head` are.
    var entries: [Entry?] = []
    var head = 0
    /// How many entries are not `nil`.
    var stored = 0
    /// Whether the sealer is running a handler now, and that handler's lane.
    var sealerBusy = false
    var sealerLane: UInt64 = 0
    /// The tag of the thread whose loop fires the box; 0 until it runs.
    var sealer: UInt64 = 0
    /// The lanes helpers are running now.
    var helpers: [UInt64] = []
    /// A lane whose thread attached while the sealer ran one of its handlers (or 0): the sealer
    /// takes that lane's next handler next, so the thread waits for no one's handler but its own.
    var preferred: UInt64 = 0
    /// The `onCancel` bodies of a pending box, in order (not dependents): run if it is cancelled.
    var hooks: [@Sendable () -> Void] = []

    init(_ entries: [Entry?]) {
        self.entries = entries
        stored = entries.count
    }

    /// A list for a box whose sealer, of tag `sealer`, runs its only handler, of lane `lane`.
    init(sealerRunning lane: UInt64, sealer: UInt64) {
        sealerBusy = true
        sealerLane = lane
        self.sealer = sealer
    }

    func append(_ handler: Handler, lane: UInt64) {
        entries.append((handler, lane))
        stored += 1
    }

    /// Nothing stored and nothing running: the box may settle.
    var isIdle: Bool { stored == 0 && !sealerBusy && helpers.isEmpty }

    /// Stores `handler`, attached by thread `thread` while the box fires, and says whether that
    /// thread must help. The sealer attaches only from inside a handler of the box: its loop
    /// takes the new one in its turn, after those attached before (A+ 2.2.6).
    func attachWhileFiring(_ handler: Handler, lane: UInt64, from thread: UInt64) -> Attachment {
        append(handler, lane: lane)
        if thread == sealer { return .stored }
        if sealerBusy, sealerLane == lane {
            // The sealer runs this thread's handler now: it takes this one next.
            preferred = lane
            return .stored
        }
        if helpers.contains(lane) { return .stored }
        helpers.append(lane)
        return .help
    }

    /// The sealer's (thread `tag`) next handler, once it has finished one of lane `finished`:
    /// that lane's next when its thread asked for it, else the first whose lane no helper runs.
    func claimForSealer(_ tag: UInt64, finished: UInt64) -> Entry? {
        sealerBusy = false
        var next: Entry? = nil
        if preferred != 0 {
            let lane = preferred
            preferred = 0
            if lane == finished { next = take { $0 == lane } }
        }
        if next == nil { next = helpers.isEmpty ? take { _ in true } : take { !helpers.contains($0) } }
        if let next {
            sealerBusy = true
            sealerLane = next.lane
        }
        // Its loop ends when it finds nothing: from then on it attaches as any other thread.
        sealer = next == nil ? 0 : tag
        return next
    }

    /// A helper's next handler: its own lane's; when none is left, it stops helping.
    func claimForHelper(_ lane: UInt64) -> Entry? {
        if let next = take({ $0 == lane }) { return next }
        helpers.removeAll { $0 == lane }
        return nil
    }

    /// Takes out the first handler whose lane passes `isEligible`.
    func take(_ isEligible: (UInt64) -> Bool) -> Entry? {
        for index in head..<entries.count {
            if let entry = entries[index], isEligible(entry.lane) { return take(at: index) }
        }
        return nil
    }

    /// Takes back the handler of `dependent`, at most one (see ``CancelReason``), unless taken out
    /// to run. Searched from both ends: cancelling in or against attachment order is quick.
    func remove(_ dependent: AnyObject) -> Entry? {
        var low = head
        var high = entries.count - 1
        while low <= high {
            if entries[low]?.handler.receiver === dependent { return take(at: low) }
            if entries[high]?.handler.receiver === dependent { return take(at: high) }
            low += 1
            high -= 1
        }
        return nil
    }

    /// The handlers stored, in attachment order.
    var handlers: [Handler] { entries[head...].compactMap { $0?.handler } }

    func take(at index: Int) -> Entry? {
        let handler = entries[index].take()
        stored -= 1
        while head < entries.count, entries[head] == nil { head += 1 }
        while entries.count > head, entries[entries.count - 1] == nil { entries.removeLast() }
        // Compacted once holes outnumber handlers: attaching and taking back forever stays small.
        if entries.count - head > 2 * stored + 16 {
            entries = entries[head...].filter { $0 != nil }
            head = 0
        }
        return handler
    }

    /// Tells every stored receiver that it will never be called: the box is freed unresolved.
    func abandonAll(by source: ObjectIdentifier) {
        for case let entry? in entries[head...] { entry.handler.abandon(by: source) }
    }
}
