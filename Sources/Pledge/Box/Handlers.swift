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

/// A handler taken out of its box, and whether it was the last one due.
@frozen @usableFromInline
struct Claim: ~Copyable {
    @usableFromInline
    var handler: Handler
    @usableFromInline
    let isLast: Bool

    @inlinable @inline(__always)
    init(_ handler: consuming Handler, isLast: Bool) {
        self.handler = handler
        self.isLast = isLast
    }
}

/// The handlers waiting on a pending or firing box, in the order they were attached; touched
/// only under the box's lock.
///
/// Almost every promise has exactly one handler (the next link of its chain), so the first is
/// stored inline, as its target and function; a list object is allocated only when a second one
/// arrives. The two fields encode three states, in 24 bytes:
///
/// | `target` | `function` | meaning |
/// |---|---|---|
/// | `nil` | `nil` | no handler |
/// | `nil` or an object | a function | one handler |
/// | a ``HandlerList`` | `nil` | two or more handlers (some may have started), in the list |
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

    @inlinable @inline(__always)
    var isEmpty: Bool { function == nil && target == nil }

    /// The list, when two or more handlers were stored.
    @inlinable
    var list: HandlerList? {
        guard function == nil, let target else { return nil }
        // Safety: with no function stored, a target is only ever a `HandlerList` (see the
        // table above and `append`).
        return unsafeDowncast(target, to: HandlerList.self)
    }

    @inlinable @inline(__always)
    mutating func append(_ handler: consuming Handler) {
        if isEmpty {
            // The usual case, kept inline in the caller.
            target = handler.target
            function = handler.function
        } else {
            appendToMany(HandlerList.Entry(handler))
        }
    }

    /// ``append(_:)`` when a handler is stored already.
    @inlinable
    mutating func appendToMany(_ entry: HandlerList.Entry) {
        if let list {
            list.append(entry)
        } else if let function {
            let first = HandlerList.Entry(target: target, function: function)
            target = HandlerList([first, entry])
            self.function = nil
        }
    }

    /// Moves the first handler out.
    ///
    /// - Returns: the handler, and whether it was the last; `nil` when there is none.
    @inlinable @inline(__always)
    mutating func takeFirst() -> Claim? {
        if let function = function.take() {
            return Claim(Handler(target: target.take(), function: function), isLast: true)
        }
        return takeFirstOfMany()
    }

    /// ``takeFirst()`` for a list, kept apart so that the usual case stays small. The list goes
    /// once its last handler is out.
    @inlinable
    mutating func takeFirstOfMany() -> Claim? {
        guard let list, let entry = list.takeFirst() else { return nil }
        let isLast = list.isEmpty
        if isLast { target = nil }
        return Claim(Handler(target: entry.target, function: entry.function), isLast: isLast)
    }

    /// Moves out the handler whose target is `target`, unless it has started.
    @inlinable
    mutating func remove(target removed: AnyObject) -> Handler? {
        if function != nil {
            guard target === removed, let function = function.take() else { return nil }
            return Handler(target: target.take(), function: function)
        }
        guard let list, let entry = list.remove(target: removed) else { return nil }
        if list.isEmpty { target = nil }
        return Handler(target: entry.target, function: entry.function)
    }

    /// Tells every target that keeps something for its handler (see ``AbandonableTarget``) that
    /// the handler will never run. Only the `deinit` of an abandoned box calls it.
    @inlinable
    func abandonTargets() {
        if function != nil {
            (target as? any AbandonableTarget)?.abandon()
        } else if let list {
            for case let handler? in list.items[list.head...] {
                (handler.target as? any AbandonableTarget)?.abandon()
            }
        }
    }
}

/// The handlers of a box that has had more than one, in attachment order. Those before `head`
/// have been taken out to run; a removed one leaves `nil` behind, and `count` says how many are
/// left.
@usableFromInline
final class HandlerList: @unchecked Sendable {
    // Safety: `items` and `head` are only touched under the lock of the one box whose `Handlers`
    // holds this list.

    /// A handler as the list keeps it (an array needs copyable elements).
    @usableFromInline
    struct Entry {
        @usableFromInline var target: (any HandlerTarget)?
        @usableFromInline let function: HandlerFunction

        @inlinable
        init(target: (any HandlerTarget)?, function: @escaping HandlerFunction) {
            self.target = target
            self.function = function
        }

        @inlinable
        init(_ handler: consuming Handler) {
            target = handler.target
            function = handler.function
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

    @inlinable
    init(_ items: [Entry?]) {
        self.items = items
        head = 0
        count = items.count
    }

    /// Whether every handler has been taken out.
    @inlinable
    var isEmpty: Bool { count == 0 }

    @inlinable
    func append(_ entry: Entry) {
        items.append(entry)
        count += 1
    }

    /// Moves the first handler out, skipping removed ones.
    @inlinable
    func takeFirst() -> Entry? {
        while head < items.count {
            let taken = items[head].take()
            head += 1
            if let taken {
                count -= 1
                return taken
            }
        }
        return nil
    }

    @inlinable
    func remove(target: AnyObject) -> Entry? {
        for index in items.indices[head...] where items[index]?.target === target {
            count -= 1
            return items[index].take()
        }
        return nil
    }
}

/// A handler target that keeps something only for its handler's call: told when the box it
/// waits on is freed unresolved, so that it can let go at once.
@usableFromInline
protocol AbandonableTarget: AnyObject {
    /// The handler this target was attached with will never be called.
    func abandon()
}
