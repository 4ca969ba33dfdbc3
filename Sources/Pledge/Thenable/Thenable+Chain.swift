import Dispatch

// The one implementation behind every chaining operator. Each public operator is a thin wrapper
// that describes itself as a small `ChainOperation` value (its closure plus, for `catch` and
// `recover`, its policy) and hands it to `_chain`. Operations are generic structs, so client code
// is fully specialised. On a pending promise or guarantee, the operator's result box
// (`ChainedBox`) keeps the operation and is itself the handler it attaches, a thin function plus
// the box as its target: one allocation for both, and no closure to retain and release when it
// runs.

/// What an operator does with the result of the thenable it is attached to.
@usableFromInline
protocol ChainOperation: Sendable {
    associatedtype Input: Sendable
    associatedtype Output: Sendable

    /// Whether `run` calls user code for `result`. Only such results go to the operator's queue
    /// (dispatched, or run at the end of the current block on it, see `Cascade`); the others (a
    /// rejection reaching `map`, a fulfilment reaching `catch`) pass through inline, without
    /// dispatching.
    func acts(on result: Result<Input, Error>) -> Bool

    /// Resolves `box` for `result`, directly or by following another thenable, running user code
    /// when ``acts(on:)`` says so.
    ///
    /// - Returns: the step that runs the handlers of a box this call resolved.
    func run(_ result: Result<Input, Error>, into box: EmptyBox<Result<Output, Error>>) -> _PledgeStep?

    /// ``run(_:into:)`` for a caller that holds a count on `box` and offers it to the step the
    /// call hands back, which then takes no count of its own: a retain and a release fewer per
    /// link for the operations that resolve `box` directly (``ValueOperation``).
    ///
    /// - Returns: that step, and whether it took the caller's count. When it did not, the caller
    ///   still owns its count.
    func run(_ result: Result<Input, Error>, handingCountOn box: EmptyBox<Result<Output, Error>>)
        -> (step: _PledgeStep?, tookCount: Bool)

    /// ``run(_:handingCountOn:)`` for a caller that is itself a step of the running trampoline
    /// (a block's tail): an operation that resolves `box` directly fires it in this step (see
    /// ``EmptyBox/resolveFiring(_:_:)``) rather than handing back a step that would.
    ///
    /// - Returns: the step to run next, and whether the caller's count went to it or to the
    ///   run's tail. When it did not, the caller still owns its count.
    consuming func runFiring(
        _ result: Result<Input, Error>, handingCountOn box: EmptyBox<Result<Output, Error>>, _ cascade: inout Cascade
    ) -> (step: _PledgeStep?, tookCount: Bool)

    /// The box for this operation applied now, inline, to a settled input.
    func settled(_ result: Result<Input, Error>) -> Box<Result<Output, Error>>

    /// The type of the user closure the operation runs.
    associatedtype Body

    /// The user closure; `nil` once discarded. A discarded operation is never run; if it were,
    /// it would reject with ``PMKError/cancelled`` (or pass its input on) rather than trap.
    var body: Body? { get set }
}

extension ChainOperation {
    /// An operation that may follow another thenable keeps the caller's count: the step it hands
    /// back may be another box's.
    @inlinable
    func run(_ result: Result<Input, Error>, handingCountOn box: EmptyBox<Result<Output, Error>>)
        -> (step: _PledgeStep?, tookCount: Bool)
    {
        (run(result, into: box), false)
    }

    /// An operation that may follow another thenable hands back its step, as in
    /// ``run(_:handingCountOn:)``.
    @inlinable
    consuming func runFiring(
        _ result: Result<Input, Error>, handingCountOn box: EmptyBox<Result<Output, Error>>, _ cascade: inout Cascade
    ) -> (step: _PledgeStep?, tookCount: Bool) {
        run(result, handingCountOn: box)
    }

