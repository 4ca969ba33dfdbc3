import Dispatch
import Testing

@testable import Pledge

/// A dispatcher that drops every body, as an invalidated queue does.
private final class DroppingEverything: DroppingDispatcher {
    let drops = AtomicCounter()

    func dispatch(_ body: @escaping @Sendable () -> Void) {
        Issue.record("a dropping dispatcher is sent work through dispatch(_:orDrop:)")
    }

    func dispatch(_ body: @escaping @Sendable () -> Void, orDrop dropped: @escaping @Sendable () -> Void) {
        drops.increment()
        dropped()
    }
}

/// Work a ``DroppingDispatcher`` drops cancels the operator's promise; a guarantee stays pending.
@Suite struct DroppingDispatcherTests {
    @Test func droppedWorkRejectsThePromiseWithCancelledAndNeverRunsTheClosure() {
        let dispatcher = DroppingEverything()
        let ran = AtomicFlag()
        let mapped = Promise.value(1).map(on: dispatcher) { value in
            ran.set()
            return value
        }

        #expect(mapped.error as? PMKError == .cancelled)
        #expect(dispatcher.drops.value == 1)
        #expect(!ran.isSet)
    }

    @Test func droppedWorkLeavesAGuaranteePending() {
        let dispatcher = DroppingEverything()
        let ran = AtomicFlag()
        let mapped: Guarantee<Int> = Guarantee.value(1).map(on: dispatcher) { value in
            ran.set()
            return value
        }

        #expect(mapped.isPending)
        #expect(dispatcher.drops.value == 1)
        #expect(!ran.isSet)
    }

    @Test func droppedWorkOfARecoverToAGuaranteeLeavesItPending() {
        let dispatcher = DroppingEverything()
        let recovered: Guarantee<Int> = Promise<Int>(error: TestError.boom).recover(on: dispatcher) { _ in
            Guarantee.value(1)
        }

        #expect(recovered.isPending)
        #expect(dispatcher.drops.value == 1)
    }
}
