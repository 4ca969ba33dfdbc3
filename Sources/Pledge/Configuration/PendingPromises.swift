import Dispatch

/// A promise or guarantee that has not resolved yet, as ``pendingPromises()`` lists it.
public struct PendingPromise: Sendable, Hashable, CustomStringConvertible {
    /// Where it was made, or where the first promise of its chain was (see ``CreationSite``,
    /// which also says which promises have none).
    public let site: CreationSite?

    /// How long it has been pending, on `ContinuousClock`.
    public let age: Duration

    /// Makes an entry; Pledge makes them for ``pendingPromises()``.
    public init(site: CreationSite?, age: Duration) {
        self.site = site
        self.age = age
    }

    /// `pending for 2.5 seconds, made at App/Sync.swift:42`.
    public var description: String {
        "pending for \(age)" + (site.map { ", made at \($0)" } ?? "")
    }
}

/// Every promise and guarantee still pending, oldest first, in debug builds; an empty array in
/// release builds, which record nothing.
///
/// "My chain never finishes" usually means a promise somebody still holds waits for a producer
/// that never answers. Ask from a debugger, a debug endpoint or a `DispatchSource` signal
/// handler (not a POSIX signal handler: this takes a lock and allocates), and look at the oldest
/// sites:
///
/// ```swift
/// for promise in pendingPromises().prefix(10) {
///     print(promise)   // pending for 31.2 seconds, made at App/Sync.swift:42
/// }
/// ```
///
/// Every link of a chain is a promise: a chain waiting on one request lists the request's
/// promise and at least one more per operator after it (`timeout` and `delay` add two), all
/// with the request's site. Callable from any thread; it takes one lock for as long as copying
/// the list takes. See also
/// ``PMKConfiguration/longPendingThreshold``, which reports them as they get old.
public func pendingPromises() -> [PendingPromise] {
    #if DEBUG
        conf.pending.list()
    #else
        []
    #endif
}

#if DEBUG
    extension PendingRegistry {
        /// The pending boxes, oldest first.
        func list() -> [PendingPromise] {
            let all = state.withLock { Array($0.entries.values) + Array($0.reported.values) }
            // Read after the lock, so that no entry is younger than `now`.
            let now = ContinuousClock.now
            return all.sorted { $0.born < $1.born }.map {
                PendingPromise(site: CreationSite(recorded: $0.site), age: $0.born.duration(to: now))
            }
        }

        /// Reports the boxes pending for `threshold` or longer from now on, those already that
        /// old at once; or stops (`nil`), dropping the timer. Called under conf's lock, so that
        /// the threshold conf holds is always the one watched.
        func watch(_ threshold: Duration?) {
            let timer = threshold.map { _ in TimerSource(DispatchSource.makeTimerSource(queue: .global(qos: .utility)))
            }
            timer?.source.setEventHandler { [self] in
                for event in reportDue(at: .now) { conf.log(event) }
            }
            let old = state.withLock { state in
                let old = state.timer
                state.threshold = threshold
                state.timer = timer
                state.timerSet = false
                if let timer {
                    // The first scan at once, for the boxes already that old. Activated here: an
                    // inactive source may not be released.
                    timer.source.schedule(deadline: .now())
                    timer.source.activate()
                    state.timerSet = true
                }
                return old
            }
            old?.source.cancel()
        }

        /// Moves the boxes pending for the threshold or longer at `now` to `reported`, and sets
        /// the timer for the next one due, if any is left.
        ///
        /// - Returns: their ``LogEvent/longPending(site:age:)`` events, oldest first, for the
        ///   caller to log after the lock; none when reporting is off.
        func reportDue(at now: ContinuousClock.Instant) -> [LogEvent] {
            let due: [Entry] = state.withLock { state in
                guard let threshold = state.threshold else { return [] }
                var due: [(id: ObjectIdentifier, entry: Entry)] = []
                var next: Duration? = nil
                for (id, entry) in state.entries {
                    let age = entry.born.duration(to: now)
                    if age >= threshold {
                        due.append((id, entry))
                    } else {
                        next = min(next ?? threshold, threshold - age)
                    }
                }
                for (id, entry) in due {
                    state.entries[id] = nil
                    state.reported[id] = entry
                }
                state.timerSet = false
                if let next { state.setTimer(after: next) }
                return due.map(\.entry)
            }
            return due.sorted { $0.born < $1.born }.map {
                .longPending(site: CreationSite(recorded: $0.site), age: $0.born.duration(to: now))
            }
        }

        /// Whether the long-pending timer exists (none while reporting is off), and whether it is
        /// set to fire (not while nothing is left to report); for tests.
        var timerState: (exists: Bool, isSet: Bool) {
            state.withLock { ($0.timer != nil, $0.timerSet) }
        }
    }

    extension PendingRegistry.State {
        /// Sets the timer to fire `delay` from now, or later: the timer wakes at most every
        /// sixteenth of the threshold and every millisecond, however many boxes come due.
        mutating func setTimer(after delay: Duration) {
            guard let threshold, let timer else { return }
            let gap = max(threshold / 16, .milliseconds(1))
            timer.source.schedule(deadline: .now() + TimerSpan(max(delay, gap)).interval)
            timerSet = true
        }
    }
#endif
