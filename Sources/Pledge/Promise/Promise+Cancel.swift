extension Promise {
    /// Cancels the promise: a pending promise is rejected at once with ``PMKError/cancelled``; a
    /// resolved one is left as it is (a rejection it holds then counts as seen, and is not
    /// reported as ``LogEvent/unhandledRejection(_:site:)``).
    ///
    /// Safe to call from any thread, any number of times. Before it returns, on the calling
    /// thread:
    /// - the producer's ``Resolver/onCancel(_:)`` bodies run, and its later `fulfill` or
    ///   `reject` is ignored;
    /// - the promise's inline (`on: nil`) handlers run, as they do when a promise is rejected;
    ///   handlers with a queue are dispatched. A pending operator attached to it that has not
    ///   started never calls its closure: its promise is rejected with the cancellation too.
    /// - the cancellation travels up the chain: the promise this one was made from (by `map`,
    ///   `then`, `recover`, …, or the promise a `then` closure returned and this one follows)
    ///   is cancelled too when nothing else depends on it any more, and so on up to the
    ///   producer. A promise something else still depends on (another operator, a `pipe`, a
    ///   `wait()`) keeps going, and a ``Guarantee`` cannot be cancelled: the cancellation stops
    ///   there.
    ///
    /// Called from within a handler nested more than 16 levels deep on one thread, the handlers
    /// run right after that handler returns instead (see ``Resolver``).
    ///
    /// ```swift
    /// let download = fetchReport(id).map { try parse($0) }
    /// // The user navigated away:
    /// download.cancel()   // rejects `download`, and `fetchReport`'s promise, which stops its work
    /// ```
    public func cancel() {
        // A pending box is cancelled; an unobserved one is marked seen by the same transition:
        // whoever cancels no longer wants the outcome.
        cancelChain(from: box, .cancelled)
    }

    /// Whether the promise is rejected with an error whose `isCancelled` is true: cancelled with
    /// ``cancel()``, or rejected with ``PMKError/cancelled``, `CancellationError` or another
    /// ``CancellableError`` that says so.
    public var isCancelled: Bool {
        error?.isCancelled ?? false
    }
}

extension PMKFinalizer {
    /// Cancels the promise that this finalizer's `catch` was attached to (see
    /// ``Promise/cancel()``), as calling `cancel()` on that promise would: even when other
    /// handlers depend on it too. The `catch` handler is not called for the cancellation, unless
    /// its policy is ``CatchPolicy/allErrors``.
    ///
    /// ```swift
    /// let work = fetchUser(id).done { show($0) }.catch { report($0) }
    /// work.cancel()
    /// ```
    public func cancel() {
        guard let upstream = (box as? EmptyBox<Result<Void, Error>>)?.upstream() else { return }
        cancelChain(from: upstream, .cancelled)
    }
}

extension Resolver {
    /// Registers `body` to stop the producer's work when the promise is cancelled.
    ///
    /// `body` runs exactly once, on the thread that cancels, before ``Promise/cancel()`` returns,
    /// if the promise is cancelled while pending (directly, or because everything that depended
    /// on it was); at once, on the calling thread, if it already was cancelled; and never if it
    /// was fulfilled or rejected first, even with a cancellation error (it is released then).
    /// (`cancel()` called from a handler nested more than 16 levels deep on one thread leaves
    /// the cancelled promise's handlers, these bodies among them, to run right after that handler
    /// returns, on the same thread: see ``Promise/cancel()``.) Any number of bodies may be
    /// registered; they run in the order they were registered. It runs under no lock, so it may
    /// call into Pledge freely.
    ///
    /// ```swift
    /// func download(_ url: URL) -> Promise<Data> {
    ///     Promise { seal in
    ///         let task = session.dataTask(with: url) { data, _, error in seal.resolve(data, error) }
    ///         seal.onCancel { task.cancel() }
    ///         task.resume()
    ///     }
    /// }
    /// ```
    public func onCancel(_ body: @escaping @Sendable () -> Void) {
        box.addCancelHook(body)
    }

    /// Whether the promise was cancelled: by ``Promise/cancel()`` or because everything that
    /// depended on it was; not when this resolver rejected it with a cancellation error of its
    /// own. A producer that works in steps can check it between them.
    public var isCancelled: Bool {
        box.endedCancelled
    }
}
