import Dispatch
import Pledge
import Testing

/// A thenable outside Pledge that implements the underscored `_pipe` itself, and badly: it calls
/// the handler at once, with no target and another value than its `pipe(to:)` gives.
private final class TargetDroppingThenable: Thenable, Sendable {
    func pipe(to body: @escaping @Sendable (Result<Int, Error>) -> Void) {
        body(.success(1))
    }

    var result: Result<Int, Error>? { .success(1) }

    func _pipe(
        _ target: (any AnyObject & Sendable)?,
        _ handler: @escaping @Sendable ((any AnyObject & Sendable)?, Result<Int, Error>) -> _PledgeStep?
    ) -> _PledgeStep? {
        handler(nil, .success(2))
    }
}

/// `_pipe` is not API, but a type outside Pledge can implement it. Pledge never hands such a type
/// a handler that trusts its target (following a thenable goes through `pipe(to:)` instead), so
/// a bad implementation cannot crash it.
@Suite struct ForeignPipeTests {
    @Test func bridgingAThenableWithItsOwnPipeGoesThroughPipeTo() {
        #expect(Promise(TargetDroppingThenable()).value == 1)
    }

    @Test func thenFollowsAThenableWithItsOwnPipeThroughPipeTo() {
        let followed = Promise.value(0).then(on: nil) { _ in TargetDroppingThenable() }

        #expect(followed.value == 1)
    }

    @Test func raceFollowsAThenableWithItsOwnPipeThroughPipeTo() {
        #expect(race([TargetDroppingThenable()]).value == 1)
    }

    /// A thenable outside Pledge that calls its handlers twice, against `pipe`'s contract, still
    /// runs an operator's closure once, inline or on a queue.
    @Test func anOperatorOnAThenableThatCallsBackTwiceRunsItsClosureOnce() {
        let twice = ForeignThenable<Int>(callingEachHandler: 2)
        let inline = AtomicCounter()
        let queued = AtomicCounter()
        let finished = DispatchSemaphore(value: 0)
        let queue = TestQueues.serial("foreign.twice")
        let mapped = twice.map(on: nil) { value -> Int in
            inline.increment()
            return value + 1
        }
        twice.done(on: queue) { _ in
            queued.increment()
            finished.signal()
        }.cauterize()

        twice.resolve(.success(1))

        #expect(mapped.value == 2)
        #expect(finished.wait(timeout: .testTimeout) == .success)
        queue.sync {}
        #expect(inline.value == 1)
        #expect(queued.value == 1)
    }
}
