// Attaching: storing a handler in a box, or running it when the box no longer needs to store it.

extension Box {
    /// Attaches a handler, from code outside any run (an operator, `pipe(to:)`): called with
    /// `target` and the box once the box is sealed and every handler this thread attached to it
    /// before has returned.
    ///
    /// - pending: stored; the thread that seals the box runs it.
    /// - settled: run at once, on this thread.
    /// - firing: stored, in this thread's lane (see ``StateWord``). Unless another thread runs
    ///   one of this thread's handlers of the box now, this thread runs its lane's waiting
    ///   handlers itself, in attachment order, this one last: the thread that sealed the box may
    ///   be busy in another thread's handler for as long as that handler likes (it may even wait
    ///   for this one), and this handler must not wait for it. Otherwise that runner takes this
    ///   one as soon as the earlier one returns.
    @inlinable @inline(__always)
    final func attach(_ target: consuming (any HandlerTarget)?, _ function: @escaping HandlerFunction) {
        let handler = Handler(target: target, function: function)
        let phase = phase
        // Settled, or settled and unobserved (the two highest phases): run it at once.
        if phase >= BoxPhase.settled {
            if phase == BoxPhase.unobserved { observe() }
            return Trampoline.call(handler, with: self)
        }
        // Safety: only an `EmptyBox` is ever in a phase other than `settled` (see `state`).
        let box = unsafeDowncast(self, to: EmptyBox<R>.self)
        let thread = ThreadRunState.current
        switch box.store(handler, lane: thread.pointee.tag, sealing: thread.pointee.sealing) {
        case .stored: return
        case .help: box.help(on: thread)
        case .settled(let handler): Trampoline.call(handler, with: self)
        case .start: box.startBody()
        }
    }

    /// Attaches a handler from inside a run (an operation that follows the thenable its closure
    /// returned): as ``attach(_:_:)``, but hands back the work instead of starting a run for it.
    /// `function` must not hop to a queue: it would count as a hop of the box firing now.
    ///
    /// - Returns: the step the handler handed back when it ran at once, or the step that runs
    ///   this thread's lane of the box when it fires.
    @inlinable
    final func attach(_ target: consuming (any HandlerTarget)?, _ function: @escaping HandlerFunction, _ run: inout Run)
        -> Step?
    {
        let handler = Handler(target: target, function: function)
        let phase = phase
        // Settled, unobserved or not (see `attach(_:_:)`): run it at once.
        if phase >= BoxPhase.settled {
            if phase == BoxPhase.unobserved { observe() }
            return handler.call(with: self, &run)
        }
        // Safety: see `attach(_:_:)`.
        let box = unsafeDowncast(self, to: EmptyBox<R>.self)
        return box.finishAttaching(box.store(handler, lane: run.tag, sealing: run.thread.pointee.sealing), &run)
    }

    /// ``attach(_:_:_:)`` for a box that depends on this one from now on, as a `then` result
    /// does on the promise its closure returned: links `dependent` to this box (see
    /// ``EmptyBox/linkWord``) and stores its handler here in one step, under `dependent`'s lock,
    /// so that a thread cancelling `dependent` finds the handler it must take back. When
    /// `dependent` was sealed (cancelled) before, nothing is attached, and this box is cancelled
    /// if nothing else depends on it.
    @inlinable
    final func attach(
        linking dependent: consuming Retained<EmptyBox<R>>, _ function: @escaping HandlerFunction, _ run: inout Run
    ) -> Step? {
        let dependent = dependent.object()
        let word = dependent.lock()
        guard word.phase == BoxPhase.pending else {
            dependent.unlock(word)
            // Handed to Pledge all the same: a failure it holds counts as seen.
            if phase == BoxPhase.unobserved { observe() }
            Cancellation.run(from: self, .dependentWithdrawn)
            return nil
        }
        dependent.linkWord = UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque())
        let handler = Handler(target: dependent, function: function)
        let phase = phase
        guard phase < BoxPhase.settled else {
            dependent.unlock(word)
            if phase == BoxPhase.unobserved { observe() }
            return handler.call(with: self, &run)
        }
        // Safety: see `attach(_:_:)`. This box's lock is taken inside the dependent's: nothing
        // takes them the other way round, and no handler runs before both are dropped.
        let box = unsafeDowncast(self, to: EmptyBox<R>.self)
        let outcome = box.store(handler, lane: run.tag, sealing: run.thread.pointee.sealing)
        dependent.unlock(word)
        return box.finishAttaching(outcome, &run)
    }

    /// Calls `body` with the value once the box is sealed and has started every handler attached
    /// before: what a promise's or guarantee's `pipe(to:)` does.
    @inlinable
    final func pipe(_ body: @escaping @Sendable (R) -> Void) {
        attach(nil) { _, box, _ in
            body(Box.attached(box).value)
            return nil
        }
    }

    /// A handler that seals the box it is given as target with the value of the box it was
    /// attached to: what a box attaches to a thenable it follows. A thin function, so attaching
    /// it allocates nothing.
    @inlinable
    static func forward(_ target: consuming (any HandlerTarget)?, _ source: AnyObject, _ run: inout Run) -> Step? {
        // Safety: `forward` is only ever attached with an `EmptyBox<R>` as target (see
        // `Thenable._forward(into:)`, its only user), never with `nil`.
        run.seal(Retained(handedTo: target, as: EmptyBox<R>.self), with: attached(source).value)
    }
}

