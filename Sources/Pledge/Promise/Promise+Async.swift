extension Promise {
    /// Waits for the promise without blocking a thread: returns its value or throws its error.
    ///
    /// The awaiting task is suspended until the promise resolves and is resumed directly from the
    /// thread that resolves it; no queue is involved, so it works where no queue is drained (a
    /// Linux server, a command-line tool). Every error is thrown, cancellations included: no
    /// ``CatchPolicy`` applies here.
    ///
    /// If the awaiting task is cancelled first, the wait ends at once with `CancellationError`
    /// and leaves nothing attached to the promise. The waiter counts as a cancelled dependent:
    /// when nothing else depends on the promise, it is cancelled too (see ``cancel()``).
    ///
    /// ```swift
    /// let user = try await fetchUser(id).async()
    /// ```
    ///
    /// - Returns: The value the promise is fulfilled with.
    /// - Throws: The error the promise is rejected with, or `CancellationError` when the awaiting
    ///   task is cancelled before the promise resolves.
    @inlinable
    public func async() async throws -> T {
        if let result { return try result.get() }
        let waiter = AsyncWaiter<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard waiter.suspend(continuation) else {
                    // Cancelled before it could depend on the promise: it withdraws all the same.
                    cancelChain(from: box, .dependentWithdrawn)
                    return
                }
                box.attach(waiter)
                // A cancellation that came between `suspend` and `attach` could not detach it.
                if waiter.isFinished { cancelChain(from: box, .dependentCancelled(waiter)) }
            }
        } onCancel: {
            // A cancelled waiter is a cancelled dependent: it leaves nothing on the promise, and
            // the promise is cancelled when nothing else depends on it.
            waiter.cancel()
            cancelChain(from: box, .dependentCancelled(waiter))
        }
    }

    /// Starts `body` in a new `Task` and returns a promise of its result.
    ///
    /// The task is unstructured: it inherits the priority and task-local values of the calling
    /// context but not its actor, so `body` runs on the global concurrent executor unless it is
    /// isolated itself. The promise is fulfilled with what `body` returns or rejected with the
    /// error it throws, on the thread that ran the end of `body`. Cancelling the promise (see
    /// ``cancel()``) cancels the task; `body` sees it through `Task.isCancelled` or a throwing
    /// `Task.checkCancellation()`, and the promise is rejected with ``PMKError/cancelled`` at once.
    ///
    /// ```swift
    /// func fetchUser(id: Int) -> Promise<User> {
    ///     Promise { try await client.user(id: id) }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - body: The asynchronous work.
    ///   - file: Where the promise was made, for the ``LogEvent``s about a lost promise in debug
    ///     builds (see ``CreationSite``); leave it out.
    ///   - line: The line that goes with `file`; leave it out.
    public convenience init(
        task body: @escaping @Sendable () async throws -> T, file: StaticString = #fileID, line: UInt = #line
    ) {
        let box = EmptyBox<Result<T, Error>>(site: (file, line))
        self.init(box: box)
        let task = Task {
            do {
                box.resolve(.success(try await body()))
            } catch {
                box.resolve(.failure(error))
            }
        }
        box.addCancelHook { task.cancel() }
    }
}

/// Where `Promise.async()`'s two possible endings meet: the promise resolving and the awaiting
/// task being cancelled. Whichever comes first resumes the continuation; the other finds it gone.
///
/// The continuation is stored once, before the handler that resolves it is attached, and is
/// taken out under the lock by exactly one transition, so it is resumed exactly once.
///
/// Inlinable, as `async()` is, so that a client's waits are specialised: an unspecialised wait
/// looks its generic types up at run time on every call.
@usableFromInline
final class AsyncWaiter<T: Sendable>: Receiver {
    @usableFromInline
    enum State {
        /// The continuation is not stored yet.
        case starting
        /// Suspended, waiting for the promise or for cancellation.
        case waiting(CheckedContinuation<T, Error>)
        /// Cancelled before the continuation was stored.
        case cancelledEarly
        /// The continuation was resumed.
        case finished
    }

    @usableFromInline
    let state = LockedValue(State.starting)

    @inlinable
    init() {}

    /// Stores the continuation; resumes it with `CancellationError` instead when the task was
    /// cancelled already.
    ///
    /// - Returns: Whether it was stored, so that the promise should be waited for.
    @inlinable
    func suspend(_ continuation: CheckedContinuation<T, Error>) -> Bool {
        let cancelled: Bool = state.withLock { state in
            switch state {
            case .starting:
                state = .waiting(continuation)
                return false
            case .cancelledEarly, .waiting, .finished:
                // Only `.cancelledEarly` can be seen here: `suspend` is called once, first.
                state = .finished
                return true
            }
        }
        if cancelled { continuation.resume(throwing: CancellationError()) }
        return !cancelled
    }

    /// Ends the wait with `CancellationError`, unless it has ended already.
    @inlinable
    func cancel() {
        let continuation: CheckedContinuation<T, Error>? = state.withLock { state in
            switch state {
            case .starting:
                state = .cancelledEarly
                return nil
            case .waiting(let continuation):
                state = .finished
                return continuation
            case .cancelledEarly, .finished:
                return nil
            }
        }
        continuation?.resume(throwing: CancellationError())
    }

    /// Whether the wait has ended.
    @inlinable
    var isFinished: Bool {
        state.withLock { state in
            if case .finished = state { return true }
            return false
        }
    }

    /// The promise resolved: ends the wait with its result.
    @inlinable
    func receive(from source: Box<Result<T, Error>>) -> Work? {
        resume(with: source.result())
        return nil
    }

    @inlinable
    func abandon(from _: ObjectIdentifier) {}

    /// Ends the wait with the promise's result, unless it has ended already.
    @inlinable
    func resume(with result: Result<T, Error>) {
        let continuation: CheckedContinuation<T, Error>? = state.withLock { state in
            guard case .waiting(let continuation) = state else { return nil }
            state = .finished
            return continuation
        }
        continuation?.resume(with: result)
    }
}
