import Dispatch

/// A promise or guarantee that has not resolved yet, as ``pendingPromises()`` lists it.
public struct PendingPromise: Sendable, Hashable, CustomStringConvertible {
    /// Where it was made, or where the first promise of its chain was (see ``CreationSite``);
    /// `nil` for the promises Pledge and `PledgeFoundation` make for themselves.
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
/// that never answers. Ask from a debugger, a signal handler of your own, or a debug endpoint,
/// and look at the oldest sites:
///
/// ```swift
/// for promise in pendingPromises().prefix(10) {
///     print(promise)   // pending for 31.2 seconds, made at App/Sync.swift:42
/// }
/// ```
///
/// Every link of a chain is a promise: a chain of five operators waiting on one request lists
/// six entries, all with the site of the request's promise. Callable from any thread; it takes
/// one lock for as long as copying the list takes. See also
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
            lock.lock()
            let all = Array(entries.values)
            lock.unlock()
            // Read after the lock, so that no entry is younger than `now`.
            let now = ContinuousClock.now
            return all.sorted { $0.born < $1.born }.map {
                PendingPromise(site: CreationSite(recorded: $0.site), age: $0.born.duration(to: now))
            }
        }

        /// Reports the boxes pending for `threshold` or longer from now on, or stops (`nil`):
        /// the timer that does it exists only while there is a threshold.
        func watch(_ threshold: Duration?) {
            var started: DispatchSourceTimer? = nil
            if let threshold {
                let timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
                timer.setEventHandler { [self] in
                    for event in reportDue(at: .now) { conf.log(event) }
                }
                timer.schedule(deadline: .now() + TimerSpan(threshold).interval)
                timer.activate()
                started = timer
            }
            lock.lock()
            self.threshold = threshold
            let old = timer
            timer = started
            lock.unlock()
            old?.cancel()
        }

        /// Marks the boxes pending for the threshold or longer at `now` as reported, and sets the
        /// timer for the next one due (a threshold from now when none is).
        ///
        /// - Returns: their ``LogEvent/longPending(site:age:)`` events, oldest first, for the
        ///   caller to log after the lock; none when reporting is off.
        func reportDue(at now: ContinuousClock.Instant) -> [LogEvent] {
            var due: [Entry] = []
            lock.lock()
            guard let threshold, let timer else {
                lock.unlock()
                return []
            }
            var next = threshold
            for index in entries.indices where !entries.values[index].reported {
                let age = entries.values[index].born.duration(to: now)
                if age >= threshold {
                    entries.values[index].reported = true
                    due.append(entries.values[index])
                } else {
                    next = min(next, threshold - age)
                }
            }
            timer.schedule(deadline: .now() + TimerSpan(next).interval)
            lock.unlock()
            return due.sorted { $0.born < $1.born }.map {
                .longPending(site: CreationSite(recorded: $0.site), age: $0.born.duration(to: now))
            }
        }

        /// Whether the long-pending timer exists (for tests: none while reporting is off).
        var hasTimer: Bool {
            lock.lock()
            defer { lock.unlock() }
            return timer != nil
        }
    }
#endif
