/// The reference model: what API.md allows each node to end as, given what the round observed.
///
/// Multi-threaded rounds have many interleavings, so the model never predicts one. It reads the
/// observed states of a node's inputs and the actions that took effect, and answers with the
/// set of states the node may end in, how many times its closure may run, and whether a
/// cancellation must have reached it. Everything it says holds for every interleaving.
struct Model {
    let observed: Observation
    let options: ModelOptions
    /// For each node, the nodes that depend on it (see ``Dependency``).
    private(set) var dependents: [NodeID: [Dependency]] = [:]
    private var cancelCalled: Set<NodeID> = []
    private var mayBeCancelledMemo: [NodeID: Bool] = [:]
    private var surelyCancelledMemo: [NodeID: Bool] = [:]

    /// An edge from a node to one that depends on it, and whether cancelling the dependent
    /// releases it (API.md: a pending promise is cancelled once every dependent was cancelled).
    struct Dependency {
        enum Release {
            /// A promise that depends on it: releases it when cancelled (a timeout also when it fires).
            case whenCancelled
            /// A guarantee, a `catch`, a `pipe`: never releases it.
            case never
            /// It may not depend on it at all: `when(…concurrently:)` may not have pulled it yet,
            /// or a promise cancelled while its closure ran never attached to what that returned.
            case uncertain
        }

        let dependent: NodeID
        let release: Release
        /// Made while the threads played (a late attach, or a closure that returned this node,
        /// a lazy body that piped it, a task that awaited it): maybe after it was cancelled.
        let late: Bool
    }

    /// What the model allows one node.
    struct Expectation {
        /// The states it may end in; `nil` when the model cannot tell (an input was released).
        var outcomes: Set<Outcome>?
        /// How many times its closure may run.
        var runs: ClosedRange<Int> = 0...0
    }

    init(_ observed: Observation, _ options: ModelOptions) {
        self.observed = observed
        self.options = options
        for action in observed.performed {
            guard case .cancel(let node) = action else { continue }
            let target = observed.program.nodes[node]
            if target.form == .finalizer, case .operation(_, let input, _) = target.origin {
                cancelCalled.insert(input)
            } else {
                cancelCalled.insert(node)
            }
        }
        for node in observed.program.nodes where observed.made.contains(node.id) {
            for (input, release, late) in feeders(of: node) {
                dependents[input, default: []].append(Dependency(dependent: node.id, release: release, late: late))
            }
        }
        // Each moment of the build at which a timer may have fired (just after each timeout is
        // made), then the threads' play (`nil`), when every node is there. A node may be
        // cancelled if it may be at one of them; each pass sees what the earlier ones found.
        let made = observed.program.nodes.filter { observed.made.contains($0.id) }
        let moments: [NodeID?] = made.filter { !$0.isLate && mayHaveTimedOut($0.id) }.map { $0.id + 1 } + [nil]
        for moment in moments {
            for node in made.reversed() where moment.map({ node.id < $0 }) ?? true {
                let now = computeMayBeCancelled(node, before: moment)
                mayBeCancelledMemo[node.id] = now || mayBeCancelled(node.id)
            }
        }
        for node in observed.program.nodes.reversed() where observed.made.contains(node.id) {
            surelyCancelledMemo[node.id] = computeSurelyCancelled(node)
        }
    }

    func node(_ id: NodeID) -> Node { observed.program.nodes[id] }
    func wasCancelCalled(_ id: NodeID) -> Bool { cancelCalled.contains(id) }

    /// Whether some interleaving lets a `cancel()` reach the node (directly or because every
    /// dependent was cancelled): an over-approximation, used to excuse a cancellation.
    func mayBeCancelled(_ id: NodeID) -> Bool { mayBeCancelledMemo[id] ?? false }

    /// Whether the observed states prove that a `cancel()` reached the node while it was pending.
    func surelyCancelled(_ id: NodeID) -> Bool { surelyCancelledMemo[id] ?? false }

