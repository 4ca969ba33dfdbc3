import Dispatch
import Foundation
import Pledge

/// The outcome of one round: what went wrong, and the trace that reproduces it.
public struct RoundReport: Sendable {
    public let origin: String
    public let findings: [String]
    public let trace: String

    public var passed: Bool { findings.isEmpty }

    /// The findings, then the program that reproduces them.
    public var description: String {
        (["\(origin): \(findings.count) finding(s)"] + findings.map { "  - " + $0 } + [trace]).joined(separator: "\n")
    }
}

/// Runs rounds: generates a program, plays it, waits until it is quiet, checks it.
public enum RandomTester {
    /// Takes over the process's `conf.logHandler` and tags the queues; call once, before the
    /// first round, in a process that runs nothing else that reads the log.
    public static func prepareProcess() {
        LogRecorder.shared.install()
        Executors.prepare()
    }

    /// One round of the program `seed` makes.
    public static func run(
        seed: UInt64, options: ModelOptions = .today, deadline: Duration = .seconds(20)
    ) -> RoundReport {
        var generator = Generator(SeededEntropy(seed: seed), options: options)
        return watched(generator.program(origin: "seed \(seed)"), options: options, deadline: deadline)
    }

    /// One round of the program a fuzzer's `bytes` make.
    public static func run(
        bytes: [UInt8], options: ModelOptions = .today, deadline: Duration = .seconds(20)
    ) -> RoundReport {
        var generator = Generator(ByteEntropy(bytes), options: options)
        return watched(
            generator.program(origin: "fuzz input of \(bytes.count) bytes"), options: options, deadline: deadline)
    }

    /// One round of `program` under the watchdog. The deep lazy chain's round does the work of
    /// a hundred others (a sanitizer makes it take seconds): its deadline is three times as long.
    private static func watched(_ program: Program, options: ModelOptions, deadline: Duration) -> RoundReport {
        let deadline = program.nodes.count > 1_000 ? deadline * 3 : deadline
        return Watchdog.shared.watch(program.origin, deadline: deadline) {
            run(program, options: options, deadline: deadline)
        }
    }

    static func run(_ program: Program, options: ModelOptions, deadline: Duration) -> RoundReport {
        let end = ContinuousClock.now + deadline
        let interpreter = Interpreter(program)
        Watchdog.shared.describe { Trace.render(program, played: interpreter.recorder.allPlayed) }
        _ = LogRecorder.shared.take()
        interpreter.build()
        var findings: [String] = []
        if !play(interpreter, until: end) {
            findings.append("a thread did not finish its actions by the deadline (a hang)")
        }
        let (observed, hang) = settle(interpreter, options, until: end)
        if let hang { findings.append(hang) }
        findings += Checker(observed, options).findings()
        let mismatches = interpreter.made.mismatches
        if !mismatches.isEmpty { findings.append("tester bug: could not make \(mismatches.map { "n\($0)" })") }
        // A failing round looks once more a second later, to tell a late node from a stuck one.
        let later = findings.isEmpty ? nil : lookAgain(interpreter, after: observed)
        interpreter.recorder.close()
        interpreter.releaseAll()
        for event in LogRecorder.shared.take() {
            if case .unhandledRejection(let error, _) = event, error.isCancelled {
                findings.append("logged unhandledRejection for a cancellation (API.md: never for cancellations)")
            }
        }
        var trace = Trace.render(program, played: interpreter.recorder.allPlayed)
        trace +=
            "\n// ended: "
            + observed.outcomes.sorted { $0.key < $1.key }.map { "n\($0.key) \($0.value)" }
            .joined(separator: ", ")
        trace +=
            "\n// closures ran: "
            + observed.runs.sorted { $0.key < $1.key }.map { "n\($0.key) ×\($0.value.count)" }
            .joined(separator: ", ")
        if let later { trace += "\n// a second later: " + later }
        return RoundReport(origin: program.origin, findings: findings, trace: trace)
    }

    /// What changed a second (and a drain of every executor) after `observed`.
    private static func lookAgain(_ interpreter: Interpreter, after observed: Observation) -> String {
        Thread.sleep(forTimeInterval: 1)
        _ = Executors.drain(until: .now + .seconds(5))
        let later = observe(interpreter)
        var changes: [String] = []
        for node in later.made.union(observed.made).sorted() {
            let (before, after) = (observed.outcome(node), later.outcome(node))
            if before != after {
                let was = before.map(\.description) ?? "not seen"
                changes.append("n\(node) \(after.map(\.description) ?? "released") (was \(was))")
            }
            if observed.runCount(node) != later.runCount(node) {
                changes.append("n\(node) ×\(later.runCount(node)) (was ×\(observed.runCount(node)))")
            }
        }
        return changes.isEmpty ? "nothing changed" : changes.joined(separator: ", ")
    }

