import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The process-wide defaults every Pledge call starts from.
///
/// Read and write it from any thread: each property is guarded by a lock or is an atomic, and
/// reading ``Q`` takes no lock until it is first assigned. Assignment works as in PromiseKit:
///
/// ```swift
/// conf.Q = (map: myQueue, return: .main)   // both queues at once
/// conf.Q.map = .global()                   // one of them
/// conf.catchPolicy = .allErrors
/// conf.logHandler = { event in logger.warning("\(event.message)") }
/// ```
///
/// ## Default queues
/// Both ``Q`` queues default to **one private serial queue**, ``PMKConfiguration/defaultQueue``,
/// not to the main queue as in PromiseKit. A Linux server or a command-line tool never drains
/// the main queue (there is no run loop unless it calls `dispatchMain()`), so main-queue
/// handlers would silently never run there. A private serial queue runs everywhere, and because
/// `map` and `return` share it, handlers on the default queues never run concurrently with each
/// other, which keeps chains as easy to reason about as PromiseKit's main-queue chains.
/// Apps that want PromiseKit's behaviour write `conf.Q = (.main, .main)`.
///
/// A compound assignment such as `conf.Q.map = q` reads and then writes ``Q``; each step is
/// atomic, but two threads doing that at once may lose one update. Configure once at start-up.
public final class PMKConfiguration: Sendable {
    @usableFromInline
    struct State: Sendable {
        var mapQueue: DispatchQueue?
        var returnQueue: DispatchQueue?
        var catchPolicy: CatchPolicy
        var logHandler: @Sendable (LogEvent) -> Void
        var longPendingThreshold: Duration?
    }

    @usableFromInline
    let state: LockedValue<State>

    /// Whether ``Q`` was ever assigned or a scope entered (see ``withScope(queues:catchPolicy:logHandler:operation:)-(_,_,_,()->R)``).
    /// Until then, reading ``Q`` (which every operator does for its default `on:`) returns
    /// ``defaultQueue`` twice without taking the lock, so the many threads of a server that build
    /// chains with the default queues do not all take the same lock on every operator call. Set,
    /// with release ordering, before the new queues are stored; never cleared.
    @usableFromInline
    let queuesAssigned = Atomic<Bool>(false)

    /// ``defaultQueue``, kept here too, so that reading ``Q`` before any assignment is one load.
    @usableFromInline
    let defaultQueues: (map: DispatchQueue?, return: DispatchQueue?)

    /// The serial queue that both ``Q`` defaults point at.
    public static let defaultQueue: DispatchQueue = {
        let queue = DispatchQueue(label: "org.pledge.default-handlers")
        HandlerQueueTag.tag(queue)
        return queue
    }()

    /// The default ``logHandler``: prints each event's one-line ``LogEvent/message`` to standard
    /// error.
    ///
    /// Each line is written with one `write` call, text and newline together, so lines logged at
    /// the same moment from several threads do not run into each other.
    public static let defaultLogHandler: @Sendable (LogEvent) -> Void = { event in
        var stream = StandardErrorStream()
        stream.write(event.message + "\n")
    }

    init() {
        defaultQueues = (PMKConfiguration.defaultQueue, PMKConfiguration.defaultQueue)
        state = LockedValue(
            State(
                mapQueue: PMKConfiguration.defaultQueue,
                returnQueue: PMKConfiguration.defaultQueue,
                catchPolicy: .allErrorsExceptCancellation,
                logHandler: PMKConfiguration.defaultLogHandler,
                longPendingThreshold: nil))
    }

    #if DEBUG
        /// The promises still pending, for ``pendingPromises()`` and ``longPendingThreshold``;
        /// debug builds only.
        @usableFromInline
        let pending = PendingRegistry()
    #endif

