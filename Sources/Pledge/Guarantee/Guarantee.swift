import Dispatch

/// A value that will be available later and cannot fail: the non-failing sibling of
/// ``Promise``.
///
/// Guarantees have `done`, `get`, `map` and `then` that return guarantees, so a chain that
/// cannot fail needs no `catch`. A throwing closure turns the chain into a ``Promise``.
///
/// ```swift
/// after(seconds: 1).map { "ready" }.done { print($0) }
/// ```
public final class Guarantee<T: Sendable>: Thenable {
    @usableFromInline
    let box: Box<T>

    @inlinable
    init(box: Box<T>) {
        self.box = box
    }

    /// Returns a guarantee that already has `value`.
    @inlinable
    public static func value(_ value: T) -> Guarantee<T> {
        Guarantee(box: SealedBox(value))
    }

    /// Makes a pending guarantee and runs `body` at once, synchronously, with the function that
    /// resolves it.
    ///
    /// Only the first call of that function counts. If it is released uncalled, Pledge logs
    /// ``LogEvent/pendingGuaranteeDeallocated``.
    ///
    /// ```swift
    /// let answer = Guarantee<Int> { resolve in
    ///     computeInBackground { resolve($0) }
    /// }
    /// ```
    @inlinable
    public init(resolver body: (@escaping @Sendable (T) -> Void) -> Void) {
        let box = EmptyBox<T>()
        self.box = box
        body(GuaranteeSealer(box).resolve)
    }

    /// Makes a pending guarantee and the function that resolves it.
    ///
    /// - Returns: the guarantee and its resolve function; see ``init(resolver:)``.
    @inlinable
    public class func pending() -> (guarantee: Guarantee<T>, resolve: @Sendable (T) -> Void) {
        let box = EmptyBox<T>()
        return (Guarantee(box: box), GuaranteeSealer(box).resolve)
    }

    /// Calls `body` with the result, always a success, once this guarantee has its value; at
    /// once, on the calling thread, if it already has.
    @inlinable
    public func pipe(to body: @escaping @Sendable (Result<T, Error>) -> Void) {
        Trampoline.run(box.inspect { body(.success($0)); return nil })
    }

    /// Not API; see ``Thenable/_pipe(_:)``.
    @inlinable
    public func _pipe(_ handler: @escaping @Sendable (Result<T, Error>) -> _PledgeStep?) -> _PledgeStep? {
        box.inspect { handler(.success($0)) }
    }

    /// The result, always a success, or `nil` while pending.
    @inlinable
    public var result: Result<T, Error>? {
        switch box.inspect() {
        case .pending: return nil
        case .resolved(let value): return .success(value)
        }
    }
}

extension Guarantee where T == Void {
    /// Makes a guarantee that already has `Void`.
    @inlinable
    public convenience init() {
        self.init(box: SealedBox(()))
    }

    /// A guarantee that already has `Void`.
    @inlinable
    public static var value: Guarantee<Void> {
        Guarantee(box: SealedBox(()))
    }
}

extension Guarantee: CustomStringConvertible, CustomDebugStringConvertible {
    /// `Guarantee(pending)` or `Guarantee(<value>)`.
    public var description: String {
        switch box.inspect() {
        case .pending: return "Guarantee(pending)"
        case .resolved(let value): return "Guarantee(\(value))"
        }
    }

    /// Like ``description``, with the value type spelled out.
    public var debugDescription: String {
        switch box.inspect() {
        case .pending: return "Guarantee<\(T.self)>.pending"
        case .resolved(let value): return "Guarantee<\(T.self)>.fulfilled(\(String(reflecting: value)))"
        }
    }
}

/// Owns the right to resolve a pending guarantee; logs
/// ``LogEvent/pendingGuaranteeDeallocated`` if released before using it.
@usableFromInline
final class GuaranteeSealer<T: Sendable>: Sendable {
    @usableFromInline
    let box: Box<T>

    @inlinable
    init(_ box: Box<T>) {
        self.box = box
    }

    deinit {
        if case .pending = box.inspect() {
            conf.log(.pendingGuaranteeDeallocated)
        }
    }

    @inlinable
    @Sendable
    func resolve(_ value: T) {
        box.seal(value)
    }
}
