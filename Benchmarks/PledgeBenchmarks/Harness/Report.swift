#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// What a run prints: a header describing the conditions, an aligned table, and the JSON record
// that `--json` writes and `--compare` reads back (see Compare.swift).

// MARK: - Run conditions

/// The conditions of a run, printed in the header and saved with the results.
struct RunInfo: Codable {
    /// The program that made the run: `pledge-bench`, or `pledge-vs-nio`, whose baselines are
    /// other workloads. `nil` in runs saved before the field existed, which were all
    /// `pledge-bench`'s.
    var program: String?
    var date: String
    var hostname: String
    var swift: String
    var configuration: String
    var quick: Bool
    var repetitions: Int
    var cpus: Int
    /// The one-minute load average when the run started: how busy the machine was.
    var loadAverage: Double?
    /// Where heap sizes come from (see ``HeapGauge``).
    var heapSource: String?

    static func current(_ options: Options, program: String) -> RunInfo {
        var load = [0.0]
        let loadAverage = getloadavg(&load, 1) == 1 ? load[0] : nil
        return RunInfo(
            program: program, date: Date.now.formatted(.iso8601), hostname: currentHostname(), swift: compilerVersion,
            configuration: isDebugBuild() ? "debug" : "release", quick: options.quick,
            repetitions: options.effectiveRepetitions, cpus: Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))),
            loadAverage: loadAverage, heapSource: HeapGauge.source)
    }

    /// ``program``, or `pledge-bench` for runs saved before it was recorded.
    var programOrDefault: String { program ?? PledgeBench.name }

    /// One line for the top of the table.
    var summary: String {
        let load = loadAverage.map { ", load average \(Format.number($0))" } ?? ""
        return "\(programOrDefault): \(configuration) build, Swift \(swift), \(quick ? "quick" : "full") sizes, "
            + "\(repetitions) repetition\(repetitions == 1 ? "" : "s") + 1 warm-up, \(cpus) CPUs\(load), heap sizes from \(heapSource ?? "nowhere")"
    }
}

private func currentHostname() -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    guard gethostname(&buffer, buffer.count - 1) == 0 else { return "unknown" }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// The compiler that built this executable; only build-time checks can tell.
private var compilerVersion: String {
    #if compiler(>=7.0)
        return ">= 7.0"
    #elseif compiler(>=6.3)
        return "6.3"
    #elseif compiler(>=6.2)
        return "6.2"
    #elseif compiler(>=6.1)
        return "6.1"
    #else
        return "6.0"
    #endif
}

// MARK: - Table

/// Prints results as an aligned table, one benchmark at a time as they finish. The name column
/// fits the longest row label of the benchmarks about to run.
struct Table {
    private let nameWidth: Int
    private let numberWidth = 10
    private let unitWidth = 14
    private let ratioWidth = 12

    init(_ benchmarks: [Benchmark]) {
        let labels = benchmarks.flatMap { benchmark in
            Table.labels(id: benchmark.id, benchmark.workloads.map(\.name))
        }
        nameWidth = (labels.map(\.count).max() ?? 0) + 2
    }

    func header() -> String {
        pad("workload", nameWidth) + pad("median", numberWidth, right: true) + pad("min", numberWidth, right: true)
            + pad("max", numberWidth, right: true) + "  " + pad("unit", unitWidth)
            + pad("Pledge/this", ratioWidth, right: true)
    }

    /// The subject row, then the baseline and the references with the subject's ratio to them.
    func rows(_ result: BenchmarkResult) -> [String] {
        let series = [result.subject, result.baseline] + result.references
        let labels = Table.labels(id: result.id, series.map(\.name))
        return zip(labels, series).enumerated().map { index, row in
            line(row.0, row.1, ratio: index == 0 ? nil : result.ratio(to: row.1))
        }
    }

    static let legend =
        "Pledge/this: the Pledge row's median over this row's median (above 1: Pledge is slower or bigger)."

