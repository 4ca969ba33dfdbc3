// The one implementation behind every chaining operator. Each public operator is a thin wrapper
// that describes itself as a small `ChainOperation` value (its closure plus, for `catch` and
// `recover`, its policy) and hands it to `_chain` (Thenable+Chain.swift). Operations are generic
// structs, so client code is fully specialised.

/// What an operator does with the result of the thenable it is attached to.
@usableFromInline
protocol ChainOperation: Sendable {
    associatedtype Input: Sendable
    associatedtype Output: Sendable

    /// The type of the user closure the operation runs.
    associatedtype Body

    /// The user closure; `nil` once discarded. A discarded operation is never run; if it were,
    /// it would reject with ``PMKError/cancelled`` (or pass its input on) rather than trap.
    var body: Body? { get set }

    /// Whether `run` calls user code for `result`. Only such results go to the operator's queue;
    /// the others (a rejection reaching `map`, a fulfilment reaching `catch`) pass through
    /// inline, without dispatching.
    func acts(on result: Result<Input, Error>) -> Bool

    /// Resolves the box `box` holds for `result`, directly or by following another thenable,
    /// running user code when ``acts(on:)`` says so. The caller lets go of the operation as soon
    /// as this returns, before the trampoline runs the handlers of the box, so the user's closure
    /// and its captures go first.
    ///
    /// - Returns: the step that fires a box this call sealed.
    func run(
        _ result: Result<Input, Error>, into box: consuming Retained<EmptyBox<Result<Output, Error>>>,
        _ run: inout Run
    ) -> Step?

    /// The box for this operation applied now, inline, to a settled input.
    func settled(_ result: Result<Input, Error>) -> Box<Result<Output, Error>>
}

extension ChainOperation {
    /// Drops the user closure, and everything it captures. A ``ChainedBox`` calls it on its
    /// stored copy as soon as it takes the operation to run, so a resolved promise that is still
    /// held does not keep its handler's captures alive.
    @inlinable
    mutating func discard() {
        body = nil
    }

    /// ``run(_:into:_:)``, unless the box has been sealed meanwhile, which only cancelling does
    /// before the operation runs: a cancelled operator never calls its closure. Every handler
    /// and block that runs an operation goes through here.
    @inlinable @inline(__always)
    func runUnlessCancelled(
        _ result: Result<Input, Error>, into box: consuming Retained<EmptyBox<Result<Output, Error>>>,
        _ run: inout Run
    ) -> Step? {
        guard box.withObject({ $0.isPending }) else { return nil }
        return self.run(result, into: box, &run)
    }

    @inlinable
    func settled(_ result: Result<Input, Error>) -> Box<Result<Output, Error>> {
        let box: EmptyBox<Result<Output, Error>> = pendingBox()
        Trampoline.run { self.run(result, into: Retained(box), &$0) }
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
    /// Seals the box with the output.
    @inlinable @inline(__always)
    func run(
        _ result: Result<Input, Error>, into box: consuming Retained<EmptyBox<Result<Output, Error>>>,
        _ run: inout Run
    ) -> Step? {
        run.seal(box, with: output(for: result))
    }

    /// A settled input needs no pending box at all: the output is born sealed.
    @inlinable
    func settled(_ result: Result<Input, Error>) -> Box<Result<Output, Error>> {
        bornSealed(output(for: result))
    }
}

/// An operation that runs user code on fulfilment only; rejections pass through it inline.
@usableFromInline
protocol FulfilmentOperation: ChainOperation {}

extension FulfilmentOperation {
    @inlinable
    func acts(on result: Result<Input, Error>) -> Bool { result.isSuccess }
}

extension Result {
    /// Whether this is a success.
    @inlinable
    var isSuccess: Bool {
        if case .success = self { return true }
        return false
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