    // PromiseKit's spelling, kept for source compatibility.
    // swift-format-ignore: AlwaysUseLowerCamelCase
    /// The default queues: `map` for handlers that transform (`then`, `map`, `recover`, …) and
    /// `return` for handlers that end a chain (`done`, `catch`, `finally`, `ensure`, …).
    ///
    /// `nil` means "run inline", on whichever thread resolves the promise. Both default to
    /// ``defaultQueue``. Inside a configuration scope, reading it gives the scope's queues (see
    /// ``withScope(queues:catchPolicy:logHandler:operation:)-(_,_,_,()->R)``); assigning it changes the global defaults.
    ///
    /// Reading it is lock-free until it is first assigned (see `queuesAssigned`), and inlinable,
    /// so an operator's default `on:` reads only the queue it needs.
    public var Q: (map: DispatchQueue?, return: DispatchQueue?) {
        @inlinable get {
            // A reader racing the first assignment may still see the defaults, as it may with any
            // assignment; once the assignment has returned, every reader takes the lock and sees
            // the new queues.
            if !queuesAssigned.load(ordering: .acquiring) { return defaultQueues }
            return assignedQueues()
        }
        set {
            if let queue = newValue.map { HandlerQueueTag.tag(queue) }
            if let queue = newValue.return { HandlerQueueTag.tag(queue) }
            queuesAssigned.store(true, ordering: .releasing)
            // The old queues are released after the lock, like every replaced value here.
            let old = state.withLock { state in
                let old = (state.mapQueue, state.returnQueue)
                (state.mapQueue, state.returnQueue) = (newValue.map, newValue.return)
                return old
            }
            withExtendedLifetime(old) {}
        }
    }

    /// ``Q`` once it has been assigned or a scope entered: the scope's, else read under the lock.
    @usableFromInline
    func assignedQueues() -> (map: DispatchQueue?, return: DispatchQueue?) {
        if let scope = ConfigurationScope.active { return scope.settings.queues }
        return state.withLock { ($0.mapQueue, $0.returnQueue) }
    }

    /// The policy `catch` and `recover` use when none is passed. Defaults to
    /// ``CatchPolicy/allErrorsExceptCancellation``, as in PromiseKit.
    ///
    /// Inside a configuration scope, reading it gives the scope's (see
    /// ``withScope(queues:catchPolicy:logHandler:operation:)-(_,_,_,()->R)``); assigning it changes the global default.
    public var catchPolicy: CatchPolicy {
        get { ConfigurationScope.active?.settings.catchPolicy ?? state.withLock { $0.catchPolicy } }
        set { state.withLock { $0.catchPolicy = newValue } }  // a plain enum: nothing to release
    }

    /// Receives every ``LogEvent``. It may be called on any thread, so it must be `@Sendable`.
    /// Defaults to ``defaultLogHandler``. Inside a configuration scope, reading it gives the
    /// scope's, which receives what is logged there; assigning it changes the global handler.
    public var logHandler: @Sendable (LogEvent) -> Void {
        get { ConfigurationScope.active?.settings.logHandler ?? state.withLock { $0.logHandler } }
        set {
            // The old handler is released after the lock: its captures' `deinit`s are user code
            // and may well touch `conf` again.
            let old = state.withLock { state in
                let old = state.logHandler
                state.logHandler = newValue
                return old
            }
            withExtendedLifetime(old) {}
        }
    }

    /// How long a promise or guarantee may stay pending before debug builds report it, once, as
    /// ``LogEvent/longPending(site:age:)``; `nil`, the default, reports nothing.
    ///
    /// While it is `nil` Pledge keeps no timer. Once set, promises already that old are reported
    /// at once, and one timer wakes as the next unreported promise comes due, at most once per
    /// sixteenth of the threshold (and per millisecond), so a report may come that much late;
    /// with no promise left to report, the timer sleeps until one is made. It goes when the
    /// threshold goes back to `nil` (a report already under way is still logged). A promise is
    /// reported at most once, and not once it has resolved (one resolving while the timer
    /// reports it may still be reported). The log handler is called on a global queue. A threshold of
    /// zero or less is bad input: it is logged as ``LogEvent/badInput(_:)`` and reporting stays
    /// off. Release builds record no promises, so they keep the value but never report (see
    /// ``pendingPromises()``).
    ///
    /// ```swift
    /// #if DEBUG
    /// conf.longPendingThreshold = .seconds(30)
    /// #endif
    /// ```
    public var longPendingThreshold: Duration? {
        get { state.withLock { $0.longPendingThreshold } }
        set {
            var threshold = newValue
            if let value = newValue, value <= .zero {
                log(.badInput("conf.longPendingThreshold must be positive, not \(value); reporting is off"))
                threshold = nil
            }
            state.withLock { state in
                state.longPendingThreshold = threshold
                // Under conf's lock, so that the value read back is always the one watched.
                #if DEBUG
                    pending.watch(threshold)
                #endif
            }
        }
    }

    /// Sends `event` to the current ``logHandler`` (outside the lock).
    @usableFromInline
    func log(_ event: LogEvent) {
        let handler = logHandler
        handler(event)
    }
}

/// Pledge's defaults: queues, catch policy, log handler and long-pending threshold. See ``PMKConfiguration``.
///
/// A constant reference to a thread-safe object, so `conf.Q = …` and friends are safe from any
/// thread.
public let conf = PMKConfiguration()

