/// The handlers waiting on a pending box, in the order they were attached.
///
/// The first handler is stored inline; an array is allocated only when a second one arrives,
/// because almost every promise has exactly one handler (the next link of its chain).
@usableFromInline
struct Handlers<R: Sendable> {
    @usableFromInline
    var first: BoxHandler<R>?
    @usableFromInline
    var rest: [BoxHandler<R>]

    @inlinable
    init() {
        first = nil
        rest = []
    }

    @inlinable
    var isEmpty: Bool { first == nil }

    @inlinable
    mutating func append(_ handler: @escaping BoxHandler<R>) {
        if first == nil {
            first = handler
        } else {
            rest.append(handler)
        }
    }

    /// Runs every handler with `value`, in order.
    ///
    /// - Returns: the first step a handler handed back; later steps are pushed on `stack` so that
    ///   they are popped in attachment order after the first step's cascade has finished.
    @inlinable
    func run(_ value: R, _ stack: inout [_PledgeStep]) -> _PledgeStep? {
        guard let first else { return nil }
        var next = first(value)
        if rest.isEmpty { return next }
        var later: [_PledgeStep] = []
        for handler in rest {
            guard let step = handler(value) else { continue }
            if next == nil {
                next = step
            } else {
                later.append(step)
            }
        }
        stack.append(contentsOf: later.reversed())
        return next
    }
}
