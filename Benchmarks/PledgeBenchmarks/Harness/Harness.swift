import Dispatch

// The measuring core: what a workload is, how a benchmark pairs it with a baseline, and the
// loop that samples both, interleaved, so that they see the same machine conditions.

// MARK: - Sinks and clocks

/// Keeps a value alive in the optimiser's eyes, so the work that produced it is not removed.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

/// Nanoseconds from a monotonic clock: never jumps with wall-clock changes.
@inline(__always)
func now() -> UInt64 {
    DispatchTime.now().uptimeNanoseconds
}

/// Runs `body` once and returns the elapsed nanoseconds divided by `operations`.
@inline(__always)
func nanoseconds(per operations: Int, _ body: () -> Void) -> Double {
    let start = now()
    body()
    let elapsed = now() - start
    return Double(elapsed) / Double(operations)
}

/// Whether assertions are compiled in, that is, whether this is a debug build.
func isDebugBuild() -> Bool {
    var debug = false
    assert(
        {
            debug = true
            return true
        }())
    return debug
}

// MARK: - Workloads and benchmarks

/// How big each workload is: `.full` for real numbers, `.quick` for the CI smoke run.
enum Scale: Sendable {
    case full
    case quick

    /// `full` or `quick`, whichever this scale is.
    func pick(full: Int, quick: Int) -> Int {
        self == .full ? full : quick
    }

    /// The shortest a timed sample should last, in nanoseconds (see ``run(_:repetitions:minimumSample:)``).
    var minimumSample: UInt64 {
        self == .full ? 50_000_000 : 10_000_000
    }
}

/// Takes one sample of a workload: runs it once and returns the measured value in the
/// workload's unit (nanoseconds per operation, milliseconds per run, bytes per promise, …).
///
/// Set-up and tear-down that should not be measured happen inside the sampler, outside the
/// timed region.
enum Sampler {
    /// Runs on the main thread.
    case sync(() -> Double)
    /// Runs in a detached task on the global concurrent executor; the main thread waits.
    case async(@Sendable () async -> Double)

    func callAsFunction() -> Double {
        switch self {
        case .sync(let body): return body()
        case .async(let body): return runBlocking(body)
        }
    }
}

/// One measured thing: a name for the table, the unit of its samples, and how to take one.
struct Workload {
    let name: String
    let unit: String
    let sample: Sampler
}

/// A Pledge workload, the baseline it is judged against, and optional references (the
/// async/await way of doing the same) shown for context.
///
/// All of them are sampled in the same run, interleaved. `--compare` judges only the ratio of
/// `subject` to `baseline`.
struct Benchmark {
    /// A short, stable key (`W1`, `G2`, …): `--compare` matches saved results by it.
    let id: String
    let subject: Workload
    let baseline: Workload
    var references: [Workload] = []
    /// The workload family (`chain`, `queue`, `fan-in`, `contention`, `memory`, `google`).
    var family = ""
    /// Whether to take one unrecorded sample of every workload first.
    var warmUp = true
    /// At most this many samples, whatever `--repetitions` says (for slow, steady workloads).
    var maxRepetitions: Int? = nil

    var workloads: [Workload] { [subject, baseline] + references }

    /// Whether `text` occurs, ignoring case, in the id, the family or any of the workload names.
    func matches(_ text: String) -> Bool {
        let needle = text.lowercased()
        return ([id, family] + workloads.map(\.name)).contains { $0.lowercased().contains(needle) }
    }
}

// MARK: - Results

/// The samples of one workload and their summary.
struct Series {
    let name: String
    let unit: String
    let samples: [Double]

    var median: Double {
        let sorted = samples.sorted()
        guard !sorted.isEmpty else { return 0 }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
    var min: Double { samples.min() ?? 0 }
    var max: Double { samples.max() ?? 0 }
}

/// What running one benchmark produced.
struct BenchmarkResult {
    let id: String
    let subject: Series
    let baseline: Series
    let references: [Series]

    /// The subject's median over `other`'s: above 1, Pledge is slower (or bigger).
    func ratio(to other: Series) -> Double {
        other.median > 0 ? subject.median / other.median : 0
    }
}

/// Samples every workload of `benchmark` `repetitions` times, after one warm-up sample each.
///
/// Repetitions interleave the workloads (baseline, subject, references, then the reverse order
/// on the next repetition), so slow phases of a shared machine hit all of them alike and none
/// always runs right after the same neighbour.
///
/// Interleaving is not enough when samples are short or unequal. On a busy machine a 30 ms
/// sample is cut by the scheduler's time slices while a 0.3 ms one slips between them, so their
/// ratio measures the load; and a few-millisecond sample of threads waking each other up is
/// mostly luck. So, going by the warm-up, a sample averages as many consecutive runs as it takes
/// to last at least `minimumSample` nanoseconds (the subject) and about as long as a subject
/// sample (the others): every sample is long enough to average out wake-ups and equally exposed
/// to time slicing.
func run(_ benchmark: Benchmark, repetitions: Int, minimumSample: UInt64) -> BenchmarkResult {
    let workloads = [benchmark.baseline, benchmark.subject] + benchmark.references
    var batches = Array(repeating: 1, count: workloads.count)
    if benchmark.warmUp {
        var durations: [UInt64] = []
        for workload in workloads {
            let start = now()
            blackHole(workload.sample())
            durations.append(Swift.max(now() - start, 1))
        }
        let subjectBatch = batch(toLast: minimumSample, runsOf: durations[1])
        let target = durations[1] * UInt64(subjectBatch)
        batches = durations.map { batch(toLast: target, runsOf: $0) }
    }
    let count = Swift.min(repetitions, benchmark.maxRepetitions ?? repetitions)
    var samples = Array(repeating: [Double](), count: workloads.count)
    for repetition in 0..<count {
        let order = repetition.isMultiple(of: 2) ? Array(workloads.indices) : workloads.indices.reversed()
        for index in order {
            var total = 0.0
            for _ in 0..<batches[index] {
                total += workloads[index].sample()
            }
            samples[index].append(total / Double(batches[index]))
        }
    }
    let series = zip(workloads, samples).map { Series(name: $0.name, unit: $0.unit, samples: $1) }
    return BenchmarkResult(
        id: benchmark.id, subject: series[1], baseline: series[0], references: Array(series.dropFirst(2)))
}

/// How many runs of `duration` nanoseconds it takes to last `target`: at least 1, at most 1,000.
private func batch(toLast target: UInt64, runsOf duration: UInt64) -> Int {
    Int(Swift.min(1_000, Swift.max(1, (target + duration / 2) / duration)))
}
