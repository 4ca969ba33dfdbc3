/// How a `when` fan-in (``AllFanIn``, ``FanIn``) turns each input's result into a slot, and the
/// filled slots into its output.
///
/// Static requirements, so that each fan-in is specialised for its mode at compile time rather
/// than calling closures per input.
@usableFromInline
protocol FanInMode: SendableMetatype {
    /// The value type of the inputs.
    associatedtype Value: Sendable
    /// What the fan-in keeps of one input.
    associatedtype Slot: Sendable
    /// What the fan-in resolves its box with.
    associatedtype Output: Sendable

    /// The slot for an input's result, or the error that ends the fan-in at once.
    static func settle(_ result: Result<Value, Error>) -> Result<Slot, Error>

    /// The output, built from `slots` once every one is filled.
    static func collect(_ slots: consuming [Slot?]) -> Output
}

/// `when(fulfilled:)`: every input must be fulfilled; the first rejection ends the wait. The
/// values come back in input order.
@usableFromInline
enum FanInValues<Value: Sendable>: FanInMode {
    @inlinable
    static func settle(_ result: Result<Value, Error>) -> Result<Value, Error> { result }

    @inlinable
    static func collect(_ slots: consuming [Value?]) -> [Value] { slots.compactMap { $0 } }
}

/// `when(resolved:)`: every result, in input order; the wait never fails.
@usableFromInline
enum FanInResults<Value: Sendable>: FanInMode {
    @inlinable
    static func settle(_ result: Result<Value, Error>) -> Result<Result<Value, Error>, Error> { .success(result) }

    @inlinable
    static func collect(_ slots: consuming [Result<Value, Error>?]) -> [Result<Value, Error>] {
        slots.compactMap { $0 }
    }
}

/// `when(fulfilled:)` over `Void` thenables, and `when(guarantees:)` over `Void` guarantees:
/// keeps nothing but completion; the first rejection ends the wait.
@usableFromInline
enum FanInVoid<Value: Sendable>: FanInMode {
    @inlinable
    static func settle(_ result: Result<Value, Error>) -> Result<Void, Error> { result.map { _ in () } }

    @inlinable
    static func collect(_ slots: consuming [Void?]) {}
}
