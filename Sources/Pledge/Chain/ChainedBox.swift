import Dispatch
import Synchronization

extension Thenable {
    /// Connects `operation` to `self` and returns the box of the operator's result: the one
    /// implementation behind every operator, each a thin wrapper that describes itself as a
    /// ``ChainOperation`` and an ``Executor``.
    ///
    /// When `self` resolves, the operation runs through `executor` if it acts on the result, and
    /// inline otherwise. An input born settled (a ``SealedBox``), with an inline executor, needs
    /// no handler at all; one that settled later runs the handler as it is attached.
    @inlinable
    func _chain<Operation: ChainOperation>(_ executor: Executor, _ operation: Operation)
        -> Box<Result<Operation.Output, Error>> where Operation.Input == T
    {
        // A thenable outside Pledge is bridged into a promise, whose box owns the operation's:
        // both go if the thenable drops its handler unresolved.
        guard let source = _box else { return Promise(self)._chain(executor, operation) }
        if case .inline = executor, source.isSealedBox { return operation.settled(source) }
        // Only a promise is linked to: a guarantee cannot be cancelled.
        let box = ChainedBox(operation, on: executor, after: source, linked: self is Promise<T>)
        // An actor's handlers take its lane; all others, the attaching thread's.
        let lane: UInt64? = if case .custom(let custom) = executor { custom.lane } else { nil }
        source.attach(box, lane: lane)
        return box
    }

    /// The box behind a promise or a guarantee; `nil` for thenables outside Pledge. Specialised
    /// code knows `Self`, so the casts are decided at compile time.
    @inlinable
    var _box: Box<Result<T, Error>>? {
        if let promise = self as? Promise<T> { return promise.box }
        if let guarantee = self as? Guarantee<T> { return guarantee.box }
        return nil
    }
}