    /// Row labels: the subject with its id, then the baseline, then the references, indented.
    private static func labels(id: String, _ names: [String]) -> [String] {
        names.enumerated().map { index, name in
            switch index {
            case 0: return "\(id) \(name)"
            case 1: return "  baseline: \(name)"
            default: return "  \(name)"
            }
        }
    }

    private func line(_ label: String, _ series: Series, ratio: Double?) -> String {
        let text =
            pad(label, nameWidth) + pad(Format.number(series.median), numberWidth, right: true)
            + pad(Format.number(series.min), numberWidth, right: true)
            + pad(Format.number(series.max), numberWidth, right: true) + "  " + pad(series.unit, unitWidth)
            + pad(ratio.map { Format.ratio($0) } ?? "", ratioWidth, right: true)
        return String(text.reversed().drop { $0 == " " }.reversed())
    }
}

/// Pads `text` with spaces to `width` characters, on the right (or on the left, for numbers).
func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
    let padding = String(repeating: " ", count: Swift.max(0, width - text.count))
    return right ? padding + text : text + padding
}

/// Number formatting without Foundation's `String(format:)`.
enum Format {
    /// Three significant digits or more: `1.83`, `25.3`, `534`.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "-" }
        let magnitude = abs(value)
        return fixed(value, decimals: magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : 2)
    }

    /// A ratio: `14.1x`, `0.52x`.
    static func ratio(_ value: Double) -> String {
        number(value) + "x"
    }

    /// `value` rounded to `decimals` places, always showing them.
    static func fixed(_ value: Double, decimals: Int) -> String {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = Int((abs(value) * scale).rounded())
        let sign = value < 0 && scaled != 0 ? "-" : ""
        let whole = scaled / Int(scale)
        guard decimals > 0 else { return sign + String(whole) }
        let fraction = String(scaled % Int(scale))
        return sign + String(whole) + "." + String(repeating: "0", count: decimals - fraction.count) + fraction
    }
}

// MARK: - JSON

/// A whole run, as `--json` writes it.
struct RunRecord: Codable {
    var info: RunInfo
    var workloads: [WorkloadRecord]

    init(info: RunInfo, results: [BenchmarkResult]) {
        self.info = info
        workloads = results.map(WorkloadRecord.init)
    }

    func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        let bytes = Array(try encoder.encode(self))
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else { throw FileError(path: path, code: errno) }
        defer { close(descriptor) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBufferPointer {
                systemWrite(descriptor, $0.baseAddress! + offset, $0.count - offset)
            }
            guard written > 0 else { throw FileError(path: path, code: errno) }
            offset += written
        }
    }

    static func read(from path: String) throws -> RunRecord {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return try decoder.decode(RunRecord.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }
}

/// A file that could not be written, with the system's reason.
struct FileError: Error, CustomStringConvertible {
    let path: String
    let code: Int32

    var description: String { "\(path): \(String(cString: strerror(code)))" }
}

/// One benchmark's Pledge workload, with its baseline and references.
struct WorkloadRecord: Codable {
    var id: String
    var name: String
    var unit: String
    var median: Double
    var min: Double
    var max: Double
    var samples: [Double]
    var baseline: ComparisonRecord
    var references: [ComparisonRecord]

    init(_ result: BenchmarkResult) {
        id = result.id
        name = result.subject.name
        unit = result.subject.unit
        median = result.subject.median
        min = result.subject.min
        max = result.subject.max
        samples = result.subject.samples
        baseline = ComparisonRecord(result.baseline, ratio: result.ratio(to: result.baseline))
        references = result.references.map { ComparisonRecord($0, ratio: result.ratio(to: $0)) }
    }

    /// The workload's median over its baseline's, as measured in that run.
    var ratioToBaseline: Double { baseline.ratio }
}

/// A baseline or a reference, and the workload's median divided by its median (`ratio`).
struct ComparisonRecord: Codable {
    var name: String
    var unit: String
    var median: Double
    var min: Double
    var max: Double
    var samples: [Double]
    var ratio: Double

    init(_ series: Series, ratio: Double) {
        name = series.name
        unit = series.unit
        median = series.median
        min = series.min
        max = series.max
        samples = series.samples
        self.ratio = ratio
    }
}
