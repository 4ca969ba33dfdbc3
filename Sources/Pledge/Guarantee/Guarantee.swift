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
    // A guarantee's box holds a `Result` like a promise's, always a success, so that both share
    // one box type and one chaining implementation.
    @usableFromInline
    let box: Box<Result<T, Error>>

    @inlinable
    init(box: Box<Result<T, Error>>) {
        self.box = box
    }

    /// Returns a guarantee that already has `value`.
    @inlinable
    public static func value(_ value: T) -> Guarantee<T> {
        Guarantee(box: SealedBox(value: .success(value)))
    }

    /// Makes a pending guarantee and runs `body` at once, synchronously, with the function that
    /// resolves it.
    ///
    /// Only the first call of that function counts. If it is released uncalled, Pledge logs
    /// ``LogEvent/pendingGuaranteeDeallocated(site:)``, with `file` and `line`, where the
    /// guarantee was made, in debug builds (see ``CreationSite``); leave them out.
    ///
    /// ```swift
    /// let answer = Guarantee<Int> { resolve in
    ///     computeInBackground { resolve($0) }
    /// }
    /// ```
    @inlinable
    public init(
        resolver body: (@escaping @Sendable (T) -> Void) -> Void, file: StaticString = #fileID, line: UInt = #line
    ) {
        let box = EmptyBox<Result<T, Error>>(site: (file, line))
        self.box = box
        body(GuaranteeSealer(box).resolve)
    }

    /// Makes a pending guarantee and the function that resolves it.
    ///
    /// `file` and `line` say where the guarantee was made, for
    /// ``LogEvent/pendingGuaranteeDeallocated(site:)`` in debug builds; leave them out.
    ///
    /// - Returns: the guarantee and its resolve function; see ``init(resolver:file:line:)``.
    @inlinable
    public class func pending(file: StaticString = #fileID, line: UInt = #line)
        -> (guarantee: Guarantee<T>, resolve: @Sendable (T) -> Void)
    {
        let box = EmptyBox<Result<T, Error>>(site: (file, line))
        return (Guarantee(box: box), GuaranteeSealer(box).resolve)
    }

    /// Calls `body` with the result, always a success, once this guarantee has its value.
    /// Each handler runs exactly once, and a thread's handlers start in the order it attached them,
    /// each after the one before has returned: on the calling thread at once when the guarantee has
    /// its value (right after this thread's earlier handler, on the thread running it, when one
    /// still runs), otherwise on the thread that resolves it.
    @inlinable
    public func pipe(to body: @escaping @Sendable (Result<T, Error>) -> Void) {
        box.pipe(body)
    }

    /// The result, always a success, or `nil` while pending.
    @inlinable
    public var result: Result<T, Error>? {
        box.inspect(observing: false)
    }
}

extension Guarantee where T == Void {
    /// Makes a guarantee that already has `Void`.
    @inlinable
    public convenience init() {
        self.init(box: SealedBox(value: .success(())))
    }

    /// A guarantee that already has `Void`.
    @inlinable
    public static var value: Guarantee<Void> {
        Guarantee(box: SealedBox(value: .success(())))
    }
}

extension Guarantee: CustomStringConvertible, CustomDebugStringConvertible {
    /// `Guarantee(…Int)` while pending, then `Guarantee(<value>)`: the wording of
    /// ``Promise/description``.
    public var description: String {
        switch result {
        case nil: return "Guarantee(…\(T.self))"
        case .success(let value)?: return "Guarantee(\(value))"
        case .failure(let error)?: return "Guarantee(\(error))"
        }
    }

    /// `Guarantee<Int>.pending(handlers: 1)` or `Guarantee<Int>.fulfilled(<value>)`: the wording
    /// of ``Promise/debugDescription``.
    public var debugDescription: String {
        switch result {
        case nil: return "Guarantee<\(T.self)>.pending(handlers: \(box.waitingHandlers))"
        case .success(let value)?: return "Guarantee<\(T.self)>.fulfilled(\(value))"
        case .failure(let error)?: return "Guarantee<\(T.self)>.rejected(\(type(of: error)).\(error))"
        }
    }
}

extension Guarantee: CustomReflectable {
    /// The guarantee's state, as one child, `value`: `nil` while pending. What `dump` and
    /// `Mirror(reflecting:)` show, instead of the guarantee's storage (see
    /// ``Promise/customMirror``).
    public var customMirror: Mirror {
        Mirror(self, children: ["value": value as Any], displayStyle: .class)
    }
}

/// Owns the right to resolve a pending guarantee; logs
/// ``LogEvent/pendingGuaranteeDeallocated(site:)`` if released before using it.
@usableFromInline
final class GuaranteeSealer<T: Sendable>: Sendable {
    @usableFromInline
    let box: EmptyBox<Result<T, Error>>

    @inlinable
    init(_ box: EmptyBox<Result<T, Error>>) {
        self.box = box
    }

    deinit {
        if box.isPending {
            conf.log(.pendingGuaranteeDeallocated(site: box.creationSite))
        }
    }

    @inlinable
    @Sendable
    func resolve(_ value: T) {
        box.resolve(.success(value))
    }
}
