import Dispatch
import Testing

@testable import Pledge

/// Hands back `body` with the isolation it was written with, as Pledge's operators take it.
private func written(
    @_inheritActorContext _ body: @escaping @isolated(any) @Sendable (Int, Int) -> Int
) -> @isolated(any) @Sendable (Int, Int) -> Int {
    body
}

private actor Counter {
    let total = 5

    /// A closure written here, touching the actor's state: isolated to the actor.
    func product() -> @isolated(any) @Sendable (Int, Int) -> Int {
        written { first, second in
            self.preconditionIsolated()
            return self.total + first * second
        }
    }

    /// Calls `body` here, on the actor.
    func run<T>(_ body: () -> T) -> T {
        body()
    }
}

/// `Executor.placed` turns an `@isolated(any)` closure into a plain one, relying on both having
/// one representation (the isolation kept in the closure's context). These tests fail if that
/// stops holding: the sizes differ, or a closure called through its plain form loses what it
/// captured or its isolation.
@Suite struct IsolationErasureTests {
    @Test func anIsolatedFunctionIsAsLargeAsAPlainOne() {
        #expect(
            MemoryLayout<@isolated(any) @Sendable (Int) throws -> Int>.size
                == MemoryLayout<@Sendable (Int) throws -> Int>.size)
        #expect(MemoryLayout<@isolated(any) @Sendable () -> Int>.size == MemoryLayout<@Sendable () -> Int>.size)
        #expect(
            MemoryLayout<@isolated(any) @Sendable (Int, Int) -> Int>.size
                == MemoryLayout<@Sendable (Int, Int) -> Int>.size)
    }

    @Test func aNonisolatedClosureKeepsItsCapturesAndRunsWhereItsQueueSays() throws {
        let offset = 40
        let body: @isolated(any) @Sendable (Int) throws -> Int = { $0 + offset }
        #expect(body.isolation == nil)
        let (executor, plain) = Executor.placed(body, otherwise: nil, flags: nil)
        guard case .inline = executor else {
            Issue.record("a closure with no isolation and no queue runs inline")
            return
        }
        #expect(try plain(2) == 42)
    }

    @MainActor
    @Test func aMainActorClosureIsPlacedOnTheMainActorAndRunsThere() {
        let words = ["zero", "one", "two"]
        let body: @isolated(any) @Sendable (Int) -> String = { @MainActor index in
            MainActor.preconditionIsolated()
            return words[index]
        }
        #expect(body.isolation === MainActor.shared)
        let (executor, plain) = Executor.placed(body, otherwise: .global(), flags: nil)
        guard case .custom(let custom) = executor, custom === MainActorLane.executor else {
            Issue.record("a main-actor closure is placed on the main actor's lane")
            return
        }
        #expect(plain(2) == "two")
    }

    @Test func anActorsClosureIsPlacedOnItsActorAndRunsThere() async {
        let counter = Counter()
        let body = await counter.product()
        #expect(body.isolation === counter)
        let (executor, plain) = Executor.placed(body, otherwise: nil, flags: nil)
        guard case .custom(let custom) = executor, custom.lane != nil else {
            Issue.record("an actor's closure is placed in the actor's lane")
            return
        }
        #expect(await counter.run { plain(3, 4) } == 17)
    }
}
