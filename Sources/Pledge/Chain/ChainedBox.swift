import Dispatch

// Connecting an operation to the thenable it is called on: the one implementation behind every
// operator. Each public operator is a thin wrapper that describes itself as a `ChainOperation`
// value and an `Executor` and calls `_chain`.

extension Thenable {
    /// Connects `operation` to `self` and returns the box of the operator's result.
    ///
    /// When `self` resolves, the operation runs through `executor` if it acts on the result, and
    /// inline otherwise. An input born settled (a ``SealedBox``), with an inline executor, is
    /// handled at once, with no handler at all; one that settled later runs the handler at once
    /// as it is attached.
    @inlinable
    func _chain<Operation: ChainOperation>(_ executor: Executor, _ operation: Operation)
        -> Box<Result<Operation.Output, Error>> where Operation.Input == T
    {
        // A thenable outside Pledge is bridged into a promise first: the operation lives in a box
        // its bridge's box owns, which goes if the thenable drops its handler unresolved.
        guard let source = _box else { return Promise(self)._chain(executor, operation) }
        if case .inline = executor, source.isSealedBox { return operation.settled(source) }
        // Only a promise is linked to: a guarantee cannot be cancelled.
        let box = ChainedBox(operation, on: executor, after: source, linked: Self.self == Promise<T>.self)
        // An actor's handlers take its lane; all others, the attaching thread's.
        let lane: UInt64? = if case .custom(let custom) = executor { custom.lane } else { nil }
        source.attach(Handler(box, for: source), lane: lane)
        return box
    }

    /// The box behind this thenable when it is a promise or a guarantee; `nil` for thenables
    /// outside Pledge. Compares types rather than casting `self`, so that specialised code
    /// decides at compile time and the optimiser can keep a promise that never leaves its
    /// function off the heap.
    @inlinable
    var _box: Box<Result<T, Error>>? {
        // Safety: each cast is to the very type just compared with `Self`.
        if Self.self == Promise<T>.self { return unsafeDowncast(self, to: Promise<T>.self).box }
        if Self.self == Guarantee<T>.self { return unsafeDowncast(self, to: Guarantee<T>.self).box }
        return nil
    }
}