    /// A hop that is always dispatched, to `queue` with `flags`: what an operator does when its
    /// box cannot be its handler (flags, or a thenable outside Pledge).
    ///
    /// Made a hop step, rather than dispatched by the handler itself, so that it counts as the
    /// firing box's first hop: a later handler's hop to the same queue then cannot run inline
    /// ahead of it (see ``Cascade``). Allocates the closure that carries the result.
    @inlinable
    func dispatchedHop(
        _ result: Result<Input, Error>, into box: EmptyBox<Result<Output, Error>>, on queue: DispatchQueue,
        flags: UInt?
    ) -> _PledgeStep {
        // The closure keeps `box`, which the hop itself does not count.
        _PledgeStep(
            hop: box,
            fire: { _, cascade in
                cascade.noteDispatchedHop(to: queue)
                queue.run(self, result, into: box, flags: flags)
                return nil
            })
    }

    /// Drops the user closure, and everything it captures. A ``ChainedBox`` calls it on its
    /// stored copy as soon as it takes the operation to run, so a resolved promise that is
    /// still held does not keep its handler's captures alive (as PromiseKit's released
    /// handlers do not).
    @inlinable
    mutating func discard() {
        body = nil
    }

    @inlinable
    func settled(_ result: Result<Input, Error>) -> Box<Result<Output, Error>> {
        let box: EmptyBox<Result<Output, Error>> = pendingBox()
        Trampoline.run(run(result, into: box))
        return box
    }
}

/// An operation whose output is known as soon as its body returns (`map`, `done`, `catch`, …),
/// as opposed to one that follows another thenable (`then`, `recover`).
@usableFromInline
protocol ValueOperation: ChainOperation {
    /// The output for `result`, running user code when ``ChainOperation/acts(on:)`` says so.
    func output(for result: Result<Input, Error>) -> Result<Output, Error>
}

extension ValueOperation {
    @inlinable
    func run(_ result: Result<Input, Error>, into box: EmptyBox<Result<Output, Error>>) -> _PledgeStep? {
        box.resolve(output(for: result))
    }

    /// The step, when there is one, runs `box`'s own handlers, so it can keep the caller's count.
    @inlinable
    func run(_ result: Result<Input, Error>, handingCountOn box: EmptyBox<Result<Output, Error>>)
        -> (step: _PledgeStep?, tookCount: Bool)
    {
        let step = box.resolve(output(for: result), stepCount: .handed)
        return (step, step != nil)
    }

    /// Fires `box` in this step. The operation goes before the firing, so the user's closure
    /// and its captures are released before the box's handlers run, as in the other paths.
    @inlinable
    consuming func runFiring(
        _ result: Result<Input, Error>, handingCountOn box: EmptyBox<Result<Output, Error>>, _ cascade: inout Cascade
    ) -> (step: _PledgeStep?, tookCount: Bool) {
        let output = output(for: result)
        _ = consume self
        let (next, countKept) = box.resolveFiring(output, &cascade)
        return (next, countKept)
    }

    /// A settled input needs no pending box at all: the output is born sealed.
    @inlinable
    func settled(_ result: Result<Input, Error>) -> Box<Result<Output, Error>> {
        SealedBox(output(for: result))
    }
}

extension Thenable {
    /// Connects `operation` to `self` and returns the box of the operator's result.
    ///
    /// When `self` resolves, the operation runs on `queue` (inline when `nil`) if it acts on the
    /// result, and inline otherwise. An input that is already settled, with no queue, is handled
    /// at once with no handler at all.
    ///
    /// - Returns: the box backing the promise or guarantee the operator returns.
    @inlinable
    func _chain<Operation: ChainOperation>(
        on queue: DispatchQueue?, flags: DispatchWorkItemFlags?, _ operation: Operation
    ) -> Box<Result<Operation.Output, Error>> where Operation.Input == T {
        // The common inline case first, small enough to inline into every operator.
        if queue == nil, flags == nil, let result = _settledResult { return operation.settled(result) }
        return _attach(on: queue, flags: flags, operation)
    }

