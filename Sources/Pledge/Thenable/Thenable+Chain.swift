import Dispatch

// The one implementation behind every chaining operator. Each public operator is a thin wrapper
// that passes its user closure as `body` and a non-capturing `run` function saying what to do
// with it. Because `run` captures nothing, attaching to a pending thenable allocates exactly one
// handler closure (holding `body`, `run`, the queue and the result box), and a thenable that is
// already resolved with `on: nil` allocates none: the work runs at once.

/// Which results an operator's handler acts on; the others pass through untouched.
@usableFromInline
enum ChainSide: Sendable {
    /// `then`, `map`, `done`, …: rejections pass through without dispatching.
    case fulfilled
    /// `recover`, `catch`: fulfilments pass through, and so do errors the policy excludes.
    case rejected(CatchPolicy)
    /// `tap`, `ensure`: every result.
    case both

    @inlinable
    func acts<T>(on result: Result<T, Error>) -> Bool {
        switch (self, result) {
        case (.both, _), (.fulfilled, .success): return true
        case (.fulfilled, .failure), (.rejected, .success): return false
        case (.rejected(let policy), .failure(let error)): return policy.handles(error)
        }
    }
}

extension Thenable {
    /// Makes the result promise of an operator and connects it to `self`.
    ///
    /// When `self` resolves with a result `side` acts on, `run(body, result, box)` is called on
    /// `queue` (inline when `nil`) and must resolve `box`, directly or by following another
    /// thenable. Other results are passed to `box` by `pass` without dispatching.
    ///
    /// - Returns: `box`, to back the promise or guarantee the operator returns.
    @inlinable
    func _chain<Body: Sendable, U: Sendable>(
        on queue: DispatchQueue?, flags: DispatchWorkItemFlags?, side: ChainSide, body: Body,
        pass: @escaping @Sendable (Result<T, Error>) -> Result<U, Error>,
        run: @escaping @Sendable (Body, Result<T, Error>, EmptyBox<Result<U, Error>>) -> _PledgeStep?
    ) -> EmptyBox<Result<U, Error>> {
        checkFlags(queue, flags)
        let flags = flags?.rawValue
        let box: EmptyBox<Result<U, Error>> = pendingBox()
        if queue == nil, let result = _settledResult {
            // Already settled and nothing to dispatch to: do the work now, with no handler.
            Trampoline.run(side.acts(on: result) ? run(body, result, box) : box.resolve(pass(result)))
            return box
        }
        Trampoline.run(
            _pipe { result in
                guard side.acts(on: result) else { return box.resolve(pass(result)) }
                return runOrDispatch(on: queue, flags: flags, run, body, result, box)
            })
        return box
    }

    /// ``_chain(on:flags:side:body:pass:run:)`` for operators that act on fulfilment only.
    @inlinable
    func _chainFulfilled<Body: Sendable, U: Sendable>(
        on queue: DispatchQueue?, flags: DispatchWorkItemFlags?, body: Body,
        run: @escaping @Sendable (Body, T, EmptyBox<Result<U, Error>>) -> _PledgeStep?
    ) -> EmptyBox<Result<U, Error>> {
        // `body` and `run` travel together as the body of `_chain`, so that the adapter below
        // captures nothing and costs no allocation.
        _chain(
            on: queue, flags: flags, side: .fulfilled, body: (body, run),
            pass: { result in
                // Only rejections pass through `.fulfilled`.
                if case .failure(let error) = result { return .failure(error) }
                return .failure(PMKError.badInput)
            },
            run: { bodyAndRun, result, box in
                switch result {
                case .success(let value): return bodyAndRun.1(bodyAndRun.0, value, box)
                case .failure(let error): return box.resolve(.failure(error))
                }
            })
    }
}

extension Thenable {
    /// The result, when a handler attached now would run at once: the thenable is resolved
    /// *and* has started every handler attached before. While a promise is still running its
    /// earlier handlers this is `nil`, so a new `on: nil` operator queues behind them instead of
    /// overtaking them. Always `nil` for thenables outside Pledge, which then simply attach.
    @inlinable
    var _settledResult: Result<T, Error>? {
        if let promise = self as? Promise<T> { return promise.box.settledValue }
        if let guarantee = self as? Guarantee<T> { return guarantee.box.settledValue }
        return nil
    }
}

/// Calls `run(body, value, box)` now when `queue` is `nil`, or asynchronously on `queue`.
///
/// - Returns: the step `run` handed back when it ran now; `nil` when it was dispatched.
@inlinable
func runOrDispatch<Body: Sendable, Value: Sendable, U: Sendable>(
    on queue: DispatchQueue?, flags: UInt?,
    _ run: @escaping @Sendable (Body, Value, EmptyBox<U>) -> _PledgeStep?,
    _ body: Body, _ value: Value, _ box: EmptyBox<U>
) -> _PledgeStep? {
    guard let queue else { return run(body, value, box) }
    queue.pledgeAsync(flags: flags) { run(body, value, box) }
    return nil
}

/// Resolves `box` as `thenable` resolves, unless `thenable` is the promise backed by `box`
/// itself, which could never resolve: then `box` is rejected with ``PMKError/returnedSelf``.
@inlinable
func follow<U: Thenable>(_ thenable: U, into box: EmptyBox<Result<U.T, Error>>) -> _PledgeStep? {
    if let promise = thenable as? Promise<U.T>, promise.box === box {
        return box.resolve(.failure(PMKError.returnedSelf))
    }
    return thenable._pipe { box.resolve($0) }
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