/// Marks queues that were ever configured in ``PMKConfiguration/Q``, so that `wait()` can tell
/// when it is about to block one of them.
enum HandlerQueueTag {
    final class Tag: Sendable {}

    static let key = DispatchSpecificKey<Tag>()

    /// How many queues have been tagged. Its lock also serialises tagging, so that two threads
    /// configuring the same new queue at once cannot both tag it (replacing, and so releasing,
    /// a tag another thread may be reading).
    static let taggedCount = LockedValue(0)

    static func tag(_ queue: DispatchQueue) {
        let tag = Tag()  // made and, if unused, released outside the lock
        taggedCount.withLock { count in
            if queue.getSpecific(key: key) == nil {
                queue.setSpecific(key: key, value: tag)
                count += 1
            }
        }
    }

    /// Whether the current code runs on one of the queues now in ``PMKConfiguration/Q``.
    static func currentIsConfiguredQueue() -> Bool {
        guard let current = DispatchQueue.getSpecific(key: key) else { return false }
        let (map, ret) = conf.Q
        return map?.getSpecific(key: key) === current || ret?.getSpecific(key: key) === current
    }
}

/// Tells whether code runs on the main thread, without Foundation.
///
/// libdispatch makes the main queue the current queue of the main thread when it starts, and
/// main-queue blocks run there too, so a specific set on the main queue is visible exactly on
/// the main thread.
enum MainThread {
    final class Tag: Sendable {}

    static let key: DispatchSpecificKey<Tag> = {
        let key = DispatchSpecificKey<Tag>()
        DispatchQueue.main.setSpecific(key: key, value: Tag())
        return key
    }()

    static var isCurrent: Bool {
        DispatchQueue.getSpecific(key: key) != nil
    }
}

/// Writes to file descriptor 2 without Foundation.
struct StandardErrorStream: TextOutputStream {
    mutating func write(_ string: String) {
        writeAll(toDescriptor: 2, Array(string.utf8)[...])
    }
}

private func writeAll(toDescriptor descriptor: Int32, _ bytes: ArraySlice<UInt8>) {
    var bytes = bytes
    while !bytes.isEmpty {
        // Safety: `write` reads at most `count` bytes from the buffer `withUnsafeBytes` lends.
        let written = unsafe bytes.withUnsafeBytes { unsafe write(descriptor, $0.baseAddress, $0.count) }
        if written <= 0 { return }
        bytes = bytes.dropFirst(written)
    }
}

#if DEBUG
    /// Debug builds only: the promises and guarantees still pending, each with where and when it
    /// was made; what ``pendingPromises()`` lists and ``PMKConfiguration/longPendingThreshold``
    /// watches.
    ///
    /// A box is added as it is made pending (see ``Box/init(value:isSealedBox:sealed:site:)``),
    /// and removed when it leaves `pending` (sealed or cancelled) or
    /// is freed unsealed. An entry is a plain value: the registry holds no box, so no box is ever
    /// freed under its lock.
    @usableFromInline
    final class PendingRegistry: Sendable {
        /// A pending box: where it was made (``Box/site``), and when.
        typealias Entry = (site: SourceSite?, born: ContinuousClock.Instant)

        struct State {
            /// The pending boxes not reported as pending too long.
            var entries: [ObjectIdentifier: Entry] = [:]
            /// The pending boxes reported already: the timer looks only at `entries`.
            var reported: [ObjectIdentifier: Entry] = [:]
            /// The long-pending threshold, and its timer while there is one.
            var threshold: Duration? = nil
            var timer: TimerSource? = nil
            /// Whether the timer is set to fire; when not, the next box added sets it.
            var timerSet = false
        }

        let state = Lock(State())

        /// What happened to a box the registry is told of.
        @usableFromInline
        enum Change {
            /// It is being made pending (from its `init`, before anyone can seal it), at `site`.
            case made(SourceSite?)
            /// It has left `pending`, or is being freed.
            case ended
        }

        /// Lists `box`, or drops it, as `change` says.
        @usableFromInline
        func record(_ box: AnyBox, _ change: Change) {
            let id = ObjectIdentifier(box)
            let born = ContinuousClock.now
            state.withLock { state in
                switch change {
                case .made(let site):
                    state.entries[id] = (site, born)
                    if !state.timerSet, let threshold = state.threshold { state.setTimer(after: threshold) }
                case .ended:
                    if state.entries.removeValue(forKey: id) == nil { state.reported.removeValue(forKey: id) }
                }
            }
        }
    }
#endif
