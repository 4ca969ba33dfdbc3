/// `--compare`: judges this run against one saved with `--json`.
///
/// A workload regressed when its ratio to its own baseline, both measured in the same run, grew
/// by more than the threshold over the saved ratio. Absolute medians are printed too, for
/// information only: on a shared machine they move with the load (see
/// ``Options/defaultThreshold``).
enum Compare {
    /// Prints one line per workload present in both runs and returns whether any regressed.
    static func report(_ current: RunRecord, against saved: RunRecord, from path: String, threshold: Double) -> Bool {
        Console.out("")
        Console.out(
            "Compared with \(path) (\(saved.info.date), \(saved.info.hostname), \(saved.info.configuration), "
                + "\(saved.info.quick ? "quick" : "full") sizes); regression: ratio to baseline grew more than "
                + "\(Format.ratio(threshold))")
        if saved.info.quick != current.info.quick {
            Console.out("note: one run used --quick and the other did not; sizes differ, so ratios may too")
        }
        if saved.info.configuration != current.info.configuration {
            Console.out(
                "note: comparing a \(current.info.configuration) build with a \(saved.info.configuration) build")
        }
        Console.out(
            pad("workload", 40) + pad("saved", 10, right: true) + pad("now", 10, right: true)
                + pad("now/saved", 11, right: true) + pad("saved/base", 12, right: true)
                + pad("now/base", 10, right: true) + pad("change", 9, right: true) + "  verdict")
        let savedByID = Dictionary(saved.workloads.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var regressed = false
        for workload in current.workloads {
            let label = pad("\(workload.id) \(workload.name)".prefix(38).description, 40)
            guard let old = savedByID[workload.id] else {
                Console.out(label + pad("-", 10, right: true) + "  (not in the saved run)")
                continue
            }
            let change = old.ratioToBaseline > 0 ? workload.ratioToBaseline / old.ratioToBaseline : 1
            let worse = change > threshold
            regressed = regressed || worse
            Console.out(
                label + pad(Format.number(old.median), 10, right: true)
                    + pad(Format.number(workload.median), 10, right: true)
                    + pad(Format.ratio(old.median > 0 ? workload.median / old.median : 0), 11, right: true)
                    + pad(Format.ratio(old.ratioToBaseline), 12, right: true)
                    + pad(Format.ratio(workload.ratioToBaseline), 10, right: true)
                    + pad(Format.ratio(change), 9, right: true) + (worse ? "  REGRESSED" : "  ok"))
        }
        let currentIDs = Set(current.workloads.map(\.id))
        for old in saved.workloads where !currentIDs.contains(old.id) {
            Console.out(pad("\(old.id) \(old.name)".prefix(38).description, 40) + "  (not run now)")
        }
        Console.out(
            regressed
                ? "Regression: at least one workload's ratio to its baseline grew more than \(Format.ratio(threshold))."
                : "No regression beyond \(Format.ratio(threshold)).")
        return regressed
    }
}
