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
        let wait = AsyncWait()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let waiter = AsyncWaiter(continuation, wait)
                guard wait.suspend(waiter) else {
                    // Cancelled before it could depend on the promise: it withdraws all the same.
                    continuation.resume(throwing: CancellationError())
                    cancelChain(from: box, .dependentWithdrawn)
                    return
                }
                box.attach(waiter)
                // A cancellation that came between `suspend` and `attach` could not detach it.
                if let waiter = wait.attached() { cancelChain(from: box, .dependentCancelled(waiter)) }
            }
        } onCancel: {
            // A cancelled waiter is a cancelled dependent: it leaves nothing on the promise, and
            // the promise is cancelled when nothing else depends on it.
            guard let waiter = wait.cancel() else { return }
            waiter.resume(throwing: CancellationError())
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
/// task being cancelled. Whichever comes first takes the waiter and resumes its continuation; the
/// other finds it gone.
///
/// The waiter is stored once, before it is attached to the promise, and is taken out under the
/// lock by exactly one transition, so its continuation is resumed exactly once.
///
/// Not generic, unlike the waiter: a generic state holding a `CheckedContinuation`, whose layout
/// the compiler cannot see, would look its type up at run time on every copy, move and release.
@usableFromInline
final class AsyncWait: Sendable {
    @usableFromInline
    enum State {
        /// The waiter is not stored yet.
        case starting
        /// Suspended, the waiter stored but maybe not attached to the promise yet.
        case waiting(any AsyncResumable)
        /// Suspended, the waiter attached: waiting for the promise or for cancellation.
        case attached(any AsyncResumable)
        /// Cancelled before the waiter was stored.
        case cancelledEarly
        /// Ended. `cancelled` is the waiter a cancellation took before it was attached, kept
        /// for ``attached()`` to withdraw.
        case finished(cancelled: (any AsyncResumable)?)
    }

    @usableFromInline
    let state = Lock(State.starting)

    @inlinable
    init() {}

    /// Stores `waiter`, unless the task was cancelled already.
    ///
    /// - Returns: Whether it was stored, so that the promise should be waited for.
    @inlinable
    func suspend(_ waiter: any AsyncResumable) -> Bool {
        state.withLock { state in
            guard case .starting = state else {
                // Only `.cancelledEarly` can be seen here: `suspend` is called once, first.
                state = .finished(cancelled: nil)
                return false
            }
            state = .waiting(waiter)
            return true
        }
    }

    /// Ends the wait as cancelled, unless it has ended already.
    ///
    /// - Returns: The waiter, for the caller to resume with `CancellationError`; `nil` when the
    ///   wait ended already or the waiter is not stored yet.
    @inlinable
    func cancel() -> (any AsyncResumable)? {
        state.withLock { state in
            switch state {
            case .starting:
                state = .cancelledEarly
                return nil
            case .waiting(let waiter):
                state = .finished(cancelled: waiter)
                return waiter
            case .attached(let waiter):
                state = .finished(cancelled: nil)
                return waiter
            case .cancelledEarly, .finished:
                return nil
            }
        }
    }

    /// The waiter is attached to the promise.
    ///
    /// - Returns: The waiter, when a cancellation took it before it was attached and so could
    ///   not detach it: the caller withdraws it now.
    @inlinable
    func attached() -> (any AsyncResumable)? {
        state.withLock { state in
            switch state {
            case .waiting(let waiter):
                state = .attached(waiter)
                return nil
            case .finished(let waiter?):
                state = .finished(cancelled: nil)
                return waiter
            case .starting, .attached, .cancelledEarly, .finished:
                return nil
            }
        }
    }

    /// Ends the wait as resolved, unless it has ended already.
    ///
    /// - Returns: Whether it was waiting, so that the caller resumes the continuation.
    @inlinable
    func resolve() -> Bool {
        state.withLock { state in
            switch state {
            case .waiting, .attached:
                state = .finished(cancelled: nil)
                return true
            case .starting, .cancelledEarly, .finished:
                return false
            }
        }
    }
}

/// What ``AsyncWait`` keeps of a waiter: enough to end it with a cancellation.
@usableFromInline
protocol AsyncResumable: AnyObject, Sendable {
    func resume(throwing error: any Error)
}

/// The receiver `Promise.async()` attaches: resumes the awaiting task with the promise's result,
/// unless a cancellation ended the wait first.
///
/// Inlinable, as `async()` is, so that a client's waits are specialised: an unspecialised wait
/// looks its generic types up at run time on every call.
@usableFromInline
final class AsyncWaiter<T: Sendable>: Receiver, AsyncResumable {
    @usableFromInline
    let continuation: CheckedContinuation<T, Error>

    @usableFromInline
    let wait: AsyncWait

    @inlinable
    init(_ continuation: CheckedContinuation<T, Error>, _ wait: AsyncWait) {
        self.continuation = continuation
        self.wait = wait
    }

    /// The promise resolved: ends the wait with its result.
    @inlinable
    func receive(from source: Box<Result<T, Error>>) -> Work? {
        if wait.resolve() { continuation.resume(with: source.result()) }
        return nil
    }

    @inlinable
    func abandon(from _: ObjectIdentifier) {}

    @inlinable
    func resume(throwing error: any Error) {
        continuation.resume(throwing: error)
    }
}
