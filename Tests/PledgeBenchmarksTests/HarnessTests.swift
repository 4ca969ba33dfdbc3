import Foundation
import Testing

@testable import PledgeBenchmarks

/// The measuring loop and the driver: the order samples are taken in, what a warm-up does, the
/// summary of a series, and `PledgeBench.main` running the suite it is given. Every workload
/// here is synthetic and returns a fixed value, so nothing depends on timing.
struct HarnessTests {
    init() {
        Console.mute()  // keep the tables these tests print out of the test log
    }

    /// The names of the workloads in the order their samples were taken.
    final class SampleLog {
        var names: [String] = []
    }

    static func workload(_ name: String, _ value: Double, log: SampleLog? = nil) -> Workload {
        Workload(
            name: name, unit: "ns",
            sample: .sync {
                log?.names.append(name)
                return value
            })
    }

    @Test func repetitionsAlternateTheOrderOfTheWorkloads() {
        let log = SampleLog()
        let benchmark = Benchmark(
            id: "T1", subject: Self.workload("subject", 10, log: log),
            baseline: Self.workload("baseline", 5, log: log),
            references: [Self.workload("reference", 20, log: log)], warmUp: false)

        let result = run(benchmark, repetitions: 3, minimumSample: 0)

        #expect(
            log.names == [
                "baseline", "subject", "reference",
                "reference", "subject", "baseline",
                "baseline", "subject", "reference",
            ])
        #expect(result.id == "T1")
        #expect(result.subject.samples == [10, 10, 10])
        #expect(result.baseline.samples == [5, 5, 5])
        #expect(result.references.map(\.samples) == [[20, 20, 20]])
        #expect(result.ratio(to: result.baseline) == 2)
        #expect(result.ratio(to: result.references[0]) == 0.5)
    }

    @Test func theWarmUpSampleOfEveryWorkloadIsTakenFirstAndNotRecorded() {
        // Each workload returns 1,000 on its first call and its real value after that.
        final class FirstCall {
            var seen: Set<String> = []
        }
        let first = FirstCall()
        func workload(_ name: String, _ value: Double) -> Workload {
            Workload(
                name: name, unit: "ns",
                sample: .sync {
                    first.seen.insert(name).inserted ? 1_000 : value
                })
        }
        let benchmark = Benchmark(id: "T2", subject: workload("subject", 3), baseline: workload("baseline", 1))

        let result = run(benchmark, repetitions: 4, minimumSample: 0)

        #expect(result.subject.samples == [3, 3, 3, 3])
        #expect(result.baseline.samples == [1, 1, 1, 1])
    }

    @Test func maxRepetitionsCapsTheSampleCount() {
        var benchmark = Benchmark(
            id: "T3", subject: Self.workload("subject", 2), baseline: Self.workload("baseline", 1), warmUp: false)
        benchmark.maxRepetitions = 2

        #expect(run(benchmark, repetitions: 10, minimumSample: 0).subject.samples.count == 2)
    }

    @Test func seriesSummariseTheirSamples() {
        #expect(Series(name: "odd", unit: "ns", samples: [3, 1, 2]).median == 2)
        #expect(Series(name: "even", unit: "ns", samples: [4, 1, 3, 2]).median == 2.5)
        #expect(Series(name: "empty", unit: "ns", samples: []).median == 0)
        let series = Series(name: "range", unit: "ns", samples: [5, 9, 1])
        #expect(series.min == 1 && series.max == 9)
    }

    @Test func aBenchmarkMatchesItsIdFamilyAndWorkloadNamesIgnoringCase() {
        var benchmark = Benchmark(
            id: "W9", subject: Self.workload("pending then fulfil", 1), baseline: Self.workload("callback slot", 1))
        benchmark.family = "chain"

        #expect(benchmark.matches("w9"))
        #expect(benchmark.matches("CHAIN"))
        #expect(benchmark.matches("Slot"))
        #expect(!benchmark.matches("queue"))
    }

    // MARK: - PledgeBench.main

    /// A one-benchmark suite whose subject takes `subject` and whose baseline takes 5.
    static func suite(subject: Double) -> (Scale) -> [Benchmark] {
        { _ in
            [
                Benchmark(
                    id: "T4", subject: workload("subject", subject), baseline: workload("baseline", 5),
                    warmUp: false)
            ]
        }
    }

    static func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("pledge-bench-\(UUID().uuidString).json").path
    }

    @Test func mainRunsTheSuiteItIsGiven() {
        #expect(PledgeBench.main(["--repetitions", "1"], suite: Self.suite(subject: 10)) == 0)
    }

    @Test func mainAnswersBadUsageWithStatusTwo() {
        #expect(PledgeBench.main(["--bogus"], suite: Self.suite(subject: 10)) == 2)
        #expect(PledgeBench.main(["--filter", "nothing-matches-this"], suite: Self.suite(subject: 10)) == 2)
        #expect(PledgeBench.main(["--compare", "/nonexistent/saved.json"], suite: Self.suite(subject: 10)) == 2)
    }

    @Test func compareFailsOnlyWhenTheRatioToTheBaselineGrewPastTheThreshold() throws {
        let saved = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: saved) }
        // Saved: ratio 10 / 5 = 2.
        #expect(PledgeBench.main(["--repetitions", "1", "--json", saved], suite: Self.suite(subject: 10)) == 0)

        // Ratio 2.4: 1.2x the saved one, within the default 1.25x.
        #expect(PledgeBench.main(["--repetitions", "1", "--compare", saved], suite: Self.suite(subject: 12)) == 0)
        // Ratio 2.6: 1.3x the saved one, a regression.
        #expect(PledgeBench.main(["--repetitions", "1", "--compare", saved], suite: Self.suite(subject: 13)) == 1)
        // The same, with a looser threshold.
        #expect(
            PledgeBench.main(
                ["--repetitions", "1", "--compare", saved, "--threshold", "1.5"], suite: Self.suite(subject: 13)) == 0)
        // Faster is never a regression.
        #expect(PledgeBench.main(["--repetitions", "1", "--compare", saved], suite: Self.suite(subject: 1)) == 0)
    }

    @Test func compareRefusesARunSavedByAnotherProgram() {
        let saved = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: saved) }
        let suite = Self.suite(subject: 10)
        #expect(PledgeBench.main(["--repetitions", "1", "--json", saved], program: "pledge-vs-nio", suite: suite) == 0)

        // Its ratios are to NIO, not to pledge-bench's baselines: a usage error, not a verdict.
        #expect(PledgeBench.main(["--repetitions", "1", "--compare", saved], suite: suite) == 2)
        #expect(
            PledgeBench.main(["--repetitions", "1", "--compare", saved], program: "pledge-vs-nio", suite: suite) == 0)
    }
}