    /// The rest of ``_chain(on:flags:_:)``: attaches `operation` as a handler.
    @inlinable
    func _attach<Operation: ChainOperation>(
        on queue: DispatchQueue?, flags: DispatchWorkItemFlags?, _ operation: Operation
    ) -> Box<Result<Operation.Output, Error>> where Operation.Input == T {
        var flags = flags
        if queue == nil, flags != nil {
            // Flags mean nothing without a queue: report them, then go on as `_chain` would have.
            conf.log(.nilDispatchQueueWithFlags)
            flags = nil
            if let result = _settledResult { return operation.settled(result) }
        }
        // The operator's box is its own handler (one allocation for both), here and below.
        if flags == nil, let queue, let source = _box { return _attach(to: source, on: queue, operation) }
        guard flags == nil, _isPledge else {
            // The operation travels in the handler's closure, which the thenable releases once
            // it has called it (or when it is freed). Used for flags (rare, so not kept in every
            // chained box) and for thenables outside Pledge: those call their handlers through
            // `pipe`, with no way to tell a chained box that they never will, so a box that kept
            // the operation could keep its captures alive for good.
            let box: EmptyBox<Result<Operation.Output, Error>> = pendingBox()
            let flags = flags?.rawValue
            Trampoline.run(
                _pipeOnce { _, result in
                    guard let queue, operation.acts(on: result) else { return operation.run(result, into: box) }
                    return operation.dispatchedHop(result, into: box, on: queue, flags: flags)
                })
            return box
        }
        let box = ChainedBox(operation)
        Trampoline.run(_pipe(box, ChainedBox<Operation>.receive))
        return box
    }

    /// The queued half of ``_attach(on:flags:_:)``: kept apart so that the inline path stays
    /// small.
    @inlinable
    func _attach<Operation: ChainOperation>(
        to source: Box<Result<T, Error>>, on queue: consuming DispatchQueue, _ operation: Operation
    ) -> Box<Result<Operation.Output, Error>> where Operation.Input == T {
        // `queue` is consumed into the box, so the caller's copy is the box's: a `let` copy
        // here, or in the caller, would live to the end of its scope (lexical lifetimes), past
        // the attachment's calls, and cost a retain and a release of the queue per operator.
        let box = QueuedChainedBox(operation, queue: consume queue, source: source)
        // When `source` is settled, the handler runs at once and hands back a hop, which holds
        // the count on `box` that the handler was given (see `_PledgeStep`). Keeping `box`
        // explicitly to the end is not needed for that, but it lets the compiler take the two
        // counts this function gives out (the handler's and the caller's) in one
        // `swift_retain_n`: without it, W3 runs 5% more instructions per step.
        withExtendedLifetime(box) {
            Trampoline.run(source.inspect(box, QueuedChainedBox<Operation>.receiveOnQueue))
        }
        return box
    }

    /// Whether this thenable is a promise or a guarantee, as opposed to a thenable outside
    /// Pledge. Compares types rather than casting `self`, so that specialised code decides at
    /// compile time and copies no reference. (Spelled `_box != nil`, W2 ran 12% more
    /// instructions.)
    @inlinable
    var _isPledge: Bool {
        Self.self == Promise<T>.self || Self.self == Guarantee<T>.self
    }

    /// The box behind this thenable, when it is a promise or a guarantee; `nil` for thenables
    /// outside Pledge.
    @inlinable
    var _box: Box<Result<T, Error>>? {
        // Safety: each cast is to the very type just compared with `Self`.
        if Self.self == Promise<T>.self { return unsafeDowncast(self, to: Promise<T>.self).box }
        if Self.self == Guarantee<T>.self { return unsafeDowncast(self, to: Guarantee<T>.self).box }
        return nil
    }

    /// The result, when a handler attached now would run at once: the thenable is resolved
    /// *and* has started every handler attached before. While a promise is still running its
    /// earlier handlers this is `nil`, so a new `on: nil` operator queues behind them instead of
    /// overtaking them. Always `nil` for thenables outside Pledge, which then simply attach.
    @inlinable
    var _settledResult: Result<T, Error>? {
        _box?.settledValue
    }
}

