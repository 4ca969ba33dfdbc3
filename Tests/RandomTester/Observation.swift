/// Everything a round observed: the states read at the end, the closures' calls, and which
/// actions took effect. The model reads only this and the program.
struct Observation: Sendable {
    let program: Program
    /// Each made node's state; a node missing here was released, or never made.
    let outcomes: [NodeID: Outcome]
    /// The nodes the interpreter made (late ones only if their `attach` took effect).
    let made: Set<NodeID>
    let runs: [NodeID: [Recorder.Run]]
    /// The actions that took effect.
    let performed: [Action]

    func outcome(_ node: NodeID) -> Outcome? { outcomes[node] }
    func runCount(_ node: NodeID) -> Int { runs[node]?.count ?? 0 }

    /// Whether `other` saw the same states and the same number of closure calls.
    func isSame(as other: Observation) -> Bool {
        outcomes == other.outcomes && made == other.made && runs.mapValues(\.count) == other.runs.mapValues(\.count)
    }
}
