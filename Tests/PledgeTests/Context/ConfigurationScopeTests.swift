import Dispatch
import Pledge
import Testing

/// `conf.withScope`: the defaults one test or request runs with, seen by its code, its child
/// tasks and the handlers of the chains it builds, and by nothing else.
@Suite struct ConfigurationScopeTests {
    @Test func operatorsAttachedInAScopeRunOnItsQueues() async throws {
        let map = TestQueues.serial("scope.map")
        let ret = TestQueues.serial("scope.return")
        let (onMap, onReturn) = try await conf.withScope(queues: (map, ret)) {
            let mapped = Promise.value(1).map { _ in TestQueues.isOn(map) }
            let done = Promise.value(1).get { _ in }.map(on: nil) { _ in true }
            let returned = Promise.value(1).then { _ in Promise.value(()) }.get { _ in }
                .map { _ in TestQueues.isOn(map) }
            _ = try await (done.async(), returned.async())
            let onReturn = try await Promise.value(1).get { _ in dispatchPrecondition(condition: .onQueue(ret)) }
                .map(on: nil) { _ in true }.async()
            return (try await mapped.async(), onReturn)
        }
        #expect(onMap && onReturn)
    }

    @Test func codeOutsideTheScopeKeepsTheGlobalDefaults() async throws {
        let queue = TestQueues.serial("scope.private")
        let inside = conf.withScope(queues: (queue, queue)) { conf.Q.map }
        #expect(inside === queue)
        #expect(conf.Q.map !== queue)
        let ranOnScopeQueue = try await Promise.value(1).map { _ in TestQueues.isOn(queue) }.async()
        #expect(!ranOnScopeQueue)
    }

    /// A handler that runs on a queue, outside any task, still attaches in the scope it was
    /// attached in: the chain it returns uses the scope's queues.
    @Test func handlersOfAChainBuiltInTheScopeSeeItWhereverTheyRun() async throws {
        let queue = TestQueues.serial("scope.nested")
        let other = TestQueues.serial("scope.other")
        let nested = try await conf.withScope(queues: (queue, queue)) {
            try await Promise.value(1).then(on: other) { _ in
                // On `other`, outside the scope's task: the default `on:` is still the scope's.
                Promise.value(2).map { _ in TestQueues.isOn(queue) }
            }.async()
        }
        #expect(nested)
    }

    @Test func childTasksSeeTheScope() async {
        let queue = TestQueues.serial("scope.child")
        let seen = await conf.withScope(queues: (queue, queue)) {
            await withTaskGroup(of: Bool.self) { group in
                group.addTask { conf.Q.map === queue }
                group.addTask { await Task { conf.Q.return === queue }.value }
                return await group.reduce(true) { $0 && $1 }
            }
        }
        #expect(seen)
    }

    @Test func theScopesCatchPolicyIsTheDefaultInIt() async {
        let caught = Locked<[Bool]>([])
        await conf.withScope(catchPolicy: .allErrors) {
            let done = Guarantee<Void>.pending()
            Promise<Int>(error: PMKError.cancelled).catch(on: nil) { _ in caught.withLock { $0.append(true) } }
                .finally(on: nil) { done.resolve(()) }
            await done.guarantee.async()
        }
        #expect(caught.value == [true])
    }

    @Test func eventsLoggedInTheScopeGoToItsHandler() async {
        let events = Locked<[LogEventKind]>([])
        let queue = TestQueues.serial("scope.log")
        let handler: @Sendable (LogEvent) -> Void = { event in events.withLock { $0.append(event.kind) } }
        await conf.withScope(logHandler: handler) {
            Promise<Int>(error: TestError.boom).cauterize()
            // Logged by a handler on a queue: the handler carries the scope.
            let (done, resolve) = Guarantee<Void>.pending()
            Promise.value(1).done(on: queue) { _ in
                Promise<Int>(error: TestError.boom).cauterize()
                resolve(())
            }.cauterize()
            await done.async()
        }
        #expect(events.value == [.cauterized, .cauterized])
    }

    @Test func aNestedScopeStartsFromTheEnclosingOne() {
        let queue = TestQueues.serial("scope.outer")
        let (inner, policy) = conf.withScope(queues: (queue, queue), catchPolicy: .allErrors) {
            conf.withScope(queues: (queue, nil)) { (conf.Q, conf.catchPolicy) }
        }
        #expect(inner.map === queue && inner.return == nil)
        #expect({ if case .allErrors = policy { true } else { false } }())
    }

    @Test func anErrorThrownByTheOperationPassesThrough() {
        #expect(throws: TestError.boom) { try conf.withScope { throw TestError.boom } }
    }
}
