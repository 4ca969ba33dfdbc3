import Dispatch

// Connecting an operation to the thenable it is called on. On a pending promise or guarantee,
// the operator's result box (`ChainedBox`) keeps the operation and is itself the target of the
// handler it attaches: one allocation for both, and no closure to retain and release when it
// runs.

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
        // The promise or guarantee itself goes no further than here: only its box is passed on,
        // so that the optimiser can keep a promise that never leaves its function off the heap.
        guard let source = _box else { return _attachToForeign(on: queue, flags: flags, operation) }
        // The common inline case first, small enough to inline into every operator.
        let box =
            if queue == nil, flags == nil, let result = source.settledValue {
                operation.settled(result)
            } else {
                source.chain(on: queue, flags: flags, operation, linking: Self.self == Promise<T>.self)
            }
        box.inheritSite(from: source)
        return box
    }

    /// ``_chain(on:flags:_:)`` for a thenable outside Pledge: the operation travels in a closure
    /// attached with `pipe(to:)` (see ``Box/dispatchingHandler(_:on:flags:into:)``).
    @inlinable
    func _attachToForeign<Operation: ChainOperation>(
        on queue: DispatchQueue?, flags: DispatchWorkItemFlags?, _ operation: Operation
    ) -> Box<Result<Operation.Output, Error>> where Operation.Input == T {
        if queue == nil, flags != nil { conf.log(.nilDispatchQueueWithFlags) }
        let box: EmptyBox<Result<Operation.Output, Error>> = pendingBox()
        _pipeOnce(Box.dispatchingHandler(operation, on: queue, flags: queue == nil ? nil : flags, into: box))
        return box
    }

    /// Whether this thenable is a promise or a guarantee, as opposed to a thenable outside
    /// Pledge. Compares types rather than casting `self`, so that specialised code decides at
    /// compile time and copies no reference.
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
    /// *and* every handler attached before has returned. While a promise is still running its
    /// handlers this is `nil`, so a new `on: nil` operator is attached, and goes behind this
    /// thread's earlier ones instead of overtaking them. Always `nil` for thenables outside Pledge, which then simply attach.
    @inlinable
    var _settledResult: Result<T, Error>? {
        _box?.settledValue
    }

    /// Seals the box `box` holds with this thenable's result once it has one: through a handler
    /// whose target is `box`, for a promise or a guarantee, and through `pipe(to:)` for any
    /// other thenable. Called inside a run.
    ///
    /// `linking` says that `box` depends on this thenable, as a `then` or `recover` result does
    /// on the thenable its closure returned: when this is a promise, `box` links to it as its
    /// upstream (see ``EmptyBox/linkWord``), so that cancelling `box` cancels this promise when
    /// nothing else depends on it; otherwise `box` depends on nothing that can be cancelled.
    ///
    /// - Returns: the step that fires `box`, when it was sealed at once.
    @inlinable
    func _forward(into box: consuming Retained<EmptyBox<Result<T, Error>>>, linking: Bool, _ run: inout Run) -> Step? {
        guard let source = _box, Self.self == Promise<T>.self, linking else {
            let box = box.object()
            if linking { box.unlink() }
            guard let source = _box else {
                pipe { box.resolve($0) }
                return nil
            }
            return source.attach(box, Box<Result<T, Error>>.forward, &run)
        }
        return source.attach(linking: box, Box<Result<T, Error>>.forward, &run)
    }

    /// Attaches `function`, which needs no target, so that it runs exactly once, with this
    /// thenable's first outcome. A promise or a guarantee calls each handler exactly once, so
    /// it gets `function` itself; any other thenable gets it through `pipe(to:)`, behind a
    /// once-only flag, since a type outside Pledge may call its handlers more than once, against
    /// `pipe`'s contract. Called outside any run.
    @inlinable
    func _pipeOnce(target: (any HandlerTarget)? = nil, _ function: @escaping HandlerFunction) {
        if let source = _box { return source.attach(target, function) }
        let once = OnceFlag()
        pipe { result in
            // A sealed box of its own carries the result to `function`, which reads it from a box.
            if once.claim() { Trampoline.call(Handler(target: nil, function: function), with: SealedBox(result)) }
        }
    }
}

extension Box {
    /// Attaches `operation` to this box, which backs a promise or a guarantee, and returns the
    /// box of the operator's result (see ``Thenable/_chain(on:flags:_:)``).
    ///
    /// `linking` says whether this box backs a promise, which the operator's box then links to
    /// as its upstream, so that cancelling it can cancel this one (see ``EmptyBox/linkWord``); a
    /// guarantee's box is never linked to: it cannot be cancelled.
    @inlinable
    final func chain<Operation: ChainOperation>(
        on queue: DispatchQueue?, flags: DispatchWorkItemFlags?, _ operation: Operation, linking: Bool
    ) -> Box<Result<Operation.Output, Error>> where R == Result<Operation.Input, Error> {
        // The operator's box is its own handler's target (one allocation for both).
        if flags == nil {
            if let queue { return chain(on: queue, operation, linking: linking) }
            let box = ChainedBox(operation)
            if linking { box.link(to: self) }
            attach(box, ChainedBox<Operation>.receive)
            return box
        }
        guard let queue else {
            // Flags mean nothing without a queue: report them, then go on as without.
            conf.log(.nilDispatchQueueWithFlags)
            if let result = settledValue { return operation.settled(result) }
            return chain(on: nil, flags: nil, operation, linking: linking)
        }
        // Flags are rare, so they are not kept in every chained box: the operation travels in
        // the handler's closure instead, and the box is the handler's target only so that it
        // learns when that handler will never run.
        let box: EmptyBox<Result<Operation.Output, Error>> = pendingBox()
        if linking { box.link(to: self) }
        attach(box, Box.dispatchingHandler(operation, on: queue, flags: flags, into: box))
        return box
    }

