import Dispatch
import Pledge
import PledgeTesting
import Testing

/// Tests running in parallel, each in a configuration scope of its own (queues, catch policy and
/// log handler), building chains whose handlers run on many threads at once: none sees another's
/// configuration. `.ci/run` runs this suite under ThreadSanitizer.
@Suite struct StressScopedConfigurationTests {
    @Test(arguments: 0..<8)
    func parallelScopesDoNotSeeEachOther(_ test: Int) async throws {
        let queue = TestQueues.concurrent("scoped.\(test)")
        let events = Locked<[String]>([])
        let policy: CatchPolicy = test.isMultiple(of: 2) ? .allErrors : .allErrorsExceptCancellation
        let chains = 200
        let handler: @Sendable (LogEvent) -> Void = { event in events.withLock { $0.append("\(test): \(event.kind)") } }
        let results = try await conf.withScope(queues: (queue, queue), catchPolicy: policy, logHandler: handler) {
            try await withThrowingTaskGroup(of: Bool.self) { group in
                for chain in 0..<chains {
                    group.addTask {
                        let (head, resolver) = Promise<Int>.pending()
                        let ownQueue = head.map { _ in TestQueues.isOn(queue) }
                            .then(on: .global()) { onQueue in
                                Promise.value(onQueue).map { $0 && TestQueues.isOn(queue) }
                            }
                        DispatchQueue.global().async { resolver.fulfill(chain) }
                        // Logged from a handler on a global queue: it goes to this test's handler.
                        ownQueue.get(on: .global()) { _ in Promise<Int>(error: TestError.boom).cauterize() }
                            .cauterize()
                        let sawPolicy = await Promise<Int>(error: PMKError.cancelled)
                            .recover { _ in Promise.value(1) }.map { _ in true }
                            .recover { _ in Promise.value(false) }.asGuarantee()
                        let policyOK = sawPolicy == test.isMultiple(of: 2)
                        return try await ownQueue.async() && policyOK && conf.Q.map === queue
                    }
                }
                let results = try await group.reduce(into: [Bool]()) { $0.append($1) }
                // This scope's handlers have all run, other tests' work or not.
                #expect(await waitUntilIdle(timeout: .seconds(60)))
                return results
            }
        }
        #expect(results.count == chains && results.allSatisfy { $0 })
        let logged = events.value
        #expect(logged.count == chains)
        #expect(logged.allSatisfy { $0 == "\(test): cauterized" })
    }
}

extension Promise where T == Bool {
    /// This promise's value, or `false` if it rejects.
    fileprivate func asGuarantee() async -> Bool { (try? await async()) ?? false }
}