/// The box of an operator's result, which is also the receiver that operator attaches to its
/// input's box: one allocation for both. It keeps the operation (the user's closure) until the
/// input arrives, and, while pending, a non-owning link to the box it depends on, so that
/// cancelling it can cancel that one when nothing else depends on it (see ``upstreamLink``).
@usableFromInline
final class ChainedBox<Operation: ChainOperation>: EmptyBox<Result<Operation.Output, Error>>, Receiver,
    @unchecked Sendable
{
    // Safety: `upstreamLink` is read and written under the lock, like every stored property of a
    // box (see `EmptyBox`). `operation` is touched only by this box's handler in its input,
    // when it is called or abandoned, which happens once (`EmptyBox` takes a handler out under
    // its lock to do either), and by `init` and `deinit`: never by two threads at once (the
    // handler `follow` attaches only unlinks). `executor` is immutable.

    /// The operation until the input arrives or is abandoned, then discarded, so a settled
    /// promise keeps no captures alive. Not optional: freeing would need a generic type lookup.
    @exclusivity(unchecked)
    @usableFromInline
    var operation: Operation

    /// The box this one depends on while pending (its input, or the promise it follows),
    /// uncounted. Whoever parts the two clears it first, under this box's lock: the handler as it
    /// receives its input, the upstream's `deinit` (``abandon(from:)``), a new follow. So under
    /// the lock a link names allocated memory, which ``retainIfAlive(_:)`` may turn into a count.
    @exclusivity(unchecked)
    @usableFromInline
    var upstreamLink: Unmanaged<AnyBox>?

    @usableFromInline
    let executor: Executor

    /// The box of `operation` applied to `source`'s result, linked to `source` as its upstream
    /// when `linked`; its promise was made where `source`'s was (see ``Box/site``).
    @inlinable
    init(_ operation: Operation, on executor: Executor, after source: Box<Result<Operation.Input, Error>>, linked: Bool)
    {
        self.operation = operation
        self.executor = executor
        if linked { upstreamLink = Unmanaged.passUnretained(source) }
        super.init(site: source.site)
    }

    /// The input arrived. Inline, or when the operation does not act on it, the operation runs
    /// now and this returns the work it made due. Otherwise the box forgets its upstream (sealed,
    /// it may go) and the executor's block runs the operation in a run of its own.
    @inlinable
    func receive(from source: Box<Result<Operation.Input, Error>>) -> Work? {
        let input = source.result()
        let queue: DispatchQueue
        switch executor {
        case .queue(let target) where operation.acts(on: input):
            queue = target
        case .custom(let custom) where operation.acts(on: input):
            unlink()
            // A dispatcher may call the body at once, inside this run: past the nesting limit,
            // the operation is left to the running loop, so the stack stays bounded.
            custom.dispatch(
                { ThreadRun.run(.call { self.operate(input) }) },
                { cancelChain(from: self, .cancelled) })
            return nil
        default:
            return operate(input)
        }
        unlink()
        #if DEBUG
            ledger?.work(1)
        #endif
        queue.async {
            #if DEBUG
                self.ledger?.work(-1)
            #endif
            ThreadRun.current.start(self.operate(input))
        }
        return nil
    }

    /// Runs the operation, unless the box was cancelled first (a cancelled operator never calls its
    /// closure), then discards what is left of it, so the user's closure and its captures go
    /// before the run fires the box.
    @inlinable
    final func operate(_ input: Result<Operation.Input, Error>) -> Work? {
        let work = isPending ? operation.run(input, into: self) : nil
        operation.discard()
        return work
    }

    /// Forgets the upstream: the input is in hand, so the upstream is sealed and can no longer
    /// be cancelled.
    @inlinable
    override final func unlink() {
        lock.lock()
        upstreamLink = nil
        lock.unlock()
    }

    /// The upstream is freed unresolved, or took this box's handler back because this box was
    /// cancelled: the user's closure goes now. Released from a loop, since what it captures may
    /// own another abandoned chain (see ``ThreadRun/release(_:)``).
    @usableFromInline
    func abandon(from _: ObjectIdentifier) {
        unlink()
        let operation = self.operation
        self.operation.discard()
        ThreadRun.release(consume operation)
    }

    @usableFromInline
    override func takeUpstream() -> AnyBox? {
        defer { upstreamLink = nil }
        return peekUpstream()
    }

    @usableFromInline
    override func peekUpstream() -> AnyBox? {
        upstreamLink.flatMap(retainIfAlive)
    }

    /// Resolves this box as `thenable`, which its `then` or `recover` closure returned, resolves;
    /// a promise becomes its upstream, for cancelling (see ``upstreamLink``). Called in a run:
    /// returns the work made due at once, this box sealed when `thenable` was settled.
    @inlinable
    final func follow<U: Thenable>(_ thenable: U) -> Work? where U.T == Operation.Output {
        guard let followed = thenable._box else {
            thenable.pipe { self.resolve($0) }
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
        let linked = U.self == Promise<U.T>.self
        lock.lock()
        guard state.isPending else {
            // Cancelled first: it withdraws from what it would have followed.
            lock.unlock()
            if linked { cancelChain(from: followed, .dependentWithdrawn) }
            return nil
        }
        if linked { upstreamLink = Unmanaged.passUnretained(followed) }
        lock.unlock()
        // Attached after the lock: no code holds two boxes' locks at once.
        let work = followed.attach(Handler(sealing: self, for: followed), in: ThreadRun.current)
        // A thread that cancelled this box between the link and the attachment found no handler
        // to take back: it is taken back now (taking back one that is gone does nothing).
        if linked, endedCancelled { cancelChain(from: followed, .dependentCancelled(self)) }
        return work
    }
}
