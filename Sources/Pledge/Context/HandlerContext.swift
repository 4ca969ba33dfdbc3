import Synchronization

/// The task-local values a handler takes from where it was attached to where it runs: the
/// configuration scope it was attached in (see ``PMKConfiguration/withScope(queues:catchPolicy:logHandler:operation:)-(_,_,_,()->R)``)
/// and the task-locals named with ``PMKConfiguration/propagate(_:)-(TaskLocal<V?>)``.
///
/// Every operator captures the context as it is attached and its closure runs inside it, on
/// whichever thread or executor the closure runs. Until a scope is entered or a task-local is
/// named (``isOn``), capturing is one atomic load and nothing is kept.
@usableFromInline
struct HandlerContext: Sendable {
    /// The captured values, in the order their task-locals were named.
    let values: [any CapturedValue]

    /// Whether a task-local was named or a scope entered: until then there is nothing to
    /// capture. Set once the first is listed; never cleared.
    @usableFromInline
    static let isOn = Atomic<Bool>(false)

    /// The task-locals to capture, each named once.
    static let locals = LockedValue<[any PropagatedLocal]>([])

    /// The context of the code running now; `nil` when it binds none of the named task-locals.
    static var current: HandlerContext? {
        guard HandlerContext.isOn.load(ordering: .acquiring) else { return nil }
        return capture()
    }

    @usableFromInline
    static func capture() -> HandlerContext? {
        let values = locals.withLock { $0 }.compactMap { $0.capture() }
        return values.isEmpty ? nil : HandlerContext(values: values)
    }

    /// Names `local` (once, however often it is named) for every handler attached from now on.
    static func register(_ local: some PropagatedLocal) {
        locals.withLock { locals in
            if !locals.contains(where: { $0.identity == local.identity }) { locals.append(local) }
        }
        isOn.store(true, ordering: .releasing)
    }

    /// Runs `body` with the captured values bound.
    func bind<R>(_ body: () throws -> R) rethrows -> R {
        try Self.bind(values[...], body)
    }

    private static func bind<R>(_ values: ArraySlice<any CapturedValue>, _ body: () throws -> R) rethrows -> R {
        guard let first = values.first else { return try body() }
        return try first.bind { try bind(values.dropFirst(), body) }
    }
}

extension HandlerContext {
    /// `body`, made to run in the context of the code attaching it: what every operator keeps.
    @inlinable
    static func attached<I, O>(_ body: @escaping @Sendable (I) throws -> O) -> @Sendable (I) throws -> O {
        HandlerContext.isOn.load(ordering: .acquiring) ? inContext(body) : body
    }

    /// ``attached(_:)-(_)`` for a closure that cannot throw.
    @inlinable
    static func attached<I, O>(_ body: @escaping @Sendable (I) -> O) -> @Sendable (I) -> O {
        HandlerContext.isOn.load(ordering: .acquiring) ? inContext(body) : body
    }

    /// ``attached(_:)-(_)`` for a closure of no argument.
    @inlinable
    static func attached<O>(_ body: @escaping @Sendable () -> O) -> @Sendable () -> O {
        HandlerContext.isOn.load(ordering: .acquiring) ? inContext(body) : body
    }

    @usableFromInline
    static func inContext<I, O>(_ body: @escaping @Sendable (I) throws -> O) -> @Sendable (I) throws -> O {
        guard let context = capture() else { return body }
        return { input in try context.bind { try body(input) } }
    }

    @usableFromInline
    static func inContext<I, O>(_ body: @escaping @Sendable (I) -> O) -> @Sendable (I) -> O {
        guard let context = capture() else { return body }
        return { input in context.bind { body(input) } }
    }

    @usableFromInline
    static func inContext<O>(_ body: @escaping @Sendable () -> O) -> @Sendable () -> O {
        guard let context = capture() else { return body }
        return { context.bind(body) }
    }

    /// `body`, made to run in the context of the code calling this: for work Pledge starts later
    /// on a user's behalf (a `DispatchQueue.async(.promise)` body, a retry's next attempt).
    static func here<O>(_ body: @escaping @Sendable () throws -> O) -> @Sendable () throws -> O {
        guard let context = current else { return body }
        return { try context.bind(body) }
    }
}

/// A task-local a handler carries (see ``HandlerContext``).
@usableFromInline
protocol PropagatedLocal: Sendable {
    /// The task-local itself, to name it once.
    var identity: ObjectIdentifier { get }

    /// Its value now, when it is one to carry.
    func capture() -> (any CapturedValue)?
}

/// A task-local's value, to bind where a handler runs.
@usableFromInline
protocol CapturedValue: Sendable {
    func bind<R>(_ body: () throws -> R) rethrows -> R
}

/// A task-local of optional type: carried only while it holds a value.
struct OptionalLocal<Wrapped: Sendable>: PropagatedLocal {
    let local: TaskLocal<Wrapped?>

    var identity: ObjectIdentifier { ObjectIdentifier(local) }

    func capture() -> (any CapturedValue)? {
        local.get().map { Captured(local: local, value: $0) }
    }
}

/// A task-local of any other type: always carried, since its default cannot be told from a bound value.
struct PlainLocal<Value: Sendable>: PropagatedLocal {
    let local: TaskLocal<Value>

    var identity: ObjectIdentifier { ObjectIdentifier(local) }

    func capture() -> (any CapturedValue)? { Captured(local: local, value: local.get()) }
}

/// A value of `local`, bound again where a handler runs.
struct Captured<Value: Sendable>: CapturedValue {
    let local: TaskLocal<Value>
    let value: Value

    func bind<R>(_ body: () throws -> R) rethrows -> R {
        try local.withValue(value, operation: body)
    }
}

extension PMKConfiguration {
    /// Makes every handler attached from now on see `local`'s value as it was where the handler
    /// was attached, wherever the handler runs: on a queue, inline, through a ``Dispatcher`` or
    /// on an actor.
    ///
    /// Name the task-locals a server's logs and traces read once, at start-up; Pledge carries
    /// none it was not told of. A handler attached where `local` holds `nil` carries nothing and
    /// sees what its thread has (on a queue, `nil`); a chain built where none of the named
    /// task-locals holds a value costs nothing extra.
    ///
    /// ```swift
    /// enum Request { @TaskLocal static var id: String? }
    /// conf.propagate(Request.$id)
    /// conf.propagate(ServiceContext.$current)
    ///
    /// Request.$id.withValue("r-42") {
    ///     fetch().map { log("done", Request.id) }   // "r-42", on whichever queue `map` runs
    /// }
    /// ```
    ///
    /// Safe to call from any thread; naming a task-local twice names it once. The closures of
    /// operators and of `pipe(to:)` carry the values; work started by other means (a `Task`
    /// inherits task-locals itself; a callback API called from a handler does not) does not.
    public func propagate<V: Sendable>(_ local: TaskLocal<V?>) {
        HandlerContext.register(OptionalLocal(local: local))
    }

    /// ``propagate(_:)-(TaskLocal<V?>)`` for a task-local that is not optional: its value, bound or
    /// default, is carried by every handler attached from now on, which costs each operator a
    /// capture and an allocation. Prefer an optional task-local where you can.
    @_disfavoredOverload
    public func propagate<V: Sendable>(_ local: TaskLocal<V>) {
        HandlerContext.register(PlainLocal(local: local))
    }
}
