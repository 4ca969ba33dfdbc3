/// One handler, taken out of its box to be called: its function and the target it works for.
///
/// Noncopyable, so that it is called at most once and its target's count moves with it: a copy
/// would cost a retain of the target and of the function's context.
@frozen @usableFromInline
struct Handler: ~Copyable {
    @usableFromInline
    var target: (any HandlerTarget)?
    @usableFromInline
    let function: HandlerFunction

    @inlinable @inline(__always)
    init(target: consuming (any HandlerTarget)?, function: @escaping HandlerFunction) {
        self.target = target
        self.function = function
    }

    /// Calls the handler with `box`, giving it the count the box kept on its target.
    @inlinable @inline(__always)
    consuming func call(with box: AnyObject, _ run: inout Run) -> Step? {
        let function = self.function
        // Moved out, not copied: the handler is given the very count the box kept.
        return function(target.take(), box, &run)
    }
}

/// A handler taken out of its box to run, and its lane (see ``StateWord``): the runner gives
/// the lane back when the handler returns, which lets the lane's next handler be taken.
@frozen @usableFromInline
struct Claim: ~Copyable {
    @usableFromInline
    var handler: Handler
    @usableFromInline
    let lane: UInt32

    @inlinable @inline(__always)
    init(_ handler: consuming Handler, lane: UInt32) {
        self.handler = handler
        self.lane = lane
    }
}

/// The handlers waiting on a pending or firing box, in the order they were attached; touched
/// only under the box's lock.
///
/// Almost every promise has exactly one handler (the next link of its chain), so the first is
/// stored inline, as its target and function, with its lane in the box's state word (see
/// ``StateWord``); a list object is allocated when a second one arrives, or when one is
/// attached while the box fires. The two fields encode three states, in 24 bytes:
///
/// | `target` | `function` | meaning |
/// |---|---|---|
/// | `nil` | `nil` | no handler |
/// | `nil` or an object | a function | one handler |
/// | a ``HandlerList`` | `nil` | a list of handlers (some may have been taken out) |
///
/// It does not depend on the box's value type, so destroying it needs no generic metadata.
@usableFromInline
struct Handlers {
    @usableFromInline
    var target: (any HandlerTarget)?
    @usableFromInline
    var function: HandlerFunction?

    @inlinable
    init() {
        target = nil
        function = nil
    }

    /// Whether no handler is stored and no list is kept.
    @inlinable @inline(__always)
    var isEmpty: Bool { function == nil && target == nil }

    /// Whether a handler is stored that has not been taken out.
    @inlinable
    var hasStored: Bool {
        if let list { return !list.isEmpty }
        return function != nil
    }

    /// The list, when there is one.
    @inlinable
    var list: HandlerList? {
        guard function == nil, let target else { return nil }
        // Safety: with no function stored, a target is only ever a `HandlerList` (see the
        // table above and `makeList(_:)`).
        return unsafeDowncast(target, to: HandlerList.self)
    }

    /// Stores `handler`, of lane `lane`: inline when none is stored, its lane kept in `word`.
    @inlinable @inline(__always)
    mutating func append(_ handler: consuming Handler, lane: UInt32, _ word: inout StateWord) {
        if isEmpty {
            // The usual case, kept inline in the caller.
            target = handler.target
            function = handler.function
            word.storedLane = lane
        } else {
            makeList(&word).append(HandlerList.Entry(handler, lane: lane))
        }
    }

    /// The list, made now if there is none; a handler stored inline moves into it, with the
    /// lane `word` kept for it.
    @inlinable
    mutating func makeList(_ word: inout StateWord) -> HandlerList {
        if let list { return list }
        var items: [HandlerList.Entry?] = []
        if let function = function.take() {
            items.append(HandlerList.Entry(target: target.take(), function: function, lane: word.storedLane))
            word.storedLane = 0
        }
        let list = HandlerList(items)
        target = list
        return list
    }

    /// Moves out the handler stored inline, with the lane `word` kept for it.
    @inlinable @inline(__always)
    mutating func takeInline(_ word: inout StateWord) -> Claim? {
        guard let function = function.take() else { return nil }
        let lane = word.storedLane
        word.storedLane = 0
        return Claim(Handler(target: target.take(), function: function), lane: lane)
    }

    /// Moves out the handler whose target is `target`, unless it has been taken out to run.
    @inlinable
    mutating func remove(target removed: AnyObject, _ word: inout StateWord) -> Handler? {
        if function != nil {
            guard target === removed, let function = function.take() else { return nil }
            word.storedLane = 0
            return Handler(target: target.take(), function: function)
        }
        guard let list, let entry = list.remove(target: removed) else { return nil }
        return Handler(target: entry.target, function: entry.function)
    }

    /// Tells every target that keeps something for its handler (a box: see ``AnyBox/abandon(from:)``) that
    /// the handler will never run. Only the `deinit` of an abandoned box calls it.
    @inlinable
    func abandonTargets(from source: ObjectIdentifier) {
        if function != nil {
            (target as? AnyBox)?.abandon(from: source)
        } else if let list {
            for case let handler? in list.items[list.head...] {
                (handler.target as? AnyBox)?.abandon(from: source)
            }
        }
    }
}