    /// Waits until the round is quiet: nothing the model says is due is missing, and draining
    /// every executor changes nothing (a closure that has run but whose promise is not sealed
    /// yet, or work handed from one queue to another, shows as a change). Returns the
    /// observation to judge, and the hang, if the deadline comes first.
    ///
    /// The observation judged is the last one compared, not a new one: reading the states one
    /// by one is not atomic, and work the model does not wait for (that of a node the round
    /// dropped, woken by a timer, say) may go on meanwhile. States and call counts only move
    /// forward, so two equal observations around a drain show the round as it was at one
    /// instant between them: a closure seen to run is seen with its promise as it left it.
    private static func settle(
        _ interpreter: Interpreter, _ options: ModelOptions, until end: ContinuousClock.Instant
    ) -> (Observation, hang: String?) {
        while true {
            var checker = Checker(observe(interpreter), options)
            while !checker.obligations().isEmpty, ContinuousClock.now < end {
                interpreter.recorder.waitForNews(milliseconds: 1)
                checker = Checker(observe(interpreter), options)
            }
            let due = checker.obligations()
            if !due.isEmpty {
                return (checker.model.observed, "not settled by the deadline (a hang): " + due.joined(separator: "; "))
            }
            let drained = "an executor did not drain by the deadline (a hang)"
            guard Executors.drain(until: end) else { return (checker.model.observed, drained) }
            let before = observe(interpreter)
            guard Executors.drain(until: end) else { return (before, drained) }
            let after = observe(interpreter)
            if before.isSame(as: after), Checker(after, options).obligations().isEmpty { return (after, nil) }
            if ContinuousClock.now >= end { return (after, "still changing at the deadline (a hang)") }
        }
    }

    /// Plays every thread's actions, each thread on its own `Thread` once there are several,
    /// started together; `false` if one has not finished by `end`.
    private static func play(_ interpreter: Interpreter, until end: ContinuousClock.Instant) -> Bool {
        let count = interpreter.program.threads.count
        if count == 1 {
            interpreter.play(thread: 0)
            return true
        }
        let start = DispatchSemaphore(value: 0)
        let finished = DispatchGroup()
        for thread in 0..<count {
            finished.enter()
            Thread.detachNewThread {
                start.wait()
                interpreter.play(thread: thread)
                finished.leave()
            }
        }
        for _ in 0..<count { start.signal() }
        return finished.wait(timeout: .now() + .nanoseconds(nanoseconds(until: end))) == .success
    }

    private static func observe(_ interpreter: Interpreter) -> Observation {
        let played = interpreter.recorder.allPlayed
        return Observation(
            program: interpreter.program,
            outcomes: interpreter.observe(),
            made: interpreter.made.nodes,
            runs: interpreter.recorder.allRuns,
            performed: played.filter { $0.skipped == nil }.map(\.action)
        )
    }
}

func nanoseconds(until end: ContinuousClock.Instant) -> Int {
    let left = ContinuousClock.now.duration(to: end)
    return max(0, Int(left.components.seconds) * 1_000_000_000 + Int(left.components.attoseconds / 1_000_000_000))
}

extension RandomTester {
    /// The program `seed` makes, as its trace prints it (without running it).
    public static func programText(seed: UInt64, options: ModelOptions = .today) -> String {
        var generator = Generator(SeededEntropy(seed: seed), options: options)
        return Trace.render(generator.program(origin: "seed \(seed)"))
    }
}

extension RandomTester {
    /// Plays every seed of `settings` in this process, which it takes over (see
    /// ``prepareProcess()``), writing to `path` each seed before it plays it, each failing
    /// round's report and a closing count. Standard error goes to `path` too, so that a
    /// sanitizer's report lands beside the seed that caused it.
    ///
    /// - Returns: Whether every round passed.
    public static func runSeeds(_ settings: Settings, reportingTo path: String) -> Bool {
        let file = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        if file >= 0, file != STDERR_FILENO {
            dup2(file, STDERR_FILENO)
            close(file)
        }
        func write(_ text: String) { FileHandle.standardError.write(Data((text + "\n").utf8)) }
        prepareProcess()
        var failures = 0
        let clock = ContinuousClock()
        let started = clock.now
        // The slowest rounds, slowest first: what to look at when a run takes too long.
        var slowest: [(seed: UInt64, time: Duration)] = []
        for seed in settings.seeds {
            write("playing seed \(seed)")
            // A round that crashes the process leaves no report: verbose runs print the program first.
            if settings.verbose { write(programText(seed: seed, options: settings.options)) }
            let roundStarted = clock.now
            let report = run(seed: seed, options: settings.options, deadline: settings.deadline)
            slowest.append((seed, clock.now - roundStarted))
            slowest.sort { $0.time > $1.time }
            if slowest.count > 3 { slowest.removeLast() }
            if !report.passed { failures += 1 }
            if !report.passed || settings.verbose { write(report.description) }
        }
        let times = slowest.map { "seed \($0.seed) \(seconds($0.time))" }.joined(separator: ", ")
        write("random tester: \(settings.seeds.count) rounds in \(seconds(clock.now - started)) (slowest: \(times))")
        write("random tester: \(settings.seeds.count - failures) rounds passed, \(failures) failed")
        return failures == 0
    }

    private static func seconds(_ duration: Duration) -> String {
        let (whole, fraction) = duration.components
        return String(format: "%.1f s", Double(whole) + Double(fraction) / 1e18)
    }
}
