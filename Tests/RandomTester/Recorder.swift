import Foundation
import Pledge

/// What the round's closures and threads report as they run: the facts the model reads besides
/// the promises' states. Shared by every thread of a round.
final class Recorder: @unchecked Sendable {
    /// One call of a closure the program gave Pledge.
    struct Run: Sendable {
        /// What it was given: the input's outcome (`tap`, `recover`, `catch` get a failure).
        let argument: Outcome?
        /// Whether it ran on the executor it was given (see ``Executors/isOn(_:)``).
        let onItsExecutor: Bool
        /// The node ``AttachingNode`` named where it ran: an operator's or retry's closure must
        /// see its own node, bound where it was attached, wherever it runs.
        let context: NodeID?
    }

    /// What became of one action.
    struct Played: Sendable {
        let thread: Int
        let index: Int
        let action: Action
        /// Why it did nothing, if it did nothing (its target was dropped or not made yet).
        let skipped: String?
    }

    // Safety: `runs`, `played` and `isClosed` are only read or written while `lock` is held.
    private var runs: [NodeID: [Run]] = [:]
    private var played: [Played] = []
    private var isClosed = false
    private let lock = NSLock()
    /// Signalled at every run, so that a waiting round looks again.
    private let news = DispatchSemaphore(value: 0)

    /// Records a call of `node`'s closure, unless the round is over (see ``close()``).
    func ran(_ node: NodeID, argument: Outcome? = nil, on executor: Executor = .inline) {
        let run = Run(argument: argument, onItsExecutor: Executors.isOn(executor), context: AttachingNode.id)
        lock.withLock {
            guard !isClosed else { return }
            runs[node, default: []].append(run)
        }
        news.signal()
    }

    func record(_ entry: Played) {
        lock.withLock { played.append(entry) }
    }

    /// Ends the round's recording: a closure that runs later is not recorded. Work of a node the
    /// round dropped may go on after the round is judged (a backoff timer, a dispatched block:
    /// the model cannot see it, so it does not wait for it), and its closures may call ``ran(_:argument:on:)``
    /// from any thread at any time; after this, they change nothing.
    func close() {
        lock.withLock { isClosed = true }
    }

    // The copies share no storage with `runs` and `played`. Sharing would be safe (a copy-on-write
    // buffer is mutated in place only once the copy has let go of it), but the count that tells
    // lives in the Swift runtime, which ThreadSanitizer does not see: a closure recording in place
    // on another thread after a copy was read and released is reported as a race with that read.
    var allRuns: [NodeID: [Run]] { lock.withLock { runs.mapValues { $0.map { $0 } } } }
    var allPlayed: [Played] { lock.withLock { played.map { $0 } } }

    /// Waits up to `milliseconds` for a closure to run.
    func waitForNews(milliseconds: Int) {
        _ = news.wait(timeout: .now() + .milliseconds(milliseconds))
    }
}

/// The node the interpreter is making, bound as a task-local around the call that attaches its
/// closure (an operator, a `retry`) and named with `conf.propagate`, so that every closure
/// should see its own node however late, and on whichever thread or executor, it runs.
enum AttachingNode {
    @TaskLocal static var id: NodeID?

    /// Names the task-local for Pledge; once per process.
    static let named: Void = conf.propagate(AttachingNode.$id)
}
