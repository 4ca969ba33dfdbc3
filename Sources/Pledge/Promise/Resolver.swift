/// Settles a pending ``Promise``: fulfil it with a value or reject it with an error.
///
/// Only the first call counts; later ones are ignored. If the resolver is released while its
/// promise is still pending, nothing can settle the promise any more, and Pledge logs
/// ``LogEvent/pendingPromiseDeallocated(site:)``.
///
/// Fulfilling or rejecting runs the promise's inline (`on: nil`) handlers, and the whole chain
/// they lead to, before the call returns, from one loop whatever the chain's length. Called
/// from inside a handler, it starts a loop inside the running one; from the 17th such level on
/// one thread, it leaves the handlers to the running loop instead, which runs them right after
/// the current handler returns, or to `wait()`, which runs them before it blocks. So a chain
/// whose links each resolve the next promise through a resolver does not grow the stack either,
/// code that resolves a promise and then waits for what its handlers did keeps working at any
/// depth, and code that reads it without waiting keeps working at the depths where code does
/// that.
///
/// ```swift
/// func load() -> Promise<Data> {
///     Promise { seal in
///         legacyLoad { data, error in seal.resolve(data, error) }
///     }
/// }
/// ```
public final class Resolver<T: Sendable>: Sendable {
    @usableFromInline
    let box: EmptyBox<Result<T, Error>>

    @inlinable
    init(_ box: EmptyBox<Result<T, Error>>) {
        self.box = box
    }

    /// Inlinable so that client code frees a resolver that never left its function (an object
    /// the optimiser keeps on the stack) without a call through the runtime. A promise whose
    /// resolver goes unresolved can only be cancelled from then on (see ``EmptyBox/orphan()``).
    @inlinable
    deinit {
        if box.isPending {
            conf.log(.pendingPromiseDeallocated(site: box.creationSite))
            box.orphan()
        }
    }

    /// Fulfils the promise with `value`.
    @inlinable
    public func fulfill(_ value: T) {
        box.resolve(.success(value))
    }

    /// Rejects the promise with `error`.
    @inlinable
    public func reject(_ error: Error) {
        box.resolve(.failure(error))
    }

    /// Resolves the promise with `result`.
    @inlinable
    public func resolve<E: Error>(_ result: Result<T, E>) {
        box.resolve(result.mapError { $0 })
    }

    /// Resolves the promise with `result`: the form `seal.resolve(.success(value))` picks. The
    /// generic form alone leaves the error type of a bare `.success(value)` unknown, so without
    /// this one that call would not compile, where PromiseKit's `seal.resolve(.fulfilled(value))`
    /// does.
    @inlinable
    public func resolve(_ result: Result<T, Error>) {
        box.resolve(result)
    }

    /// Resolves the promise from a completion handler's `(value, error)` pair: rejects when
    /// `error` is not `nil`, fulfils when `value` is not `nil`, and otherwise rejects with
    /// ``PMKError/invalidCallingConvention``.
    @inlinable
    public func resolve(_ value: T?, _ error: Error?) {
        if let error {
            reject(error)
        } else if let value {
            fulfill(value)
        } else {
            reject(PMKError.invalidCallingConvention)
        }
    }

    /// Resolves the promise from a `(value, error)` pair whose value is not optional: rejects
    /// when `error` is not `nil`, fulfils otherwise.
    @inlinable
    public func resolve(_ value: T, _ error: Error?) {
        if let error {
            reject(error)
        } else {
            fulfill(value)
        }
    }

    /// Resolves the promise from an `(error, value)` pair, as ``resolve(_:_:)-(T?,Error?)``.
    @inlinable
    public func resolve(_ error: Error?, _ value: T?) {
        resolve(value, error)
    }
}

extension Resolver where T == Void {
    /// Rejects the promise when `error` is not `nil`; fulfils it otherwise.
    @inlinable
    public func resolve(_ error: Error?) {
        if let error {
            reject(error)
        } else {
            fulfill(())
        }
    }

    /// Fulfils the `Void` promise.
    @inlinable
    public func fulfill() {
        fulfill(())
    }

    // PromiseKit's spelling, kept for source compatibility.
    // swift-format-ignore: AlwaysUseLowerCamelCase
    /// Fulfils the `Void` promise (PromiseKit's spelling, for use as a function value).
    @inlinable
    public func fulfill_() {
        fulfill(())
    }
}

extension Resolver: CustomStringConvertible {
    /// `Resolver<Int>(pending)` or `Resolver<Int>(resolved)`.
    public var description: String {
        box.inspect(observing: false) == nil ? "Resolver<\(T.self)>(pending)" : "Resolver<\(T.self)>(resolved)"
    }
}

extension Resolver: CustomReflectable {
    /// Whether the promise is still pending, as one child, `isPending`. What `dump` and
    /// `Mirror(reflecting:)` show, instead of the resolver's storage (see
    /// ``Promise/customMirror``).
    public var customMirror: Mirror {
        Mirror(self, children: ["isPending": box.isPending], displayStyle: .class)
    }
}
