// pledge-bench: Pledge's microbenchmarks. Run with `swift run -c release pledge-bench`.
//
// Options:
//   --quick            a few repetitions of short runs (CI smoke test)
//   --repetitions N    samples per workload (default 15)
//   --filter TEXT      only workloads whose name contains TEXT
//   --probe NAME N     run NAME (map: N map steps on a resolved promise; w1, w2: N workload
//                      iterations) with no output, for allocation counting under valgrind

import Pledge

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

var arguments = Array(CommandLine.arguments.dropFirst())
var repetitions = 15
var quick = false
var filter: String?
var probe: (name: String, count: Int)?

while let argument = arguments.first {
    arguments.removeFirst()
    switch argument {
    case "--quick":
        quick = true
        repetitions = 3
    case "--repetitions":
        repetitions = arguments.first.flatMap { Int($0) } ?? repetitions
        if !arguments.isEmpty { arguments.removeFirst() }
    case "--filter":
        filter = arguments.first
        if !arguments.isEmpty { arguments.removeFirst() }
    case "--probe":
        if arguments.count >= 2, let count = Int(arguments[1]) {
            probe = (arguments[0], count)
            arguments.removeFirst(2)
        }
    default:
        print("pledge-bench: unknown option \(argument)")
        print("usage: pledge-bench [--quick] [--repetitions N] [--filter TEXT] [--probe map|w1|w2 N]")
        exit(2)
    }
}

if let probe {
    switch probe.name {
    case "map": mapSteps(probe.count)
    case "w1": resolvedChain.run(probe.count * 10)
    case "w2": pendingThenResolve.run(probe.count)
    default:
        print("pledge-bench: unknown probe \(probe.name)")
        exit(2)
    }
    exit(0)
}

if isDebugBuild() {
    print("WARNING: pledge-bench was built in debug mode; numbers are meaningless.")
    print("WARNING: run `swift run -c release pledge-bench`.")
}

let pairs: [(Workload, Workload)] = [
    (resolvedChain, resolvedChainBaseline),
    (pendingThenResolve, pendingThenResolveBaseline),
]

print(pad("workload", 36) + pad("median", 10, right: true) + pad("min", 10, right: true)
    + pad("max", 10, right: true) + "  unit")
for (workload, baseline) in pairs {
    guard filter.map({ workload.name.contains($0) }) ?? true else { continue }
    let scale = quick ? 10 : 1
    // Interleave: baseline, workload, baseline… so both see the same machine conditions.
    var ours: [Double] = []
    var theirs: [Double] = []
    for _ in 0..<repetitions {
        theirs += measure(Workload(name: baseline.name, unit: baseline.unit, operations: baseline.operations / scale, run: baseline.run), repetitions: 1).samples
        ours += measure(Workload(name: workload.name, unit: workload.unit, operations: workload.operations / scale, run: workload.run), repetitions: 1).samples
    }
    for result in [Measurement(name: workload.name, unit: workload.unit, samples: ours),
                   Measurement(name: baseline.name, unit: baseline.unit, samples: theirs)] {
        print(pad(result.name, 36) + pad(format(result.median), 10, right: true)
            + pad(format(result.min), 10, right: true) + pad(format(result.max), 10, right: true)
            + "  " + result.unit)
    }
    let ratio = Measurement(name: "", unit: "", samples: ours).median / Measurement(name: "", unit: "", samples: theirs).median
    print(pad("  ratio to baseline", 36) + pad(format(ratio) + "x", 10, right: true))
}