    /// The queued half of ``chain(on:flags:_:)``: kept apart so that the inline path stays
    /// small.
    @inlinable
    final func chain<Operation: ChainOperation>(
        on queue: consuming DispatchQueue, _ operation: Operation, linking: Bool
    )
        -> Box<Result<Operation.Output, Error>> where R == Result<Operation.Input, Error>
    {
        // `queue` is consumed into the box, so the caller's copy is the box's: a copy here would
        // live to the end of the scope and cost a retain and a release per operator.
        let box = QueuedChainedBox(operation, queue: consume queue)
        if linking { box.link(to: self) }
        attach(box, QueuedChainedBox<Operation>.receiveOnQueue)
        return box
    }

    /// A handler that runs `operation` into `box` once the box it is attached to resolves: on
    /// `queue`, with `flags`, when the operation acts on the result and there is a queue, and
    /// inline otherwise. The handler's closure carries the operation, so the thenable it is
    /// attached to releases it once it has called it, or when it is freed: what an operator
    /// does with flags, and on a thenable outside Pledge, which could never tell a chained box
    /// that it will not call it.
    @inlinable
    static func dispatchingHandler<Operation: ChainOperation>(
        _ operation: Operation, on queue: DispatchQueue?, flags: DispatchWorkItemFlags?,
        into box: EmptyBox<Result<Operation.Output, Error>>
    ) -> HandlerFunction where R == Result<Operation.Input, Error> {
        let flags = flags?.rawValue
        return { _, source, run in
            let result = attached(source).value
            guard let queue, operation.acts(on: result) else {
                return operation.runUnlessCancelled(result, into: Retained(box), &run)
            }
            // Counts as the firing box's first hop (see `BlockSharing`).
            run.noteDispatch(to: queue)
            // The input is in hand: the source may go before the block runs.
            box.unlink()
            queue.run(operation, result, into: box, as: flags.map { .plain(flags: $0) } ?? .sharing)
            return nil
        }
    }
}

/// Resolves the box `box` holds as `thenable` resolves, unless `thenable` is the promise or
/// guarantee backed by that very box, which could never resolve. Then a promise's box is rejected
/// with ``PMKError/returnedSelf``; a guarantee's, which cannot fail, is reported with
/// ``LogEvent/guaranteeReturnedSelf`` and left pending, with nothing attached (attaching the box
/// to itself would also make it keep itself, and its handlers, alive for good).
@inlinable
func follow<U: Thenable>(_ thenable: U, into box: consuming Retained<EmptyBox<Result<U.T, Error>>>, _ run: inout Run)
    -> Step?
{
    if let followed = thenable._box, box.withObject({ $0 === followed }) {
        if U.self == Guarantee<U.T>.self {
            conf.log(.guaranteeReturnedSelf)
            // It follows nothing now.
            box.withObject { $0.unlink() }
            return nil
        }
        return run.seal(box, with: .failure(PMKError.returnedSelf))
    }
    return thenable._forward(into: box, linking: true, &run)
}

/// How a block Pledge dispatches for an operation runs.
@usableFromInline
enum BlockKind {
    /// A plain `async`, whose run may take the chain's next hops inline when the queue shares
    /// blocks (see ``BlockSharing``).
    case sharing
    /// `async` with these flags (raw value: `DispatchWorkItemFlags` is not `Sendable` everywhere).
    /// Its run takes no hop inline.
    case plain(flags: UInt)
}

extension DispatchQueue {
    /// Runs `operation` on this queue, asynchronously, and then the chain it leads to.
    ///
    /// The block captures the operation, the result and the box directly, so a dispatch costs
    /// one closure.
    @inlinable
    func run<Operation: ChainOperation>(
        _ operation: Operation, _ result: Result<Operation.Input, Error>,
        into box: EmptyBox<Result<Operation.Output, Error>>, as kind: BlockKind
    ) {
        switch kind {
        case .plain(let flags):
            async(flags: DispatchWorkItemFlags(rawValue: flags)) {
                Trampoline.run { operation.runUnlessCancelled(result, into: Retained(box), &$0) }
            }
        case .sharing where conf.blocksShare(on: self):
            async {
                Trampoline.run(sharingBlocksOn: self) { operation.runUnlessCancelled(result, into: Retained(box), &$0) }
            }
        case .sharing:
            async { Trampoline.run { operation.runUnlessCancelled(result, into: Retained(box), &$0) } }
        }
    }
}
