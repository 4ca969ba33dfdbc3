/// The command line of `pledge-bench`, parsed. See ``Options/help`` (also in main.swift).
struct Options {
    /// Only benchmarks whose id, family or workload names contain this, ignoring case.
    var filter: String?
    /// Samples per workload; `nil` picks the mode's default.
    var repetitions: Int?
    /// Small sizes and few repetitions: the CI smoke run.
    var quick = false
    /// Where to write machine-readable results.
    var jsonPath: String?
    /// A saved `--json` run to compare with.
    var comparePath: String?
    /// The largest acceptable growth of a workload's ratio to its baseline, for `--compare`.
    var threshold = Options.defaultThreshold
    /// `--probe NAME N`: run one workload silently, for valgrind.
    var probe: (name: String, count: Int)?
    /// `--help`.
    var help = false

    static let defaultRepetitions = 10
    static let quickRepetitions = 3

    /// Why 1.25 on the ratio to the baseline, not on the median itself: on a shared 2-core
    /// machine the absolute medians of two runs differ by 2x and more (other processes, CPU
    /// frequency, another host), but the baseline is sampled interleaved with its workload and
    /// suffers the same conditions, so the ratio of the two moves far less. 25% stays above the
    /// run-to-run drift of that ratio on a busy machine and still catches what matters, such as
    /// an extra allocation per operation.
    static let defaultThreshold = 1.25

    /// The number of samples to take per workload.
    var effectiveRepetitions: Int {
        repetitions ?? (quick ? Options.quickRepetitions : Options.defaultRepetitions)
    }

    /// The names `--probe` accepts.
    static let probes = [
        "map", "w1", "w2", "w3", "w4", "then", "cancel", "path", "timeout", "timeout-for", "w2-context", "w2-named",
        "await",
    ]

    /// Parses the arguments after the executable's name.
    static func parse(_ arguments: [String]) throws(UsageError) -> Options {
        var options = Options()
        var remaining = arguments[...]

        func value(for option: String) throws(UsageError) -> String {
            guard let value = remaining.popFirst() else { throw UsageError("\(option) needs a value") }
            return value
        }

        while let argument = remaining.popFirst() {
            switch argument {
            case "--help", "-h":
                options.help = true
            case "--quick":
                options.quick = true
            case "--filter":
                options.filter = try value(for: argument)
            case "--repetitions":
                let text = try value(for: argument)
                guard let count = Int(text), count > 0 else {
                    throw UsageError("--repetitions needs a positive whole number, not '\(text)'")
                }
                options.repetitions = count
            case "--json":
                options.jsonPath = try value(for: argument)
            case "--compare":
                options.comparePath = try value(for: argument)
            case "--threshold":
                let text = try value(for: argument)
                guard let threshold = Double(text), threshold >= 1 else {
                    throw UsageError("--threshold needs a number of at least 1, not '\(text)'")
                }
                options.threshold = threshold
            case "--probe":
                let name = try value(for: argument)
                let text = try value(for: argument)
                guard probes.contains(name) else {
                    throw UsageError("unknown probe '\(name)'; expected one of \(probes.joined(separator: ", "))")
                }
                guard let count = Int(text), count >= 0 else {
                    throw UsageError("--probe \(name) needs a count, not '\(text)'")
                }
                options.probe = (name, count)
            default:
                throw UsageError("unknown option '\(argument)'")
            }
        }
        return options
    }

    static let usage =
        "usage: pledge-bench [--quick] [--repetitions N] [--filter TEXT] [--json FILE] "
        + "[--compare FILE [--threshold R]] [--probe map|w1|w2|w3|w4|then|cancel|path N] [--help]"

    static let help = """
        pledge-bench: Pledge's benchmarks. Build and run in release mode:
            swift run -c release pledge-bench [options]

        Every workload runs next to a baseline (the least the same job can cost without
        promises) measured in the same run: the two are sampled alternately, so both see the
        same machine conditions. A timed sample lasts at least 50 ms (10 ms with --quick), and
        a baseline sample about as long as its workload's, by averaging consecutive runs, so
        that time slicing on a busy machine hits both alike. Some workloads also show the
        async/await way for context. The table gives the median, min and max of the samples
        and, on the baseline and reference rows, "Pledge/this": Pledge's median divided by
        that row's (above 1: Pledge is slower or bigger).

        Options:
          --filter TEXT      only benchmarks whose id (W1..W9, G1..G4), family (chain, queue,
                             main-actor, fan-in, contention, memory, cancel, google) or workload
                             names contain TEXT, ignoring case
          --repetitions N    samples per workload, after one warm-up sample
                             (default \(defaultRepetitions); \(quickRepetitions) with --quick)
          --quick            CI smoke run: small sizes, \(quickRepetitions) repetitions, a few seconds in all
          --json FILE        write the results as JSON: per workload its name, unit, median,
                             min, max and samples, its baseline (name, median, ..., ratio) and
                             references; plus date, hostname, Swift version, build configuration
          --compare FILE     compare with a run saved by --json: prints each workload's median
                             against the saved one, and exits with status 1 when a workload
                             regressed, that is, when its ratio to its same-run baseline grew by
                             more than the threshold over the saved ratio
          --threshold R      the threshold for --compare (default \(defaultThreshold), i.e. +25%). The
                             ratio to the baseline is judged, not the median: on a shared machine
                             medians of two runs differ by 2x and more, while a baseline sampled
                             alongside its workload suffers the same slowdowns, so the ratio moves
                             far less; 25% is above its run-to-run drift and below the cost of,
                             say, one extra allocation per operation
          --probe NAME N     run one workload N times with no output, for counting allocations
                             and instructions under valgrind (.ci/check-*): map = N map(on: nil) steps on
                             a resolved promise; w1, w2 = N iterations of W1 or W2; w3 = a chain
                             of N map(on: serial queue) steps; w4 = W4's shape over N promises, on
                             one thread; then = N iterations of a then following a pending
                             promise (pending, then, done, two fulfils); path = N iterations of
                             map { }.done { } on a pending promise with the default queues,
                             fulfilled by the attaching thread (.ci/check-path counts the
                             functions it runs in a debug build)
          --help             this text

        Exit status: 0 on success; 1 when a check failed (a handler did not run exactly once, a
        wrong result) or --compare found a regression; 2 on a usage error.

        Workloads:
          W1  resolved chain: Promise.value, 10 x map(on: nil), done(on: nil); ns per map step
          W2  pending(), map(on: nil), done(on: nil), then fulfil; ns per iteration
          W3  a 10,000-step chain of map(on: q) on one serial queue; ns per step
          W4  when(fulfilled:) over 10,000 pending promises fulfilled from another thread;
              ns per element
          W5  two threads: one fulfils promise i while the other attaches done(on: nil) to it,
              over 1,000,000 promises (100,000 with --quick); ns per promise; checks that every
              handler ran exactly once
          W6  heap bytes per pending promise with one done(on: nil) handler, over 1,000,000
              promises (W6p: with one pipe(to:) handler instead)
          W8  W3's chain through a custom Dispatcher wrapping the serial queue, beside W3's
              chain on the queue directly; ns per step
          G1-G3  google/promises' shape: a resolved promise into 1, 2, 3 chained blocks on a
              serial queue, the caller waiting on a semaphore; ns per round trip
          G4  google/promises' shape: resolve 10,000 pending promises whose handlers run on a
              concurrent queue; ms per run
        With --quick every size shrinks (to a tenth, or to 2,000 for W3, W4, W8 and G4).
        """
}

/// A command line that cannot be run.
struct UsageError: Error {
    let message: String

    init(_ message: String) {
        self.message = message
    }
}