/// The handlers of a box that has had more than one, or had one attached while it fired, in
/// attachment order, with their lanes (see ``StateWord``); and the lanes that helping threads
/// are running now. A handler taken out or removed leaves `nil` behind: those before `head` are
/// all gone, and `count` says how many are left.
@usableFromInline
final class HandlerList: @unchecked Sendable {
    // Safety: every field is only touched under the lock of the one box whose `Handlers` holds
    // this list.

    /// A handler as the list keeps it (an array needs copyable elements).
    @usableFromInline
    struct Entry {
        @usableFromInline var target: (any HandlerTarget)?
        @usableFromInline let function: HandlerFunction
        @usableFromInline let lane: UInt32

        @inlinable
        init(target: (any HandlerTarget)?, function: @escaping HandlerFunction, lane: UInt32) {
            self.target = target
            self.function = function
            self.lane = lane
        }

        @inlinable
        init(_ handler: consuming Handler, lane: UInt32) {
            target = handler.target
            function = handler.function
            self.lane = lane
        }
    }

    @exclusivity(unchecked)
    @usableFromInline
    var items: [Entry?]
    @exclusivity(unchecked)
    @usableFromInline
    var head: Int
    @exclusivity(unchecked)
    @usableFromInline
    var count: Int
    /// The lanes whose handlers helping threads are running now, one handler each.
    @exclusivity(unchecked)
    @usableFromInline
    var helping: [UInt32]
    /// A lane whose thread attached a handler while the sealing thread's loop was running one of
    /// the lane's handlers: that loop takes the lane's next handler next, so the attaching thread
    /// waits for nobody's handler but its own. 0 when none.
    @exclusivity(unchecked)
    @usableFromInline
    var preferred: UInt32
    /// Where the handler of each target is, for a long list whose handlers are taken back by
    /// target (see ``remove(target:)``); made on first need, dropped when the list is compacted.
    @exclusivity(unchecked)
    @usableFromInline
    var positions: [ObjectIdentifier: Int]?

    @inlinable
    init(_ items: [Entry?]) {
        self.items = items
        head = 0
        count = items.count
        helping = []
        preferred = 0
        positions = nil
    }

    /// Whether every handler has been taken out.
    @inlinable
    var isEmpty: Bool { count == 0 }

    @inlinable
    func append(_ entry: Entry) {
        items.append(entry)
        count += 1
        if positions != nil, let target = entry.target { note(target, at: items.count - 1) }
    }

    /// Records where `target`'s handler is, unless an earlier one of the same target is there.
    @inlinable
    func note(_ target: AnyObject, at index: Int) {
        let key = ObjectIdentifier(target)
        if positions?[key] == nil { positions?[key] = index }
    }

    /// Takes out the next handler for the sealing thread's loop, which has just finished a
    /// handler of lane `finished` (0 for none): the lane's next one when its thread asked for it
    /// (see ``preferred``), else the first whose lane no helping thread is running.
    @inlinable
    func takeForSealer(finished: UInt32) -> Entry? {
        if preferred != 0 {
            let lane = preferred
            preferred = 0
            if lane == finished, let entry = takeFirst(where: { $0 == lane }) { return entry }
        }
        if helping.isEmpty { return takeFirst(where: { _ in true }) }
        return takeFirst(where: { !helping.contains($0) })
    }

    /// Takes out the first handler of lane `lane`.
    @inlinable
    func takeFirst(of lane: UInt32) -> Entry? {
        takeFirst(where: { $0 == lane })
    }

    /// Takes out the first handler whose lane passes `isEligible`.
    @inlinable
    func takeFirst(where isEligible: (UInt32) -> Bool) -> Entry? {
        var index = head
        while index < items.count {
            if let entry = items[index], isEligible(entry.lane) {
                items[index] = nil
                count -= 1
                if positions != nil, let target = entry.target { positions?[ObjectIdentifier(target)] = nil }
                while head < items.count, items[head] == nil { head += 1 }
                return entry
            }
            index += 1
        }
        return nil
    }

    /// Takes out the handler attached with `target`. A long list looks it up in ``positions``;
    /// a short one, or a target found there no longer, is searched from both ends at once. Gaps
    /// are compacted away once there are many, so that taking back the handlers of many
    /// cancelled dependents costs time in proportion to their number, in any order, and
    /// attaching and taking back for ever keeps the list small.
    @inlinable
    func remove(target: AnyObject) -> Entry? {
        if items.count - head > 64 {
            if positions == nil {
                positions = [:]
                for index in head..<items.count { if let target = items[index]?.target { note(target, at: index) } }
            }
            if let index = positions?[ObjectIdentifier(target)], items[index]?.target === target {
                return take(at: index)
            }
        }
        var low = head
        var high = items.count - 1
        while low <= high {
            if items[low]?.target === target { return take(at: low) }
            if items[high]?.target === target { return take(at: high) }
            low += 1
            high -= 1
        }
        return nil
    }

    @inlinable
    func take(at index: Int) -> Entry? {
        let entry = items[index].take()
        count -= 1
        if positions != nil, let target = entry?.target { positions?[ObjectIdentifier(target)] = nil }
        while head < items.count, items[head] == nil { head += 1 }
        while items.count > head, items[items.count - 1] == nil { items.removeLast() }
        let holes = items.count - head - count
        if holes >= 16, holes >= count / 8 {
            items = items[head...].filter { $0 != nil }
            head = 0
            positions = nil
        }
        return entry
    }
}
