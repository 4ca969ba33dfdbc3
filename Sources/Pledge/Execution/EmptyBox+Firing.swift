// Firing: running the handlers of a sealed box. One loop does it, whoever runs it: the step that
// the sealing hands back, the thread that resolves a promise, or a thread that attaches a
// handler while the box is still firing.

extension EmptyBox {
    /// The step that fires the box `box` holds: runs its due handlers. The step takes over the
    /// count.
    @inlinable @inline(__always)
    static func fireStep(_ box: consuming Retained<EmptyBox>) -> Step {
        Step(box.erased(), EmptyBox.fire)
    }

    /// The body of ``fireStep(_:)``.
    @inlinable
    static func fire(_ object: consuming Retained<AnyObject>, _ run: inout Run) -> Step? {
        // Safety: only `fireStep` makes steps with this body, always with an `EmptyBox<R>`.
        object.stepWithObject {
            let box = unsafeDowncast($0, to: EmptyBox.self)
            return runHandlers(of: box, box.claimNext(), &run)
        }
    }

    /// The firing loop: calls `first`, the box's first due handler, then takes the others one at
    /// a time, in attachment order, and calls each; the box settles when the last is taken.
    /// Several threads may run it on the same box at once (see ``Box/attach(_:_:)``): each
    /// handler is taken, and runs, once. `first` is `nil` when none was due.
    ///
    /// Taking one handler at a time is what lets a handler attached while the box fires start
    /// after the earlier ones, wherever it was attached from, without waiting for any of them to
    /// finish.
    ///
    /// - Returns: the step the first handler handed back. The steps of later handlers go onto the
    ///   run's stack so that they pop in attachment order, after that step's own cascade: the
    ///   boxes a box's handlers seal fire depth first, in order.
    @inlinable
    static func runHandlers(of box: EmptyBox, _ first: consuming Claim?, _ run: inout Run) -> Step? {
        run.startFiring()
        var next: Step? = nil
        let base = run.stack.count
        var claim = first
        while let current = claim.take() {
            let isLast = current.isLast
            if let step = current.handler.call(with: box, &run) {
                if next == nil { next = consume step } else { run.stack.push(step) }
            }
            if !isLast { claim = box.claimNext() }
        }
        run.stack.reverse(from: base)
        return next
    }

    /// Seals the box with `newValue` and runs its handlers, and the chain they lead to, before
    /// returning; what resolving a promise does. Sealing a box that is sealed already does
    /// nothing.
    @inlinable @inline(never)
    final func resolve(_ newValue: R) {
        let thread = ThreadRunState.current
        guard thread.pointee.depth < Trampoline.maximumNesting else {
            // Too deep to run the handlers now: the running loop fires the box next.
            if seal(newValue, by: thread.pointee.tag) {
                thread.pointee.deferred.push(EmptyBox.fireStep(Retained(self)))
            }
            return
        }
        // The handlers run at once, so the first is taken under the sealing lock.
        guard let first = sealTakingFirst(newValue, by: thread.pointee.tag) else { return }
        // The caller keeps the box alive for the whole run, so the firing needs no count.
        Trampoline.run(on: thread, first) { EmptyBox.runHandlers(of: self, $1, &$0) }
    }
}
