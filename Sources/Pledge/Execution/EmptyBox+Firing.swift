// Firing: running the handlers of a sealed box. One loop does it, whoever runs it: the step that
// the sealing hands back, the thread that resolves a promise, or a thread that attaches a
// handler while the box is still firing.

extension EmptyBox {
    /// The step that fires the box `box` holds, for the thread that sealed it: runs its
    /// handlers. The step takes over the count.
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
            return runHandlers(of: box, as: .sealer, box.claimNext(as: .sealer, finished: 0), &run)
        }
    }

    /// The step that runs the box's handlers of the running thread's lane, for a thread that
    /// attached to the box while it fired (see ``Box/attach(_:_:_:)``). The step takes over the
    /// count.
    @inlinable
    static func helpStep(_ box: consuming Retained<EmptyBox>) -> Step {
        Step(box.erased()) { object, run in
            // Safety: this body is only ever paired with an `EmptyBox<R>`.
            object.stepWithObject {
                let box = unsafeDowncast($0, to: EmptyBox.self)
                let helper = Runner.helper(lane: run.tag)
                return runHandlers(of: box, as: helper, box.claimNext(as: helper, finished: 0), &run)
            }
        }
    }

    /// The firing loop: calls `first`, then takes `runner`'s next handler and calls it, until
    /// `runner` has none left (see ``claimNext(as:finished:)``). Several threads may run it on
    /// the same box at once: the thread that sealed the box, and threads that attached to it
    /// while it fired, each running its own lane. Each handler is taken, and runs, once.
    /// `first` is `nil` when none was due.
    ///
    /// - Returns: the first step a handler handed back. The steps of later handlers go onto the
    ///   run's stack so that they pop in the order their handlers ran, after that step's own
    ///   cascade: the boxes a box's handlers seal fire depth first, in order.
    @inlinable
    static func runHandlers(of box: EmptyBox, as runner: Runner, _ first: consuming Claim?, _ run: inout Run)
        -> Step?
    {
        run.startFiring()
        var next: Step? = nil
        let base = run.stack.count
        var claim = first
        // The thread's own later handlers on the box, attached from the ones called here, wait
        // for this loop (see `EmptyBox.store(_:lane:sealing:)`).
        let outer = run.thread.pointee.sealing
        if case .sealer = runner { run.thread.pointee.sealing = ObjectIdentifier(box) }
        while let current = claim.take() {
            let lane = current.lane
            if let step = current.handler.call(with: box, &run) {
                if next == nil { next = consume step } else { run.stack.push(step) }
            }
            claim = box.claimNext(as: runner, finished: lane)
        }
        run.thread.pointee.sealing = outer
        run.stack.reverse(from: base)
        return next
    }

    /// Seals the box with `newValue` and runs its handlers, and the chain they lead to, before
    /// returning; what resolving a promise does. Sealing a box that is sealed already does
    /// nothing. Past ``Trampoline/maximumNesting`` nested runs, the handlers are left to the
    /// thread's innermost running loop instead.
    @inlinable @inline(never)
    final func resolve(_ newValue: R) {
        let thread = ThreadRunState.current
        guard thread.pointee.depth < Trampoline.maximumNesting else {
            // Too deep to run the handlers now: the running loop fires the box next.
            if seal(newValue) { thread.pointee.deferred.push(EmptyBox.fireStep(Retained(self))) }
            return
        }
        // The handlers run at once, so the first is taken under the sealing lock.
        guard let first = sealTakingFirst(newValue) else { return }
        // The caller keeps the box alive for the whole run, so the firing needs no count.
        Trampoline.run(on: thread, first) { EmptyBox.runHandlers(of: self, as: .sealer, $1, &$0) }
    }
}
