import Foundation

/// What the round's closures and threads report as they run: the facts the model reads besides
/// the promises' states. Shared by every thread of a round.
final class Recorder: @unchecked Sendable {
    /// One call of a closure the program gave Pledge.
    struct Run: Sendable {
        /// What it was given: the input's outcome (`tap`, `recover`, `catch` get a failure).
        let argument: Outcome?
        /// Whether it ran on the executor it was given (see ``Executors/isOn(_:)``).
        let onItsExecutor: Bool
    }

    /// What became of one action.
    struct Played: Sendable {
        let thread: Int
        let index: Int
        let action: Action
        /// Why it did nothing, if it did nothing (its target was dropped or not made yet).
        let skipped: String?
    }

    // Safety: `runs` and `played` are only read or written while `lock` is held.
    private var runs: [NodeID: [Run]] = [:]
    private var played: [Played] = []
    private let lock = NSLock()
    /// Signalled at every run, so that a waiting round looks again.
    private let news = DispatchSemaphore(value: 0)

    func ran(_ node: NodeID, argument: Outcome? = nil, on executor: Executor = .inline) {
        let run = Run(argument: argument, onItsExecutor: Executors.isOn(executor))
        lock.withLock { runs[node, default: []].append(run) }
        news.signal()
    }

    func record(_ entry: Played) {
        lock.withLock { played.append(entry) }
    }

    var allRuns: [NodeID: [Run]] { lock.withLock { runs } }
    var allPlayed: [Played] { lock.withLock { played } }

    /// Waits up to `milliseconds` for a closure to run.
    func waitForNews(milliseconds: Int) {
        _ = news.wait(timeout: .now() + .milliseconds(milliseconds))
    }
}
