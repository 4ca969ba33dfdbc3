import Dispatch
import Pledge

/// Serial queues that know when code runs on them.
///
/// Every queue made here carries a tag under one `DispatchSpecificKey`; ``isOn(_:)`` compares the
/// tag of the current queue with the tag of the queue asked about. Unlike `dispatchPrecondition`,
/// a wrong queue is a recorded value to assert on, not a crash.
enum TestQueues {
    final class Tag: Sendable {}

    static let key = DispatchSpecificKey<Tag>()

    /// Makes a serial queue tagged for ``isOn(_:)``.
    static func serial(_ name: String) -> DispatchQueue {
        let queue = DispatchQueue(label: "org.pledge.tests.\(name)")
        queue.setSpecific(key: key, value: Tag())
        return queue
    }

    /// Makes a concurrent queue tagged for ``isOn(_:)``.
    static func concurrent(_ name: String) -> DispatchQueue {
        let queue = DispatchQueue(label: "org.pledge.tests.\(name)", attributes: .concurrent)
        queue.setSpecific(key: key, value: Tag())
        return queue
    }

    /// Pledge's default handler queue and the main queue, tagged once (lazily, thread-safely).
    private static let sharedQueuesTagged: Bool = {
        PMKConfiguration.defaultQueue.setSpecific(key: key, value: Tag())
        DispatchQueue.main.setSpecific(key: key, value: Tag())
        return true
    }()

    /// Whether the calling code runs on `queue`. Works for queues made by ``serial(_:)`` and
    /// ``concurrent(_:)``, for ``PMKConfiguration/defaultQueue`` and for the main queue.
    static func isOn(_ queue: DispatchQueue) -> Bool {
        _ = sharedQueuesTagged
        guard let current = DispatchQueue.getSpecific(key: key), let tag = queue.getSpecific(key: key) else {
            return false
        }
        return current === tag
    }
}

extension DispatchQueue {
    /// Returns once every block submitted to this serial queue so far has run (and been released).
    func drain() {
        sync {}
    }
}

extension DispatchTime {
    /// How long a test waits for something that should happen at once: generous, so that a slow
    /// or oversubscribed machine does not make tests flaky, and finite, so that a bug fails the
    /// test instead of hanging the run.
    static var testTimeout: DispatchTime { .now() + 10 }
}
