import Dispatch

/// A value, or an error, that will be available later.
///
/// A promise is resolved exactly once: fulfilled with a value or rejected with an error. Attach
/// handlers with `then`, `map`, `done`, `catch` and friends; each returns a new promise, so
/// work reads top to bottom:
///
/// ```swift
/// firstly {
///     fetchUser(id: 42)
/// }.map { user in
///     user.name.uppercased()
/// }.done { name in
///     print("Hello, \(name)")
/// }.catch { error in
///     print("Failed: \(error)")
/// }
/// ```
///
/// Handlers run on ``PMKConfiguration/Q`` unless given `on:`; `on: nil` runs them inline: on the
/// thread that resolves the promise, or, when it is already resolved, at once on the thread that
/// attaches them. Each thread's handlers start in the order it attached them, each after the one
/// before has returned, and never wait for a handler another thread attached: one attached while
/// the resolving thread is still busy in another thread's handler runs at once on the attaching
/// thread.
public final class Promise<T: Sendable>: Thenable, CatchMixin {
    @usableFromInline
    let box: Box<Result<T, Error>>

    @inlinable
    init(box: Box<Result<T, Error>>) {
        self.box = box
    }

    /// Returns a promise that is already fulfilled with `value`.
    ///
    /// Handlers with a queue still run asynchronously on it; `on: nil` handlers run at once.
    @inlinable
    public static func value(_ value: T) -> Promise<T> {
        Promise(box: SealedBox(value: .success(value)))
    }

    /// Makes a promise that is already rejected with `error`.
    ///
    /// If nothing ever attaches a handler to it, reads its state or cancels it, Pledge logs
    /// ``LogEvent/unhandledRejection(_:site:)`` when it is released. `file` and `line` say where
    /// it was made, for that event in debug builds; leave them out.
    @inlinable
    public init(error: Error, file: StaticString = #fileID, line: UInt = #line) {
        box = EmptyBox(unobserved: error, site: (file, line))
    }

    /// Makes a promise that follows another thenable: it resolves as `bridge` does. Following a
    /// promise, it is that promise; following a guarantee, it has the guarantee's creation site,
    /// and following a thenable of another kind, `file` and `line` (see ``CreationSite``), which
    /// you leave out.
    @inlinable
    public init<U: Thenable>(_ bridge: U, file: StaticString = #fileID, line: UInt = #line) where U.T == T {
        if let promise = bridge as? Promise<T> {
            box = promise.box
        } else if let source = bridge._box {
            // A guarantee's box is not shared: it must never be cancelled through this promise.
            let box = EmptyBox<Result<T, Error>>(site: source.site)
            self.box = box
            source.attach(sealing: box)
        } else {
            let box = EmptyBox<Result<T, Error>>(site: (file, line))
            self.box = box
            let producer = ForeignProducer(box)
            bridge.pipe { producer.resolve($0) }
        }
    }

    /// Makes a pending promise and runs `body` at once, synchronously, with its resolver.
    ///
    /// If `body` throws, the promise is rejected with the error (unless `body` resolved it
    /// first). `file` and `line` say where the promise was made, for the ``LogEvent``s about a
    /// lost promise in debug builds (see ``CreationSite``); leave them out.
    ///
    /// ```swift
    /// let data = Promise<Data> { seal in
    ///     legacyLoad { data, error in seal.resolve(data, error) }
    /// }
    /// ```
    @inlinable
    public init(resolver body: (Resolver<T>) throws -> Void, file: StaticString = #fileID, line: UInt = #line) {
        let box = EmptyBox<Result<T, Error>>(site: (file, line))
        self.box = box
        let resolver = Resolver(box)
        do {
            try body(resolver)
        } catch {
            resolver.reject(error)
        }
    }

    /// Makes a pending promise and the resolver that settles it.
    ///
    /// If the resolver is released while the promise is still pending, Pledge logs
    /// ``LogEvent/pendingPromiseDeallocated(site:)``. `file` and `line` say where the promise was
    /// made, for that event in debug builds (see ``CreationSite``); leave them out.
    ///
    /// - Returns: the promise and its resolver.
    @inlinable
    public class func pending(file: StaticString = #fileID, line: UInt = #line)
        -> (promise: Promise<T>, resolver: Resolver<T>)
    {
        let box = EmptyBox<Result<T, Error>>(site: (file, line))
        return (Promise(box: box), Resolver(box))
    }

    /// Calls `body` with the result once this promise is resolved. Each handler runs
    /// exactly once, and a thread's handlers start in the order it attached them, each after the
    /// one before has returned: on the calling thread at once when the promise is resolved (right
    /// after this thread's earlier handler, on the thread running it, when one still runs),
    /// otherwise on the thread that resolves it.
    @inlinable
    public func pipe(to body: @escaping @Sendable (Result<T, Error>) -> Void) {
        box.pipe(body)
    }

    /// The result, or `nil` while pending.
    ///
    /// Reading it (or `value`, `error`, `isRejected` and the other state reads built on it)
    /// counts as seeing a rejection: the promise is then not reported as an
    /// ``LogEvent/unhandledRejection(_:site:)``.
    @inlinable
    public var result: Result<T, Error>? {
        box.inspect(observing: true)
    }
}

extension Promise where T == Void {
    /// Makes a promise that is already fulfilled with `Void`.
    @inlinable
    public convenience init() {
        self.init(box: SealedBox(value: .success(())))
    }

    /// A promise that is already fulfilled with `Void`.
    @inlinable
    public static var value: Promise<Void> {
        Promise(box: SealedBox(value: .success(())))
    }
}

extension Promise: CustomStringConvertible, CustomDebugStringConvertible {
    /// `Promise(…Int)` while pending, then `Promise(<value>)` or `Promise(<error>)`, as in
    /// PromiseKit.
    ///
    /// Printing a promise does not count as seeing its error: a rejection that only a log line
    /// showed is still reported as ``LogEvent/unhandledRejection(_:site:)``.
    public var description: String {
        switch unobservedResult {
        case nil: return "Promise(…\(T.self))"
        case .success(let value): return "Promise(\(value))"
        case .failure(let error): return "Promise(\(error))"
        }
    }

    /// `Promise<Int>.pending(handlers: 2)`, `Promise<Int>.fulfilled(<value>)` or
    /// `Promise<Int>.rejected(<ErrorType>.<error>)`: PromiseKit's wording, with the number of
    /// handlers waiting. Like ``description``, it does not count as seeing an error.
    public var debugDescription: String {
        switch unobservedResult {
        case nil:
            return "Promise<\(T.self)>.pending(handlers: \(box.waitingHandlers))"
        case .success(let value):
            return "Promise<\(T.self)>.fulfilled(\(value))"
        case .failure(let error):
            return "Promise<\(T.self)>.rejected(\(type(of: error)).\(error))"
        }
    }

    /// The result for a description or a mirror: unlike ``result``, reading it leaves an unseen
    /// rejection unseen, so printing a promise never hides a missing `catch`.
    private var unobservedResult: Result<T, Error>? {
        box.inspect(observing: false)
    }
}

extension Promise: CustomReflectable {
    /// The promise's state, as one child, `result`: `nil` while pending, then the value or the
    /// error. What `dump` and `Mirror(reflecting:)` show, instead of the promise's storage,
    /// whose value slot holds a placeholder until the promise is resolved (reflecting that
    /// would crash). Dumping a promise does not count as seeing its error.
    public var customMirror: Mirror {
        Mirror(self, children: ["result": unobservedResult as Any], displayStyle: .class)
    }
}
