// pledge-bench: Pledge's benchmarks, a dependency-free executable. Build and run in release mode:
//
//     swift run -c release pledge-bench [options]
//
// Every Pledge workload runs next to a baseline (the least the same job costs without promises)
// measured in the same run, sampled alternately so that both see the same machine conditions; a
// timed sample lasts at least 50 ms (10 ms with --quick) and a baseline sample about as long as
// its workload's (see `run(_:repetitions:minimumSample:)`). W2, W3 and W4 also show the
// async/await equivalent for reference. The table shows the median, min and max of the samples,
// and each baseline's or reference's "Pledge/this" ratio.
//
// Options (also in `--help`):
//   --filter TEXT      only benchmarks whose id (W1..W9, G1..G4), family (chain, queue, main-actor,
//                      fan-in, contention, memory, cancel, google) or workload names contain TEXT,
//                      ignoring case
//   --repetitions N    samples per workload after one warm-up sample (default 10; 3 with --quick)
//   --quick            CI smoke run: small sizes, 3 repetitions, a few seconds in all
//   --json FILE        write machine-readable results: per workload its id, name, unit, median,
//                      min, max and samples, its baseline (name, unit, median, min, max, samples,
//                      ratio) and references; plus date, hostname, Swift version, build
//                      configuration, CPU count, load average and where heap sizes come from
//   --compare FILE     compare with a run saved by --json; exits with status 1 when a workload's
//                      ratio to its same-run baseline grew by more than the threshold
//   --threshold R      that threshold (default 1.25). Judged on the ratio to the baseline, not on
//                      the median: medians of two runs on a shared machine differ by 2x and
//                      more, but a baseline sampled alongside its workload suffers the same
//                      slowdowns, so the ratio moves far less (see `Options.defaultThreshold`)
//   --probe NAME N     run one workload N times with no output, for .ci/check-allocations under
//                      valgrind: map = N map(on: nil) steps on a resolved promise; w1, w2 = N
//                      iterations of W1 or W2; w3 = a chain of N map(on: serial queue) steps;
//                      w4 = W4's shape over N promises, on one thread; then = N iterations
//                      of a then following a pending promise
//   --help             the option list and the workloads
//
// Exit status: 0 on success; 1 when a check failed or --compare found a regression; 2 on a usage
// error.
//
// Layout: Harness/ holds the measuring loop (Harness.swift), options, threads, heap gauge, the
// table and JSON (Report.swift) and --compare; each workload family has its own file; Suite.swift
// lists them and drives a run.

import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("--probe") {
    // Probes run on the main thread: valgrind, which measures them, fails on a main thread in
    // `dispatchMain()`.
    exit(PledgeBench.main(arguments))
}
// The suite runs on a thread of its own while the main thread drains the main queue, where the
// handlers of W9's main-actor chain run.
DispatchQueue(label: "pledge-bench.suite", qos: .userInitiated).async {
    exit(PledgeBench.main(arguments))
}
dispatchMain()
