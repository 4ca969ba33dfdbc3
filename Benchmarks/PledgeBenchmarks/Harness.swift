import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeps a value alive in the optimiser's eyes, so the work that produced it is not removed.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

/// Nanoseconds from a monotonic clock.
@inline(__always)
func now() -> UInt64 {
    DispatchTime.now().uptimeNanoseconds
}

/// One measured workload: `run(n)` performs `n` operations and the harness divides by `n`.
struct Workload: Sendable {
    let name: String
    let unit: String
    let operations: Int
    let run: @Sendable (Int) -> Void
}

/// Medians and spread of one workload, in nanoseconds per operation.
struct Measurement {
    let name: String
    let unit: String
    let samples: [Double]

    var sorted: [Double] { samples.sorted() }
    var median: Double {
        let s = sorted
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }
    var min: Double { sorted.first ?? 0 }
    var max: Double { sorted.last ?? 0 }
}

/// Runs a workload `repetitions` times after one warm-up run.
func measure(_ workload: Workload, repetitions: Int) -> Measurement {
    workload.run(max(1, workload.operations / 10))  // warm-up
    var samples: [Double] = []
    for _ in 0..<repetitions {
        let start = now()
        workload.run(workload.operations)
        let elapsed = now() - start
        samples.append(Double(elapsed) / Double(workload.operations))
    }
    return Measurement(name: workload.name, unit: workload.unit, samples: samples)
}

func isDebugBuild() -> Bool {
    var debug = false
    assert({ debug = true; return true }())
    return debug
}

func format(_ value: Double) -> String {
    let rounded = (value * 10).rounded() / 10
    return value >= 100 ? String(Int(value.rounded())) : String(rounded)
}

func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
    let padding = String(repeating: " ", count: Swift.max(0, width - text.count))
    return right ? padding + text : text + padding
}
