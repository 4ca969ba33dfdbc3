import Dispatch
import Synchronization

/// Counts the work Pledge has dispatched and not yet finished: the blocks of operators' closures
/// on queues, dispatchers and actors, the cleanup run on a cancellation, and
/// `DispatchQueue.async(.promise)` bodies; what `waitUntilIdle` waits for.
///
/// One count for the process (``inProcess``), and one per configuration scope for the work
/// dispatched by handlers attached in it. A count only grows by a dispatch made while the work
/// it belongs to is counted, or by new code, so once it is zero it stays zero until then.
@usableFromInline
final class PledgeActivity: Sendable {
    /// The blocks dispatched in the process and not yet finished. A static atomic: counting is an
    /// add, with no reference to retain.
    @usableFromInline
    static let inProcess = Atomic<Int>(0)

    /// The blocks dispatched in one scope and not yet finished.
    let count = Atomic<Int>(0)

    /// Where work dispatched now counts besides the process: the current scope's count, if any.
    static var here: Counts { Counts(scope: ConfigurationScope.active?.activity) }

    /// The counts one dispatched block is in: the process's and, in a scope, the scope's.
    struct Counts: Sendable {
        let scope: PledgeActivity?

        func dispatched() {
            PledgeActivity.inProcess.add(1, ordering: .relaxed)
            scope?.dispatched()
        }

        func finished() {
            scope?.finished()
            PledgeActivity.inProcess.subtract(1, ordering: .releasing)
        }
    }

    /// One block dispatched in the scope; balanced by exactly one ``finished()``.
    func dispatched() { count.add(1, ordering: .relaxed) }

    /// One block of the scope run, or dropped.
    func finished() { count.subtract(1, ordering: .releasing) }

    /// Blocks the calling thread until `count` reads zero, or `timeout` has passed; whether it
    /// read zero. Polls, from 20 µs apart to 2 ms apart: waiting is for tests, and the hot path
    /// stays one atomic add.
    static func wait(timeout: Duration, until count: () -> Int) -> Bool {
        var poll = Polling(timeout: timeout)
        while count() != 0 {
            guard let pause = poll.next() else { return false }
            _ = DispatchSemaphore(value: 0).wait(timeout: .now() + TimerSpan(pause).interval)
        }
        return true
    }

    /// ``wait(timeout:until:)`` without blocking a thread.
    static func wait(timeout: Duration, until count: () -> Int) async -> Bool {
        var poll = Polling(timeout: timeout)
        while count() != 0 {
            guard let pause = poll.next() else { return false }
            try? await Task.sleep(for: pause)
        }
        return true
    }

    /// The pauses between two looks at a count, until a deadline.
    struct Polling {
        let clock = ContinuousClock()
        let deadline: ContinuousClock.Instant
        var pause = Duration.microseconds(20)

        init(timeout: Duration) {
            // Capped at a century, so that `.seconds(.max)` cannot overflow the instant.
            deadline = clock.now.advanced(by: min(max(timeout, .zero), .seconds(3_155_760_000)))
        }

        /// The next pause, or `nil` once the deadline has passed.
        mutating func next() -> Duration? {
            guard clock.now < deadline else { return nil }
            defer { pause = min(pause * 2, .milliseconds(2)) }
            return pause
        }
    }
}

extension Executor {
    /// The executor `self` is in the configuration scope of the code running now: its dispatches
    /// count in that scope too (see ``PledgeActivity``). Inline work is not dispatched.
    @usableFromInline
    func scoped() -> Executor {
        guard let activity = ConfigurationScope.active?.activity else { return self }
        switch self {
        case .inline:
            return self
        case .queue(let queue):
            return .custom(
                CustomExecutor { body, _ in
                    activity.dispatched()
                    queue.async {
                        body()
                        activity.finished()
                    }
                })
        case .custom(let custom):
            return .custom(
                CustomExecutor(lane: custom.lane) { body, dropped in
                    activity.dispatched()
                    custom.dispatch(
                        {
                            body()
                            activity.finished()
                        },
                        {
                            dropped()
                            activity.finished()
                        })
                })
        }
    }
}

/// Waits until no work Pledge has dispatched is queued or running: in the current configuration
/// scope when called inside one, else in the whole process. For tests; PledgeTesting's
/// `waitUntilIdle` is the public form.
package func pledgeWaitUntilIdle(timeout: Duration) -> Bool {
    if let scope = ConfigurationScope.active?.activity {
        return PledgeActivity.wait(timeout: timeout) { scope.count.load(ordering: .acquiring) }
    }
    return PledgeActivity.wait(timeout: timeout) { PledgeActivity.inProcess.load(ordering: .acquiring) }
}

/// ``pledgeWaitUntilIdle(timeout:)`` without blocking a thread.
package func pledgeWaitUntilIdle(timeout: Duration) async -> Bool {
    if let scope = ConfigurationScope.active?.activity {
        return await PledgeActivity.wait(timeout: timeout) { scope.count.load(ordering: .acquiring) }
    }
    return await PledgeActivity.wait(timeout: timeout) { PledgeActivity.inProcess.load(ordering: .acquiring) }
}

extension AnyBox {
    /// Counts a block dispatched for this box in the process (and, in debug builds, in the box's
    /// ``LiveObjectLedger``); ``finished()`` ends it.
    @inlinable
    final func dispatched() {
        PledgeActivity.inProcess.add(1, ordering: .relaxed)
        #if DEBUG
            ledger?.work(1)
        #endif
    }

    /// The block ``dispatched()`` counted has run, or was dropped.
    @inlinable
    final func finished() {
        PledgeActivity.inProcess.subtract(1, ordering: .releasing)
        #if DEBUG
            ledger?.work(-1)
        #endif
    }
}
