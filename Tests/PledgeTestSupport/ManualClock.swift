import Foundation

// The test targets' shared support: not part of any product.

/// A clock that moves only when a test advances it: a sleep ends when ``advance(by:)`` takes the
/// clock to its deadline, and a cancelled sleep throws `CancellationError` at once. Tests wait
/// for sleepers with ``waitForSleepers(_:)``, which blocks no thread: the sleeps are tasks, and
/// need the cooperative pool's threads free.
public final class ManualClock: Clock, @unchecked Sendable {
    // Safety: `time`, `sleepers`, `watchers` and `nextID` are only touched while `condition` is locked.

    public struct Instant: InstantProtocol {
        public let offset: Duration

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (left: Instant, right: Instant) -> Bool { left.offset < right.offset }
    }

    private struct Sleeper {
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private let condition = NSCondition()
    private var time = Instant(offset: .zero)
    private var sleepers: [Int: Sleeper] = [:]
    private var nextID = 0
    private var watchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    public init() {}

    public var now: Instant {
        condition.lock()
        defer { condition.unlock() }
        return time
    }

    public var minimumResolution: Duration { .zero }

    /// How many sleeps are under way.
    public var sleeping: Int {
        condition.lock()
        defer { condition.unlock() }
        return sleepers.count
    }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = takeID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                condition.lock()
                defer { condition.unlock() }
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                } else if deadline <= time {
                    continuation.resume()
                } else {
                    sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    for watcher in dueWatchers() { watcher.resume() }
                }
            }
        } onCancel: {
            condition.lock()
            let sleeper = sleepers.removeValue(forKey: id)
            let watchers = dueWatchers()
            condition.unlock()
            sleeper?.continuation.resume(throwing: CancellationError())
            for watcher in watchers { watcher.resume() }
        }
    }

    private func takeID() -> Int {
        condition.lock()
        defer { condition.unlock() }
        nextID += 1
        return nextID
    }

    /// Moves the clock `duration` ahead and wakes every sleep whose deadline it reached, earliest
    /// first.
    public func advance(by duration: Duration) {
        condition.lock()
        time = time.advanced(by: duration)
        let due = sleepers.filter { $0.value.deadline <= time }.sorted { $0.value.deadline < $1.value.deadline }
        for (id, _) in due { sleepers[id] = nil }
        let watchers = dueWatchers()
        condition.unlock()
        for (_, sleeper) in due { sleeper.continuation.resume() }
        for watcher in watchers { watcher.resume() }
    }

    /// Returns once exactly `count` sleeps are under way, without blocking a thread.
    public func waitForSleepers(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            condition.lock()
            if sleepers.count == count {
                condition.unlock()
                continuation.resume()
                return
            }
            watchers.append((count, continuation))
            condition.unlock()
        }
    }

    /// Resumes the watchers whose count the sleeps now number; called with the lock held, and
    /// returns them, to resume after the lock.
    private func dueWatchers() -> [CheckedContinuation<Void, Never>] {
        let due = watchers.filter { $0.count == sleepers.count }.map(\.continuation)
        watchers.removeAll { $0.count == sleepers.count }
        return due
    }
}
