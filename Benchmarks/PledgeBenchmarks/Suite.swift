#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// The list of benchmarks and the driver that runs them: parse the options, run the selected
// benchmarks in order, print the table, write and compare JSON.

enum PledgeBench {
    /// Every benchmark, in the order they run, tagged with its family for `--filter`.
    static func suite(_ scale: Scale) -> [Benchmark] {
        let families = [
            ("chain", ChainWorkloads.benchmarks(scale)),
            ("queue", QueueWorkloads.benchmarks(scale)),
            ("main-actor", MainActorWorkloads.benchmarks(scale)),
            ("fan-in", FanInWorkloads.benchmarks(scale)),
            ("contention", ContentionWorkloads.benchmarks(scale)),
            ("memory", MemoryWorkloads.benchmarks(scale)),
            ("cancel", CancelWorkloads.benchmarks(scale)),
            ("google", GooglePromisesWorkloads.benchmarks(scale)),
        ]
        return families.flatMap { family, benchmarks in
            benchmarks.map { benchmark in
                var tagged = benchmark
                tagged.family = family
                return tagged
            }
        }
    }

    /// This program's name, as runs saved by `--json` record it.
    static let name = "pledge-bench"

    /// Runs the command line `arguments` (without the executable's name) over the benchmarks that
    /// `suite` lists; returns the exit status. `program` and `suite` are this file's, except in
    /// the SwiftNIO comparison (`Benchmarks/NIOComparison`), which compiles these sources too.
    /// `--compare` accepts only runs saved by the same `program`: another program's ratios are
    /// to other baselines.
    static func main(
        _ arguments: [String], program: String = PledgeBench.name,
        suite: (Scale) -> [Benchmark] = PledgeBench.suite
    ) -> Int32 {
        let options: Options
        do throws(UsageError) {
            options = try Options.parse(arguments)
        } catch {
            Console.error("\(program): \(error.message)")
            Console.error(Options.usage)
            return 2
        }
        if options.help {
            Console.out(Options.help)
            return 0
        }
        if let probe = options.probe {
            runProbe(probe.name, probe.count)
            return 0
        }
        return runSuite(options, program: program, suite: suite)
    }

    /// `--probe`: one workload, `count` times, no output.
    static func runProbe(_ name: String, _ count: Int) {
        switch name {
        case "map": mapSteps(count)
        case "w1": resolvedChainIterations(count)
        case "w2": pendingThenResolveIterations(count)
        case "w3": queueHopSteps(count)
        case "w4": fanInElements(count)
        case "then": thenFollowIterations(count)
        case "cancel": cancelChainIterations(count)
        case "path": defaultQueuePathIterations(count)
        case "timeout": timeoutIterations(count, duration: false)
        case "timeout-for": timeoutIterations(count, duration: true)
        case "w2-context": pendingThenResolveInContextIterations(count)
        case "w2-named": pendingThenResolveNamedIterations(count)
        case "await": awaitPendingIterations(count)
        default: preconditionFailure("Options.parse accepts only known probes")
        }
    }

    static func runSuite(_ options: Options, program: String, suite: (Scale) -> [Benchmark]) -> Int32 {
        // Read the saved run first, so that a bad path fails before a long run, not after.
        var saved: RunRecord?
        if let path = options.comparePath {
            guard access(path, R_OK) == 0 else {
                Console.error("\(program): cannot read \(path): \(String(cString: strerror(errno)))")
                return 2
            }
            do {
                saved = try RunRecord.read(from: path)
            } catch {
                Console.error("\(program): \(path) is not a run saved by --json: \(error)")
                return 2
            }
            if let saved, saved.info.programOrDefault != program {
                Console.error(
                    "\(program): \(path) was saved by \(saved.info.programOrDefault), whose ratios are to other "
                        + "baselines; compare with a run saved by \(program)")
                return 2
            }
        }
        let scale: Scale = options.quick ? .quick : .full
        var benchmarks = suite(scale)
        if let filter = options.filter {
            benchmarks = benchmarks.filter { $0.matches(filter) }
            guard !benchmarks.isEmpty else {
                Console.error("\(program): no benchmark matches '\(filter)'")
                return 2
            }
        }

        let info = RunInfo.current(options, program: program)
        let debugWarning = [
            "==================================================================",
            "= WARNING: pledge-bench was built in DEBUG mode; numbers are     =",
            "= meaningless. Run: swift run -c release pledge-bench            =",
            "==================================================================",
        ]
        if isDebugBuild() { debugWarning.forEach(Console.out) }
        Console.out(info.summary)
        Console.out("")
        let table = Table(benchmarks)
        Console.out(table.header())

        let start = now()
        var results: [BenchmarkResult] = []
        for benchmark in benchmarks {
            let result = run(benchmark, repetitions: options.effectiveRepetitions, minimumSample: scale.minimumSample)
            results.append(result)
            table.rows(result).forEach(Console.out)
        }
        Console.out("")
        Console.out(Table.legend)
        Console.out("Wall time: \(Format.fixed(Double(now() - start) / 1e9, decimals: 1)) s")
        if isDebugBuild() { debugWarning.forEach(Console.out) }

        let record = RunRecord(info: info, results: results)
        if let path = options.jsonPath {
            do {
                try record.write(to: path)
                Console.out("Results written to \(path)")
            } catch {
                Console.error("\(program): cannot write results: \(error)")
                return 2
            }
        }
        var regressed = false
        if let saved, let path = options.comparePath {
            regressed = Compare.report(record, against: saved, from: path, threshold: options.threshold)
        }
        if Failures.shared.any {
            Console.error("\(program): FAILED: at least one check failed (see above)")
        }
        return Failures.shared.any || regressed ? 1 : 0
    }
}
