import Foundation
import Testing

@testable import PledgeBenchmarks

/// What a run prints and saves: number formatting, the JSON record read back as written, and
/// `--compare`'s verdict on two records.
struct ReportTests {
    init() {
        Console.mute()  // keep the tables these tests print out of the test log
    }

    @Test func numbersKeepAboutThreeSignificantDigits() {
        #expect(Format.number(1.834) == "1.83")
        #expect(Format.number(25.34) == "25.3")
        #expect(Format.number(534.4) == "534")
        #expect(Format.number(12_345.6) == "12346")
        #expect(Format.number(0) == "0.00")
        #expect(Format.number(.nan) == "-")
        #expect(Format.number(.infinity) == "-")
        #expect(Format.ratio(14.06) == "14.1x")
        #expect(Format.fixed(-0.001, decimals: 2) == "0.00")
        #expect(Format.fixed(-2.5, decimals: 1) == "-2.5")
        #expect(Format.fixed(3.04, decimals: 2) == "3.04")
    }

    static let info = RunInfo(
        program: "pledge-bench", date: "2026-11-21T00:00:00Z", hostname: "test", swift: "6.3", configuration: "debug",
        quick: true,
        repetitions: 2, cpus: 2, loadAverage: 0.5, heapSource: nil)

    /// A record of one workload `id` whose median is `subject` against a baseline of 10.
    static func record(_ id: String, subject: Double) -> RunRecord {
        RunRecord(
            info: info,
            results: [
                BenchmarkResult(
                    id: id, subject: Series(name: "subject", unit: "ns", samples: [subject]),
                    baseline: Series(name: "baseline", unit: "ns", samples: [10]),
                    references: [Series(name: "reference", unit: "ns", samples: [40])])
            ])
    }

    @Test func aRecordReadsBackAsItWasWritten() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pledge-\(UUID().uuidString).json")
            .path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Self.record("W1", subject: 20).write(to: path)

        let read = try RunRecord.read(from: path)

        #expect(read.info.program == "pledge-bench")
        #expect(read.info.hostname == "test" && read.info.quick && read.info.loadAverage == 0.5)
        #expect(read.workloads.count == 1)
        let workload = try #require(read.workloads.first)
        #expect(workload.id == "W1" && workload.median == 20 && workload.samples == [20])
        #expect(workload.baseline.median == 10 && workload.ratioToBaseline == 2)
        #expect(workload.references.map(\.ratio) == [0.5])
    }

    @Test func aRunSavedBeforeTheProgramWasRecordedCountsAsPledgeBenchs() throws {
        var record = Self.record("W1", subject: 20)
        record.info.program = nil

        #expect(record.info.programOrDefault == PledgeBench.name)
    }

    @Test func writingToAnUnwritablePathThrows() {
        #expect(throws: FileError.self) {
            try Self.record("W1", subject: 20).write(to: "/nonexistent-directory/run.json")
        }
    }

    @Test func compareJudgesTheGrowthOfTheRatioAgainstTheThreshold() {
        let saved = Self.record("W1", subject: 20)  // ratio 2

        #expect(!Compare.report(Self.record("W1", subject: 24), against: saved, from: "saved", threshold: 1.25))
        #expect(Compare.report(Self.record("W1", subject: 26), against: saved, from: "saved", threshold: 1.25))
        #expect(!Compare.report(Self.record("W1", subject: 26), against: saved, from: "saved", threshold: 1.5))
    }

    @Test func workloadsInOnlyOneOfTheRunsAreNeverARegression() {
        let saved = Self.record("W1", subject: 20)

        #expect(!Compare.report(Self.record("W7", subject: 1_000), against: saved, from: "saved", threshold: 1.25))
    }
}
