/// What an operator does with the result of the thenable it is attached to: `map`, `then`,
/// `catch`, … each describe themselves as a small value of this kind and hand it to
/// ``Thenable/_chain(_:_:)``. Generic structs, so client code is fully specialised.
@usableFromInline
protocol ChainOperation: Sendable {
    associatedtype Input: Sendable
    associatedtype Output: Sendable

    /// Moves the operation out, leaving one without the user's closure: the box takes it so, in
    /// one short access no user code runs in, to run or give up. The closure goes with the copy.
    /// A discarded operation is never run (it would reject with ``PMKError/cancelled``).
    mutating func take() -> Self

    /// Whether ``run(_:into:)`` calls user code for `result`. Only such results go to the
    /// operator's executor; the others (a rejection reaching `map`, a fulfilment reaching
    /// `catch`) pass through inline, without dispatching. By default, a fulfilment.
    func acts(on result: Result<Input, Error>) -> Bool

    /// Resolves `box` for `result`: seals it, or makes it follow another thenable. Takes the
    /// user's closure out of the operation to call it, so that it goes once it has run.
    ///
    /// - Returns: the work that fires `box` when this call sealed it and handlers are due.
    mutating func run(_ result: Result<Input, Error>, into box: ChainedBox<Self>) -> Work?

    /// The box of this operation applied now, inline, to `source`, a box born sealed.
    func settled(_ source: Box<Result<Input, Error>>) -> Box<Result<Output, Error>>

    /// Makes the user's closures run in `context`, the one of the code attaching them.
    mutating func carry(_ context: HandlerContext)

    /// Takes out what runs even when the box is cancelled first: the closure of `ensure`,
    /// `ensureThen` and `finally`, which runs however the chain ends. None by default.
    mutating func takeCleanup() -> (@Sendable () -> Void)?
}

extension ChainOperation {
    @inlinable
    func acts(on result: Result<Input, Error>) -> Bool { if case .success = result { true } else { false } }

    @inlinable
    mutating func takeCleanup() -> (@Sendable () -> Void)? { nil }

    @inlinable
    func settled(_ source: Box<Result<Input, Error>>) -> Box<Result<Output, Error>> {
        let box = ChainedBox(self, on: .inline, after: source, linked: false)
        ThreadRun.run(box.operate(source.result()), deferrable: false)
        return box
    }
}

/// An operation whose output is known as soon as its closure returns (`map`, `done`, `catch`,
/// …), as opposed to one that follows another thenable (`then`, `recover`).
@usableFromInline
protocol ValueOperation: ChainOperation {
    /// The output for `result`, running user code when ``ChainOperation/acts(on:)`` says so.
    mutating func output(for result: Result<Input, Error>) -> Result<Output, Error>
}

extension ValueOperation {
    @inlinable
    mutating func run(_ result: Result<Input, Error>, into box: ChainedBox<Self>) -> Work? {
        box.seal(output(for: result))
    }

    /// A settled input needs no pending box: the output is born sealed.
    @inlinable
    func settled(_ source: Box<Result<Input, Error>>) -> Box<Result<Output, Error>> {
        var operation = self
        return bornSealed(operation.output(for: source.result()), site: source.site)
    }
}
