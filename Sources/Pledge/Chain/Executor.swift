import Dispatch

/// Where an operator's closure runs: the one executor behind every operator's `on:`.
@usableFromInline
enum Executor: Sendable {
    /// On the thread that resolves the input; at once when it is resolved already.
    case inline
    /// In a block of its own on this queue.
    case queue(DispatchQueue)
    /// A queue with work-item flags, or a ``Dispatcher``: rare, so kept behind a reference, to
    /// keep every operator's box small.
    case custom(CustomExecutor)

    /// The executor of an operator given `on: queue, flags: flags`. Flags mean nothing without a
    /// queue: they are reported (``LogEvent/nilDispatchQueueWithFlags``) and ignored.
    @inlinable
    init(_ queue: DispatchQueue?, flags: DispatchWorkItemFlags?) {
        guard let queue else {
            if flags != nil { conf.log(.nilDispatchQueueWithFlags) }
            self = .inline
            return
        }
        guard let flags else {
            self = .queue(queue)
            return
        }
        let raw = flags.rawValue
        self = .custom(
            CustomExecutor { (body: @escaping @Sendable () -> Void, _: @escaping @Sendable () -> Void) in
                queue.async(flags: DispatchWorkItemFlags(rawValue: raw), execute: body)
            })
    }

    /// The executor of an operator given `on: dispatcher`. A dispatcher that is a queue takes
    /// the queue's path. `cancelsOnDrop`: the operator returns a promise, which is cancelled when
    /// a dropping dispatcher (``InvalidatableQueue``) drops its body; a guarantee stays pending.
    @inlinable
    init(_ dispatcher: any Dispatcher, cancelsOnDrop: Bool) {
        if let queue = dispatcher._dispatchQueue {
            self = .queue(queue)
        } else if let dropping = dispatcher as? any DroppingDispatcher {
            self = .custom(
                CustomExecutor { (body: @escaping @Sendable () -> Void, dropped: @escaping @Sendable () -> Void) in
                    if cancelsOnDrop {
                        dropping.dispatch(body, orDrop: dropped)
                    } else {
                        // A guarantee cannot fail: its box stays pending, and goes with its holders.
                        dropping.dispatch(body, orDrop: {})
                    }
                })
        } else {
            self = .custom(
                CustomExecutor { (body: @escaping @Sendable () -> Void, _: @escaping @Sendable () -> Void) in
                    dispatcher.dispatch(body)
                })
        }
    }
}

/// A queue with flags, or a ``Dispatcher``, as an ``Executor`` holds it.
@usableFromInline
final class CustomExecutor: Sendable {
    /// Runs the first closure later, exactly once, or calls the second instead when it drops
    /// the work.
    @usableFromInline
    let dispatch: @Sendable (@escaping @Sendable () -> Void, @escaping @Sendable () -> Void) -> Void

    @inlinable
    init(_ dispatch: @escaping @Sendable (@escaping @Sendable () -> Void, @escaping @Sendable () -> Void) -> Void) {
        self.dispatch = dispatch
    }
}

extension ChainedBox {
    /// Runs the operation on the executor, with the input it acts on: at once when inline;
    /// otherwise the box forgets its upstream (the input is in hand: the upstream is sealed and
    /// may go) and the executor's block runs the operation in a run of its own, unless the box
    /// was cancelled meanwhile (see ``operate(_:)``).
    ///
    /// - Returns: the work the operation made due when it ran at once.
    @inlinable
    final func hop(_ input: Result<Operation.Input, Error>) -> Work? {
        let queue: DispatchQueue
        switch executor {
        case .inline:
            return operate(input)
        case .queue(let target):
            queue = target
        case .custom(let custom):
            unlink()
            // A dispatcher may call the body at once, inside this run: past the nesting limit,
            // the operation is left to the running loop, so the stack stays bounded.
            custom.dispatch(
                { ThreadRun.run(.call { self.operate(input) }) },
                { cancelChain(from: self, .cancelled) })
            return nil
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
}
