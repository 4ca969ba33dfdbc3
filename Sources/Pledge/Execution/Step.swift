/// What a ``Step`` does: works on its object, whose count it is given, within the current run,
/// and hands back the step to run next, if any.
///
/// Made where the object's type is known (see ``EmptyBox/fireStep(_:)``), so a step never runs
/// unspecialised generic code.
@usableFromInline
typealias StepBody = (consuming Retained<AnyObject>, inout Run) -> Step?

/// One unit of work for the ``Trampoline``: a sealed box whose handlers are due (see
/// ``EmptyBox/fireStep(_:)``), or, rarely, a handler call deferred because the thread was already
/// nested too deep.
///
/// A step owns a count on its object (``Retained``) and is noncopyable, so it runs exactly once:
/// the trampoline consumes it by running it, and its body disposes of the count. Handlers that
/// seal a box hand back such a step instead of running the box's handlers themselves, which is
/// what keeps resolution iterative.
@frozen @usableFromInline
struct Step: ~Copyable {
    @usableFromInline
    var object: Retained<AnyObject>
    @usableFromInline
    let body: StepBody

    @inlinable @inline(__always)
    init(_ object: consuming Retained<AnyObject>, _ body: @escaping StepBody) {
        self.object = object
        self.body = body
    }

    /// Runs the step in `run`.
    ///
    /// - Returns: the step it hands back.
    @inlinable @inline(__always)
    consuming func run(_ run: inout Run) -> Step? {
        let body = self.body
        return body(object, &run)
    }
}

/// Steps waiting to run, last in first out.
///
/// A plain array of the steps' parts: `Array` needs copyable elements, so a step is parked on
/// the way in (its count becomes a bare `Unmanaged`) and adopted again on the way out. This type
/// is the only place that does so; its `deinit` gives back the counts of any steps left behind,
/// so a stack dropped with steps in it leaks nothing.
@frozen @usableFromInline
struct StepStack: ~Copyable {
    @usableFromInline
    struct Parked {
        @usableFromInline let object: Unmanaged<AnyObject>
        @usableFromInline let body: StepBody

        @inlinable @inline(__always)
        init(object: Unmanaged<AnyObject>, body: @escaping StepBody) {
            self.object = object
            self.body = body
        }
    }

    // Safety: each element owns the count of the step it was parked from; `pop` adopts it back
    // into a step and `deinit` gives back the rest, so every count is given back exactly once.
    @usableFromInline
    var items: [Parked]

    @inlinable @inline(__always)
    init() {
        items = []
    }

    @inlinable
    deinit {
        if !items.isEmpty {
            for parked in items { parked.object.release() }
        }
    }

    @inlinable @inline(__always)
    var isEmpty: Bool { items.isEmpty }

    @inlinable @inline(__always)
    var count: Int { items.count }

    @inlinable @inline(__always)
    mutating func push(_ step: consuming Step) {
        let body = step.body
        items.append(Parked(object: step.object.parked(), body: body))
    }

    @inlinable @inline(__always)
    mutating func pop() -> Step? {
        guard let parked = items.popLast() else { return nil }
        return Step(Retained(adopting: parked.object), parked.body)
    }

    /// Turns the steps pushed since the stack held `base` around, so that the first of them pops
    /// first. The firing of a box pushes the steps its handlers hand back in attachment order.
    @inlinable @inline(__always)
    mutating func reverse(from base: Int) {
        if items.count - base > 1 { items[base...].reverse() }
    }

    /// Moves every step onto `other`, so that they pop from it in the order they were pushed
    /// here.
    @inlinable
    mutating func moveAll(onto other: inout StepStack) {
        other.items.append(contentsOf: items.reversed())
        items.removeAll(keepingCapacity: true)
    }
}
