/// Compares what a round observed with what the model allows, and says what is wrong.
struct Checker {
    let model: Model

    init(_ observed: Observation, _ options: ModelOptions) {
        model = Model(observed, options)
    }

    private var observed: Observation { model.observed }

    /// What is still due before the round can be judged: nodes that must settle and closures
    /// that must run. Empty once the round is quiet; still non-empty at the deadline, a hang.
    func obligations() -> [String] {
        var due: [String] = []
        for id in observed.made.sorted() {
            let expected = model.expectation(id)
            if let outcomes = expected.outcomes, !outcomes.contains(.pending), observed.outcome(id) == .pending {
                due.append("n\(id) is still pending; expected \(Self.describe(outcomes))")
            }
            if observed.runCount(id) < expected.runs.lowerBound {
                due.append("n\(id)'s closure has run \(observed.runCount(id)) times; expected \(expected.runs)")
            }
        }
        return due
    }

    /// Every mismatch between the observation and the model.
    func findings() -> [String] {
        var findings: [String] = []
        for id in observed.made.sorted() {
            findings += check(id)
        }
        return findings
    }

    private func check(_ id: NodeID) -> [String] {
        var findings: [String] = []
        let expected = model.expectation(id)
        let outcome = observed.outcome(id)
        if let outcomes = expected.outcomes, let outcome, !outcomes.contains(outcome) {
            findings.append("n\(id) ended \(outcome); expected \(Self.describe(outcomes))")
        }
        let runs = observed.runs[id] ?? []
        if !expected.runs.contains(runs.count) {
            findings.append("n\(id)'s closure ran \(runs.count) times; expected \(expected.runs)")
        }
        if runs.contains(where: { !$0.onItsExecutor }) {
            findings.append("n\(id)'s closure ran off its executor")
        }
        switch model.node(id).origin {
        case .operation, .retry:
            if let run = runs.first(where: { $0.context != id }) {
                let seen = run.context.map { "n\($0)'s" } ?? "no node's"
                findings.append(
                    "n\(id)'s closure saw \(seen) task-local, not the one bound where it was attached (API.md: "
                        + "handlers see the named task-locals of where they were attached)")
            }
        default:
            break
        }
        if case .operation(_, let input, _) = model.node(id).origin, let given = observed.outcome(input) {
            for run in runs {
                if let argument = run.argument, argument != given {
                    findings.append("n\(id)'s closure was given \(argument), but n\(input) ended \(given)")
                }
            }
        }
        if outcome == .pending, model.node(id).form == .promise, model.releasedByEveryDependent(id) {
            findings.append(
                "n\(id) is still pending, but every promise that depends on it was cancelled (API.md: "
                    + "a pending promise is cancelled when every dependent has been)")
        }
        return findings
    }

    static func describe(_ outcomes: Set<Outcome>) -> String {
        let names = outcomes.map(\.description).sorted()
        return names.count == 1 ? names[0] : "one of " + names.joined(separator: ", ")
    }
}