extension EmptyBox {
    /// What an attachment made inside a run does once its handler is stored (see
    /// ``store(_:lane:sealing:)``), after every lock is dropped.
    ///
    /// - Returns: the step to run next, if any.
    @inlinable @inline(__always)
    final func finishAttaching(_ outcome: consuming StoreOutcome, _ run: inout Run) -> Step? {
        switch consume outcome {
        case .stored: return nil
        case .help: return EmptyBox.helpStep(Retained(self))
        case .settled(let handler): return handler.call(with: self, &run)
        case .start:
            startBody()
            return nil
        }
    }

    /// Runs this thread's lane of the box's handlers (see ``Box/attach(_:_:)``), or, when the
    /// thread is nested too deep, leaves that to its running loop. Kept out of line: rare.
    @inlinable @inline(never)
    final func help(on thread: UnsafeMutablePointer<ThreadRunState>) {
        let helper = Runner.helper(lane: thread.pointee.tag)
        Trampoline.run(
            on: thread, { EmptyBox.runHandlers(of: self, as: helper, self.claimNext(as: helper, finished: 0), &$0) },
            deferred: { EmptyBox.helpStep(Retained(self)) })
    }
}

extension Retained {
    /// The count a handler is given on its target, as a token.
    ///
    /// Unchecked: the caller must know that `target` is not `nil` and is an `Object` (the
    /// handler's own attachment says so).
    @inlinable @inline(__always)
    init(handedTo target: consuming (any HandlerTarget)?, as _: Object.Type) {
        // Safety: the caller guarantees the target's presence and type; the count moves.
        self = Retained<AnyObject>((consume target).unsafelyUnwrapped).downcast(to: Object.self)
    }
}

extension Trampoline {
    /// Calls `handler` with `box` in a run of its own, or, when the thread is nested too deep,
    /// leaves the call to the innermost running loop.
    @inlinable @inline(never)
    static func call(_ handler: consuming Handler, with box: AnyObject) {
        let thread = ThreadRunState.current
        guard thread.pointee.depth < maximumNesting else {
            thread.pointee.deferred.push(DeferredCall.step(handler, box))
            return
        }
        run(on: thread, handler) { $1.call(with: box, &$0) }
    }
}

/// A handler call left to the running loop because the thread was nested too deep: the only
/// step that allocates, and only past ``Trampoline/maximumNesting`` nested runs.
@usableFromInline
final class DeferredCall: @unchecked Sendable {
    // Safety: immutable after `init`; handed from the thread that made it to the same thread's
    // running loop.
    @usableFromInline let target: (any HandlerTarget)?
    @usableFromInline let function: HandlerFunction
    @usableFromInline let box: AnyObject

    @inlinable
    init(_ handler: consuming Handler, _ box: AnyObject) {
        target = handler.target
        function = handler.function
        self.box = box
    }

    @inlinable
    static func step(_ handler: consuming Handler, _ box: AnyObject) -> Step {
        Step(Retained(DeferredCall(handler, box)).erased()) { object, run in
            // Safety: this body is only ever paired with a `DeferredCall`, which it runs once.
            object.stepWithObject {
                let call = unsafeDowncast($0, to: DeferredCall.self)
                return call.function(call.target, call.box, &run)
            }
        }
    }
}