/// The box of an operator's result, and the receiver it attaches to its input's box: one
/// allocation for both. It keeps the operation (the user's closure) until the input arrives, and,
/// while pending, the promise it depends on (see ``Upstream``), to cancel with it.
@usableFromInline
final class ChainedBox<Operation: ChainOperation>: EmptyBox<Result<Operation.Output, Error>>, Receiver,
    @unchecked Sendable
{
    // Safety: `operation` is touched by `init`, `deinit`, this box's handler in its input (called
    // or abandoned once: the input takes it out under its lock) and the block that handler
    // dispatched: never by two threads at once, each after the one before (the input's lock, or
    // the dispatch, orders them). `executor` is immutable.

    /// The operation, discarded once the input arrives or is abandoned: a settled promise keeps
    /// no captures. Not optional: freeing it would need a generic type lookup.
    @usableFromInline var operation: Operation

    @usableFromInline let executor: Executor

    /// The box of `operation` applied to `source`'s result, with `source` as its upstream when
    /// `linked`; its promise was made where `source`'s was (see ``Box/site``).
    @inlinable
    init(_ operation: Operation, on executor: Executor, after source: Box<Result<Operation.Input, Error>>, linked: Bool)
    {
        // In a context (``HandlerContext``), wrapped before it is stored: stored, each access is checked.
        let carries = HandlerContext.isOn.load(ordering: .acquiring)
        self.operation = carries ? operation.carryingContext() : operation
        self.executor = carries ? executor.scoped() : executor
        super.init(site: source.site, upstream: linked ? .strong(source) : nil)
    }

    /// The input arrived. Inline, or when it does not act on the input, the operation runs now
    /// and this returns the work it made due; otherwise it runs in the executor's block, in a
    /// run of its own. The upstream, sealed, goes when the box seals or follows.
    @inlinable
    func receive(from source: Box<Result<Operation.Input, Error>>) -> Work? {
        let input = source.result()
        let queue: DispatchQueue
        switch executor {
        case .queue(let target) where operation.acts(on: input):
            queue = target
        case .custom(let custom) where operation.acts(on: input):
            // A dispatcher may call the body at once, inside this run: past the nesting limit,
            // the operation is left to the running loop, so the stack stays bounded.
            dispatched()
            custom.dispatch(
                {
                    ThreadRun.run(.call { self.operate(input) })
                    self.finished()
                },
                {
                    cancelChain(from: self, .cancelled)
                    self.finished()
                })
            return nil
        default:
            return operate(input)
        }
        dispatched()
        queue.async {
            ThreadRun.run(self.operate(input), deferrable: false)
            self.finished()
        }
        return nil
    }

    /// Runs the operation unless the box was cancelled first (then only its cleanup), then
    /// discards it, so the user's closure and its captures go before the run fires the box.
    @inlinable
    final func operate(_ input: Result<Operation.Input, Error>) -> Work? {
        var operation = self.operation.take()
        if isPending { return operation.run(input, into: self) }
        operation.takeCleanup()?()
        return nil
    }

    /// The input is freed unresolved, or took the handler back as this box was cancelled: only a
    /// cancellation can resolve the box now. The user's closure goes now, from a loop (see
    /// ``ThreadRun/release(_:)``); a cleanup is kept to run on that cancellation.
    @inlinable
    func abandon(from _: ObjectIdentifier) {
        if let cleanup = operation.takeCleanup() { addCancelHook { [executor] in executor.perform(cleanup) } }
        ThreadRun.release(operation.take())
        orphan()
    }

    @usableFromInline
    func upstreamOrphaned(_ source: AnyBox) { weaken(source) }

    /// Resolves this box as `thenable`, which its `then` or `recover` closure returned, resolves;
    /// a promise becomes its upstream, for cancelling. Called in a run: returns the work made due
    /// at once, when `thenable` was settled.
    @inlinable
    final func follow<U: Thenable>(_ thenable: U) -> Work? where U.T == Operation.Output {
        guard let followed = thenable._box else {
            guard relink(to: nil) else { return nil }
            let producer = ForeignProducer(self)
            thenable.pipe { producer.resolve($0) }
            return nil
        }
        if followed === self {
            // It would wait for itself for ever.
            if U.self == Guarantee<U.T>.self {
                conf.log(.guaranteeReturnedSelf)
                return nil
            }
            return seal(.failure(PMKError.returnedSelf))
        }
        // Only a promise is linked to: a guarantee cannot be cancelled.
        let linked = thenable is Promise<U.T>
        guard relink(to: linked ? followed : nil) else {
            // Cancelled first: it withdraws from what it would have followed.
            if linked { cancelChain(from: followed, .dependentWithdrawn) }
            return nil
        }
        // Attached after the lock: no code holds two boxes' locks at once.
        let work = followed.attachInRun(sealing: self)
        // A thread that cancelled this box between the link and the attachment found no handler
        // to take back: it is taken back now (taking back one that is gone does nothing).
        if linked, endedCancelled { cancelChain(from: followed, .dependentCancelled(self)) }
        return work
    }

    /// Resolves this box with `result` once `guarantee` resolves: what `ensureThen` waits for.
    /// A guarantee cannot be cancelled: nothing to link to.
    @inlinable
    final func wait(for guarantee: Guarantee<Void>, then result: Result<Operation.Output, Error>) -> Work? {
        guard relink(to: nil) else { return nil }
        return guarantee.box.attachInRun(SealAfter(self, with: result))
    }
}

extension EmptyBox {
    /// Makes `upstream`, or nothing, the box this one depends on (see ``Upstream``), while it is
    /// pending; whether it was.
    @usableFromInline
    final func relink(to upstream: AnyBox?) -> Bool {
        let (pending, old) = core.withLock { core -> (Bool, Upstream?) in
            guard core.isSealable else { return (false, nil) }
            return (true, exchange(&core.upstream, with: upstream.map { .strong($0) }))
        }
        if let old { ThreadRun.release(old) }
        return pending
    }
}

/// What resolves a box from a thenable outside Pledge, which may drop its callback unresolved:
/// then nothing can resolve the box any more but a cancellation (see ``EmptyBox/orphan()``).
@usableFromInline
final class ForeignProducer<T: Sendable>: Sendable {
    @usableFromInline let box: EmptyBox<Result<T, Error>>

    @inlinable
    init(_ box: EmptyBox<Result<T, Error>>) { self.box = box }

    deinit { box.orphan() }

    @inlinable
    func resolve(_ result: Result<T, Error>) { box.resolve(result) }
}

/// The receiver that seals a box with a result fixed in advance once the box it is attached to
/// resolves: `ensureThen`'s wait for its guarantee.
@usableFromInline
final class SealAfter<T: Sendable>: Receiver {
    @usableFromInline let box: EmptyBox<Result<T, Error>>
    @usableFromInline let result: Result<T, Error>

    @inlinable
    init(_ box: EmptyBox<Result<T, Error>>, with result: Result<T, Error>) {
        self.box = box
        self.result = result
    }

    @inlinable
    func receive(from _: Box<Result<Void, Error>>) -> Work? { box.seal(result) }

    @inlinable
    func abandon(from _: ObjectIdentifier) { box.orphan() }
}
