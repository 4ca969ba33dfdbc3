import Foundation

/// Ends the process when a round runs for twice its deadline, saying which round it was.
///
/// A round's deadline bounds the parts that wait (playing and settling), which report a hang
/// themselves; a round stuck anywhere else (making the program or the graph, checking, releasing
/// the graph) would otherwise hang the whole run without a word: the seeded tests' child process,
/// or the fuzzer. The watchdog writes the round's origin and, once there is one, its program to
/// standard error, then aborts, which libFuzzer reports as a crash and saves the input of.
final class Watchdog: @unchecked Sendable {
    static let shared = Watchdog()

    /// The round being watched: where it came from, when it overruns, and what to print then.
    private struct Round {
        let number: Int
        let origin: String
        let limit: ContinuousClock.Instant
        var describe: (@Sendable () -> String)?
    }

    // Safety: `round` and `rounds` are only read or written while `lock` is held.
    private var round: Round?
    private var rounds = 0
    private let lock = NSLock()
    /// Signalled when a round starts, so that the watching thread looks at its limit.
    private let started = DispatchSemaphore(value: 0)

    private init() {
        Thread.detachNewThread { [self] in watch() }
    }

    /// Runs `body`, one round from `origin` whose deadline is `deadline`, under watch.
    func watch<Result>(_ origin: String, deadline: Duration, _ body: () -> Result) -> Result {
        lock.withLock {
            rounds += 1
            round = Round(number: rounds, origin: origin, limit: .now + deadline * 2)
        }
        started.signal()
        defer { lock.withLock { round = nil } }
        return body()
    }

    /// What the report of the round being watched shows, once it has a program.
    func describe(_ text: @escaping @Sendable () -> String) {
        lock.withLock { round?.describe = text }
    }

    private func watch() {
        while true {
            guard let round = lock.withLock({ round }) else {
                started.wait()
                continue
            }
            guard ContinuousClock.now >= round.limit else {
                _ = started.wait(timeout: .now() + .nanoseconds(nanoseconds(until: round.limit)))
                continue
            }
            // Read again: the round may have ended while this thread slept.
            guard let overrun = lock.withLock({ self.round }), overrun.number == round.number else { continue }
            let report = [
                "\(overrun.origin): the round is still running at twice its deadline (a hang the round cannot report)",
                overrun.describe?() ?? "// (no program yet: stuck making it)",
            ]
            FileHandle.standardError.write(Data((report.joined(separator: "\n") + "\n").utf8))
            abort()
        }
    }
}
