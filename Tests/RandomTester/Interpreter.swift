import Foundation
import Pledge

/// Runs a ``Program`` against Pledge: makes its nodes, then plays each thread's actions.
///
/// It keeps one strong reference per node and per resolver, which the drop actions release, and
/// a weak observer per node, through which the round reads every state at the end.
final class Interpreter: @unchecked Sendable {
    let program: Program
    let recorder = Recorder()

    // Safety: `handles`, `resolvers` and `observers` are only read or written while `lock` is
    // held; Pledge is only called, and references only released, after unlocking.
    private var handles: [NodeID: any NodeHandle] = [:]
    private var resolvers: [NodeID: ResolverHandle] = [:]
    private var observers: [NodeID: NodeObserver] = [:]
    /// Nodes the interpreter made that are not of the program's type: a tester bug.
    private var mismatches: [NodeID] = []
    private let lock = NSLock()

    init(_ program: Program) {
        self.program = program
    }

    /// Makes every node that is not late, in order, on the calling thread.
    func build() {
        for node in program.nodes where !node.isLate {
            _ = make(node)
        }
    }

    /// Plays `thread`'s actions in order on the calling thread.
    func play(thread: Int) {
        for (index, action) in program.threads[thread].enumerated() {
            let skipped = perform(action)
            recorder.record(.init(thread: thread, index: index, action: action, skipped: skipped))
        }
    }

    /// Each node's state now: `nil` for a node never made or already released.
    func observe() -> [NodeID: Outcome] {
        // A copy of its own (see ``Recorder/allRuns``): a thread still playing past the deadline may add one.
        let observers = lock.withLock { Array(self.observers) }
        var outcomes: [NodeID: Outcome] = [:]
        for (node, observer) in observers {
            outcomes[node] = observer.read()
        }
        return outcomes
    }

    /// The nodes made and the ones the interpreter could not make as the program says.
    var made: (nodes: Set<NodeID>, mismatches: [NodeID]) {
        lock.withLock { (Set(observers.keys), mismatches) }
    }

    /// Releases every reference the interpreter still holds.
    func releaseAll() {
        let released = lock.withLock { () -> ([NodeID: any NodeHandle], [NodeID: ResolverHandle]) in
            defer {
                handles = [:]
                resolvers = [:]
            }
            return (handles, resolvers)
        }
        withExtendedLifetime(released) {}
    }

    private func handle(_ node: NodeID) -> (any NodeHandle)? {
        lock.withLock { handles[node] }
    }

    /// Does one action; returns why it did nothing, if it did nothing.
    private func perform(_ action: Action) -> String? {
        switch action {
        case .fulfill(let node, let value):
            guard let resolver = lock.withLock({ resolvers[node] }) else { return "its resolver was dropped" }
            resolver.fulfill(value)
        case .reject(let node, let id):
            guard let resolver = lock.withLock({ resolvers[node] }) else { return "its resolver was dropped" }
            resolver.reject(id)
        case .cancel(let node):
            guard let handle = handle(node) else { return "n\(node) is not held" }
            handle.cancel()
        case .dropNode(let node):
            let released = lock.withLock { handles.removeValue(forKey: node) }
            guard released != nil else { return "n\(node) is not held" }
        case .dropResolver(let node):
            let released = lock.withLock { resolvers.removeValue(forKey: node) }
            guard released != nil else { return "already dropped" }
        case .attach(let node):
            return make(program.nodes[node])
        }
        return nil
    }

    /// Makes `node` from its inputs; returns why not, if an input is no longer held.
    @discardableResult
    private func make(_ node: Node) -> String? {
        AttachingNode.named
        let build = Build(id: node.id, recorder: recorder) { [weak self] other in self?.handle(other) }
        let made: (handle: any NodeHandle, resolver: ResolverHandle?)?
        switch node.origin {
        case .source(let source):
            made = makeSource(source, node, build)
        case .operation(let operation, let input, let executor):
            guard let input = handle(input) else { return "its input is not held" }
            if let returned = operation.returnedNode, handle(returned) == nil {
                return "n\(returned), which its closure returns, is not held"
            }
            made = AttachingNode.$id.withValue(node.id) { input.attach(operation, on: executor, build) }
                .map { ($0, nil) }
        case .combinator(let combinator, let inputs):
            let handles = inputs.compactMap(handle)
            guard handles.count == inputs.count else { return "an input is not held" }
            made = makeCombinator(combinator, node, handles).map { ($0, nil) }
        case .retry(let attempts, let script, let backoff):
            made = AttachingNode.$id.withValue(node.id) {
                (makeRetry(attempts: attempts, script: script, backoffMilliseconds: backoff, build), nil)
            }
        }
        // A late node's returned node may be dropped by another thread between the check and here.
        if made == nil, node.isLate { return "a node it needs was dropped meanwhile" }
        guard let made, made.handle.form == node.form, made.handle.type == node.type else {
            lock.withLock { mismatches.append(node.id) }
            return "the interpreter cannot make it (a tester bug)"
        }
        let observer = made.handle.makeObserver()
        lock.withLock {
            handles[node.id] = made.handle
            observers[node.id] = observer
            if let resolver = made.resolver { resolvers[node.id] = resolver }
        }
        return nil
    }
}