    /// The nodes whose state flows into `node`, with how `node` releases each.
    func feeders(of node: Node) -> [(NodeID, Dependency.Release, late: Bool)] {
        let release: Dependency.Release = node.form == .promise ? .whenCancelled : .never
        switch node.origin {
        case .source(.lazy(.pipe(let previous))):
            return observed.runCount(node.id) > 0 ? [(previous, .never, true)] : []
        case .source(.task(.await(let awaited, _))):
            guard observed.runCount(node.id) > 0 else { return [] }
            return [(awaited, mayHaveWithdrawn(node) ? .uncertain : release, true)]
        case .source, .retry:
            return []
        case .operation(let operation, let input, _):
            var feeders = [(input, release, node.isLate)]
            if let followed = operation.returnedNode, observed.runCount(node.id) > 0 {
                feeders.append((followed, mayHaveWithdrawn(node) ? .uncertain : release, true))
            }
            return feeders
        case .combinator(.whenConcurrently, let inputs):
            return inputs.map { ($0, .uncertain, node.isLate) }
        case .combinator(_, let inputs):
            return inputs.map { ($0, release, node.isLate) }
        }
    }

    /// Whether `node`, whose closure has run, may have been cancelled before it attached to what
    /// that closure returned or awaited: a `then`, `recover` or `ensureThen` cancelled while its
    /// closure runs (on a queue, say) does not follow the thenable the closure returns, and a
    /// `Promise(task:)` cancelled first does not wait for the promise it awaits. The thenable is
    /// then never attached to (a lazy one never starts), or withdrawn from (API.md: cancelled if
    /// nothing else depends on it). A promise that did not end cancelled attached.
    private func mayHaveWithdrawn(_ node: Node) -> Bool {
        guard node.form == .promise else { return false }
        let outcome = observed.outcome(node.id)
        return outcome == nil || outcome == .cancelled
    }

    /// Whether every promise that depends on `node` may have released it by a moment: while
    /// the graph is built, once the nodes before `moment` are made (timers run on their own, so
    /// a timeout may fire before the nodes made after it attach: nothing else depends on its
    /// input yet, which it cancels then); or, with `moment` `nil`, while the threads play,
    /// where `cancel()` is called and late dependents may come after it.
    private func computeMayBeCancelled(_ node: Node, before moment: NodeID?) -> Bool {
        if moment == nil, cancelCalled.contains(node.id) { return true }
        guard node.form == .promise else { return false }
        let existing = (dependents[node.id] ?? []).filter { dependency in
            moment.map { !dependency.late && dependency.dependent < $0 } ?? true
        }
        guard !existing.isEmpty else { return false }
        return existing.allSatisfy { dependency in
            if dependency.late { return true }
            switch dependency.release {
            case .never: return false
            case .uncertain: return true
            case .whenCancelled:
                return mayBeCancelled(dependency.dependent) || mayHaveTimedOut(dependency.dependent)
            }
        }
    }

    private func computeSurelyCancelled(_ node: Node) -> Bool {
        guard observed.outcome(node.id) == .cancelled else { return false }
        let fed = feeders(of: node).contains { input, _, _ in
            let outcome = observed.outcome(input)
            return outcome == nil || outcome == .cancelled
        }
        if fed { return false }
        if cancelCalled.contains(node.id) { return true }
        guard node.form == .promise else { return false }
        return releasedByEveryDependent(node.id)
    }

    /// Whether the node has dependents and the observed states prove each one released it.
    func releasedByEveryDependent(_ id: NodeID) -> Bool {
        guard let dependents = dependents[id], !dependents.isEmpty else { return false }
        return dependents.allSatisfy { dependency in
            dependency.release == .whenCancelled
                && (surelyCancelled(dependency.dependent)
                    || observed.outcome(dependency.dependent) == .rejected(.timedOut)
                        && isTimeout(dependency.dependent))
        }
    }

    private func mayHaveTimedOut(_ id: NodeID) -> Bool {
        guard isTimeout(id) else { return false }
        let outcome = observed.outcome(id)
        return outcome == nil || outcome == .rejected(.timedOut) || outcome == .pending
    }

    private func isTimeout(_ id: NodeID) -> Bool {
        if case .operation(.timeout(let milliseconds?), _, _) = node(id).origin { return milliseconds >= 0 }
        return false
    }
}

extension Operation {
    /// The node of the graph this operation's closure returns, if it returns one.
    var returnedNode: NodeID? {
        switch self {
        case .then(.node(let node)), .recover(.node(let node), _), .recoverGuarantee(.node(let node)),
            .ensureThen(.node(let node)), .guaranteeThen(.node(let node)):
            return node
        default:
            return nil
        }
    }

    /// Whether this is one of the cleanup operators API.md promises run however the chain ends.
    var isCleanup: Bool {
        switch self {
        case .ensure, .ensureThen, .finally: return true
        default: return false
        }
    }
}
