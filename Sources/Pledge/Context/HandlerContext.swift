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

    /// The task-locals to capture, each named once. A capture reads its own copy of the array
    /// after the lock, unchanged while another thread names one more.
    static let locals = LockedValue<[PropagatedLocal]>([])

    /// The context of the code running now; `nil` when it binds none of the named task-locals.
    static var current: HandlerContext? {
        guard HandlerContext.isOn.load(ordering: .acquiring) else { return nil }
        return capture()
    }

    /// The context of the code running now, once ``isOn``; `nil` when it binds none of the named
    /// task-locals. Each named task-local adds its value when it holds one: where none does, the
    /// array is never allocated and nothing is kept.
    @usableFromInline
    static func capture() -> HandlerContext? {
        let locals = locals.withLock { $0 }
        var values: [any CapturedValue] = []
        for index in locals.indices { locals[index].capture(&values) }
        return values.isEmpty ? nil : HandlerContext(values: values)
    }

    /// Names `local` (once, however often it is named) for every handler attached from now on.
    @usableFromInline
    static func register(_ local: PropagatedLocal) {
        locals.withLock { named in
            if !named.contains(where: { $0.identity == local.identity }) { named.append(local) }
        }
        isOn.store(true, ordering: .releasing)
    }

    /// Runs `body` with the captured values bound.
    func bind<R>(_ body: () throws -> R) rethrows -> R {
        try bind(from: 0, body)
    }

    /// Binds the values from `index` on, one inside the other, and runs `body` inside them all.
    private func bind<R>(from index: Int, _ body: () throws -> R) rethrows -> R {
        guard index < values.count else { return try body() }
        return try values[index].bind { try bind(from: index + 1, body) }
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
        capture()?.wrap(body) ?? body
    }

    @usableFromInline
    static func inContext<I, O>(_ body: @escaping @Sendable (I) -> O) -> @Sendable (I) -> O {
        capture()?.wrap(body) ?? body
    }

    @usableFromInline
    static func inContext<O>(_ body: @escaping @Sendable () -> O) -> @Sendable () -> O {
        capture()?.wrap(body) ?? body
    }

    /// `body`, made to run in this context.
    @usableFromInline
    func wrap<I, O>(_ body: @escaping @Sendable (I) throws -> O) -> @Sendable (I) throws -> O {
        { input in try bind { try body(input) } }
    }

    /// ``wrap(_:)-(_)`` for a closure that cannot throw.
    @usableFromInline
    func wrap<I, O>(_ body: @escaping @Sendable (I) -> O) -> @Sendable (I) -> O {
        { input in bind { body(input) } }
    }

    /// ``wrap(_:)-(_)`` for a closure of no argument.
    @usableFromInline
    func wrap<O>(_ body: @escaping @Sendable () -> O) -> @Sendable () -> O {
        { bind(body) }
    }

    /// `body`, made to run in the context of the code calling this: for work Pledge starts later
    /// on a user's behalf (a `DispatchQueue.async(.promise)` body, a retry's next attempt).
    static func here<O>(_ body: @escaping @Sendable () throws -> O) -> @Sendable () throws -> O {
        guard let context = current else { return body }
        return { try context.bind(body) }
    }
}

extension ChainOperation {
    /// This operation, made to run in the context of the code running now when that binds any
    /// named task-local or a scope (see ``HandlerContext``). Out of line: rarely needed, it would
    /// make every box's `init` too large to inline.
    @inlinable
    @inline(never)
    func carryingContext() -> Self {
        guard let context = HandlerContext.capture() else { return self }
        var carried = self
        carried.carry(context)
        return carried
    }
}

/// A task-local a handler carries (see ``HandlerContext``): the task-local, to name it once, and
/// how to read its value now and add it to the values to bind again, when there is one to carry.
/// Made where the task-local's type is known (``PMKConfiguration/propagate(_:)-(TaskLocal<V?>)``
/// is inlinable), so that capturing looks up no generic type at run time.
@usableFromInline
struct PropagatedLocal: Sendable {
    let identity: ObjectIdentifier
    let capture: @Sendable (inout [any CapturedValue]) -> Void

    @usableFromInline
    init(identity: ObjectIdentifier, capture: @escaping @Sendable (inout [any CapturedValue]) -> Void) {
        self.identity = identity
        self.capture = capture
    }
}

/// A task-local's value, to bind where a handler runs.
@usableFromInline
protocol CapturedValue: Sendable {
    func bind<R>(_ body: () throws -> R) rethrows -> R
}

/// A value of `local`, bound again where a handler runs.
@usableFromInline
struct Captured<Value: Sendable>: CapturedValue {
    let local: TaskLocal<Value>
    let value: Value

    @usableFromInline
    init(local: TaskLocal<Value>, value: Value) {
        self.local = local
        self.value = value
    }

    @usableFromInline
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
    /// sees what its thread has (on a queue, `nil`). Until the first task-local is named, an
    /// operator pays one atomic load for all this; after, one attached where none holds a value
    /// allocates nothing but looks at each named task-local, and one that carries values pays an
    /// allocation for them and binds them again where it runs.
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
    @inlinable
    public func propagate<V: Sendable>(_ local: TaskLocal<V?>) {
        HandlerContext.register(
            PropagatedLocal(identity: ObjectIdentifier(local)) { values in
                if let value = local.get() { values.append(Captured(local: local, value: value)) }
            })
    }

    /// ``propagate(_:)-(TaskLocal<V?>)`` for a task-local that is not optional: its value, bound or
    /// default, is carried by every handler attached from now on, which costs each operator a
    /// capture and an allocation. Prefer an optional task-local where you can.
    @_disfavoredOverload
    @inlinable
    public func propagate<V: Sendable>(_ local: TaskLocal<V>) {
        HandlerContext.register(
            PropagatedLocal(identity: ObjectIdentifier(local)) { values in
                values.append(Captured(local: local, value: local.get()))
            })
    }
}