extension DispatchQueue {
    /// Runs `operation` on this queue, asynchronously, and then the cascade it starts.
    ///
    /// The block captures the operation, the result and the box directly, so a dispatch costs
    /// one closure. Flags travel as their raw value because `DispatchWorkItemFlags` is not
    /// `Sendable` on every platform. A block with flags, even empty ones, shares with no hop
    /// (see ``Cascade``); without flags it does when the queue may.
    @inlinable
    func run<Operation: ChainOperation>(
        _ operation: Operation, _ result: Result<Operation.Input, Error>,
        into box: EmptyBox<Result<Operation.Output, Error>>, flags: UInt?
    ) {
        if let flags {
            async(flags: DispatchWorkItemFlags(rawValue: flags)) {
                Trampoline.run(operation.run(result, into: box))
            }
        } else if conf.blocksShare(on: self) {
            // The block's run may take the chain's next hop to this queue inline (see `Cascade`).
            async { Trampoline.run(operation.run(result, into: box), onQueue: self) }
        } else {
            async { Trampoline.run(operation.run(result, into: box)) }
        }
    }
}

/// Resolves `box` as `thenable` resolves, unless `thenable` is the promise or guarantee backed by
/// `box` itself, which could never resolve. Then a promise's box is rejected with
/// ``PMKError/returnedSelf``; a guarantee's, which cannot fail, is reported with
/// ``LogEvent/guaranteeReturnedSelf`` and left pending, with nothing attached (attaching `box` to
/// itself would also make it keep itself, and its handlers, alive for good).
@inlinable
func follow<U: Thenable>(_ thenable: U, into box: EmptyBox<Result<U.T, Error>>) -> _PledgeStep? {
    if let followed = thenable._box, followed === box {
        if U.self == Guarantee<U.T>.self {
            conf.log(.guaranteeReturnedSelf)
            return nil
        }
        return box.resolve(.failure(PMKError.returnedSelf))
    }
    return thenable._forward(into: box)
}

extension Thenable {
    /// Seals `box` with this thenable's result once it has one: through `_pipe`, with `box` as
    /// the handler's target, for a promise or a guarantee, and through `pipe(to:)` for any other
    /// thenable. A type outside Pledge may implement `_pipe` itself, and `Box.forward` trusts
    /// its target without a check, so such a type is never handed one.
    ///
    /// - Returns: the step that runs `box`'s handlers, when it was sealed at once.
    @inlinable
    func _forward(into box: Box<Result<T, Error>>) -> _PledgeStep? {
        if _isPledge { return _pipe(box, Box.forward) }
        pipe { Trampoline.run(box.resolve($0)) }
        return nil
    }

    /// Attaches `handler`, which needs no target, so that it runs exactly once, with this
    /// thenable's first outcome. A promise or a guarantee calls each handler exactly once, so
    /// it gets `handler` itself; any other thenable gets it through `pipe(to:)`, behind a
    /// once-only flag: a type outside Pledge may call its handlers more than once, against
    /// `pipe`'s contract, or implement `_pipe` itself.
    ///
    /// - Returns: the step `handler` handed back, when it ran at once.
    @inlinable
    func _pipeOnce(
        _ handler: @escaping @Sendable (consuming (any AnyObject & Sendable)?, Result<T, Error>) -> _PledgeStep?
    ) -> _PledgeStep? {
        if _isPledge { return _pipe(nil, handler) }
        let once = OnceFlag()
        pipe { result in
            if once.claim() { Trampoline.run(handler(nil, result)) }
        }
        return nil
    }
}

/// The result of calling a throwing closure, as a `Result`.
@inlinable
func catching<U>(_ body: () throws -> U) -> Result<U, Error> {
    do {
        return .success(try body())
    } catch {
        return .failure(error)
    }
}
