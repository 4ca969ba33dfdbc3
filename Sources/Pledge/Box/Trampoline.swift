/// A sealed box whose handlers are due, together with the function that runs them.
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
    let fire: (AnyObject, inout [_PledgeStep]) -> _PledgeStep?

    @inlinable
    init(_ box: AnyObject, fire: @escaping (AnyObject, inout [_PledgeStep]) -> _PledgeStep?) {
        self.box = box
        self.fire = fire
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
    static func run(_ first: _PledgeStep?) {
        guard var step = first else { return }
        var stack: [_PledgeStep] = []
        while true {
            if let next = step.fire(step.box, &stack) {
                step = next
            } else if let next = stack.popLast() {
                step = next
            } else {
                return
            }
        }
    }
}
