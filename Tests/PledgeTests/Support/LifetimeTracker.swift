import Synchronization

/// Counts how many ``LifetimeTracker``s made with it have been deinitialised.
final class LifetimeCounter: Sendable {
    private let deinits = Atomic<Int>(0)
    private let inits = Atomic<Int>(0)

    init() {}

    /// How many trackers are still alive.
    var alive: Int {
        inits.load(ordering: .sequentiallyConsistent) - deinits.load(ordering: .sequentiallyConsistent)
    }

    /// How many trackers have been deinitialised.
    var released: Int {
        deinits.load(ordering: .sequentiallyConsistent)
    }

    fileprivate func trackerInitialised() {
        inits.add(1, ordering: .sequentiallyConsistent)
    }

    fileprivate func trackerDeinitialised() {
        deinits.add(1, ordering: .sequentiallyConsistent)
    }
}

/// An object whose only job is to be captured by a closure and report when it is released, so
/// that a test can tell whether Pledge still holds that closure.
final class LifetimeTracker: Sendable {
    let counter: LifetimeCounter

    init(_ counter: LifetimeCounter) {
        self.counter = counter
        counter.trackerInitialised()
    }

    deinit {
        counter.trackerDeinitialised()
    }

    /// Something to call from a closure so that it captures the tracker.
    func touch() {}
}
