import Dispatch
import Synchronization

extension PMKConfiguration {
    /// Runs `operation` with defaults of its own: code in it, its child tasks, and the handlers of
    /// every chain it builds (wherever they run) read the scope's queues, catch policy and log
    /// handler; everything else keeps the global ones.
    ///
    /// Each argument left out is the default in force here: the global one, or an enclosing
    /// scope's. Inside the scope, reading ``Q``, ``catchPolicy`` or ``logHandler`` reads the
    /// scope's; assigning them still changes the global defaults, which the scope, fixed as it
    /// was entered, does not see. ``longPendingThreshold`` is process-wide.
    ///
    /// Parallel tests that each scope a configuration do not see each other's:
    ///
    /// ```swift
    /// @Test func mapsOnTheTestsQueue() async throws {
    ///     let queue = DispatchQueue(label: "test")
    ///     try await conf.withScope(queues: (queue, queue)) {
    ///         let value = try await fetch().map { $0 + 1 }.async()   // `map` runs on `queue`
    ///         #expect(value == 2)
    ///     }
    /// }
    /// ```
    ///
    /// An event is logged in a scope when the code that logs it runs there: a handler of a chain
    /// built in the scope, or the scope's own code. One logged where nothing of the scope runs,
    /// such as an unhandled rejection noticed when the last reference to a promise goes on
    /// another thread, goes to the global ``logHandler``.
    ///
    /// - Parameters:
    ///   - queues: The default queues of the scope's operators (``Q``); `nil` to keep the ones in
    ///     force.
    ///   - catchPolicy: The policy of the scope's `catch` and `recover` when none is passed.
    ///   - logHandler: What receives the events logged in the scope. It may be called on any
    ///     thread.
    ///   - operation: The code that runs with them.
    /// - Returns: What `operation` returns.
    /// - Throws: What `operation` throws.
    public func withScope<R>(
        queues: (map: DispatchQueue?, return: DispatchQueue?)? = nil, catchPolicy: CatchPolicy? = nil,
        logHandler: (@Sendable (LogEvent) -> Void)? = nil, operation: () throws -> R
    ) rethrows -> R {
        let scope = enterScope(queues: queues, catchPolicy: catchPolicy, logHandler: logHandler)
        return try ConfigurationScope.$current.withValue(scope, operation: operation)
    }

    /// ``withScope(queues:catchPolicy:logHandler:operation:)-(_,_,_,()->R)`` for async code.
    public func withScope<R>(
        queues: (map: DispatchQueue?, return: DispatchQueue?)? = nil, catchPolicy: CatchPolicy? = nil,
        logHandler: (@Sendable (LogEvent) -> Void)? = nil, isolation: isolated (any Actor)? = #isolation,
        operation: () async throws -> R
    ) async rethrows -> R {
        let scope = enterScope(queues: queues, catchPolicy: catchPolicy, logHandler: logHandler)
        return try await ConfigurationScope.$current.withValue(scope, operation: operation)
    }

    /// The scope these arguments make from the defaults in force here.
    private func enterScope(
        queues: (map: DispatchQueue?, return: DispatchQueue?)?, catchPolicy: CatchPolicy?,
        logHandler: (@Sendable (LogEvent) -> Void)?
    ) -> ConfigurationScope {
        if let queue = queues?.map { HandlerQueueTag.tag(queue) }
        if let queue = queues?.return { HandlerQueueTag.tag(queue) }
        let settings = ConfigurationScope.Settings(
            queues: queues ?? Q, catchPolicy: catchPolicy ?? self.catchPolicy, logHandler: logHandler ?? self.logHandler
        )
        HandlerContext.register(
            PropagatedLocal(identity: ObjectIdentifier(ConfigurationScope.$current)) { values in
                if let scope = ConfigurationScope.current {
                    values.append(Captured(local: ConfigurationScope.$current, value: scope))
                }
            })
        // Reading `Q` looks for a scope from now on.
        ConfigurationScope.everEntered.store(true, ordering: .releasing)
        queuesAssigned.store(true, ordering: .releasing)
        return ConfigurationScope(settings)
    }
}

/// A configuration scope once entered: its settings, and the work dispatched in it.
@usableFromInline
final class ConfigurationScope: Sendable {
    /// The scope the running code is in; its handlers carry it (see ``HandlerContext``).
    @TaskLocal static var current: ConfigurationScope?

    /// The defaults of the scope, fixed as it is entered.
    struct Settings: Sendable {
        var queues: (map: DispatchQueue?, return: DispatchQueue?)
        var catchPolicy: CatchPolicy
        var logHandler: @Sendable (LogEvent) -> Void
    }

    let settings: Settings

    /// The handlers dispatched in the scope and not yet finished (see ``PledgeActivity``).
    let activity = PledgeActivity()

    init(_ settings: Settings) { self.settings = settings }

    /// Whether a scope was ever entered: until then no code looks for one. Never cleared.
    static let everEntered = Atomic<Bool>(false)

    /// The scope the running code is in, looked for only once a scope was ever entered.
    @usableFromInline
    static var active: ConfigurationScope? {
        guard everEntered.load(ordering: .acquiring) else { return nil }
        return current
    }
}
