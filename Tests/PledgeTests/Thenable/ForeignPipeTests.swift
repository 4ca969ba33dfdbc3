import Dispatch
import Pledge
import Testing

/// A thenable outside Pledge with a method named like the underscored `_pipe` that earlier
/// versions of Pledge had as a protocol requirement, which calls the handler at once, with no
/// target and another value than its `pipe(to:)` gives.
private final class TargetDroppingThenable: Thenable, Sendable {
    func pipe(to body: @escaping @Sendable (Result<Int, Error>) -> Void) {
        body(.success(1))
    }

    var result: Result<Int, Error>? { .success(1) }

    func _pipe(
        _ target: (any AnyObject & Sendable)?,
        _ handler: @Sendable ((any AnyObject & Sendable)?, Result<Int, Error>) -> Void
    ) {
        handler(nil, .success(2))
    }
}

/// Pledge reaches a thenable outside Pledge through `pipe(to:)` only, whatever else the type
/// declares, so a type with methods of its own cannot crash it.
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
        }.ignoreErrors()

        twice.resolve(.success(1))

        #expect(mapped.value == 2)
        #expect(finished.wait(timeout: .testTimeout) == .success)
        queue.sync {}
        #expect(inline.value == 1)
        #expect(queued.value == 1)
    }
}
