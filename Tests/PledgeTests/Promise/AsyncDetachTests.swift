import Dispatch
import Testing

@testable import Pledge

/// White-box tests of `Promise.async()`: a wait that ends by cancellation takes its handler back
/// from the promise, which may stay pending for long.
@Suite struct AsyncDetachTests {
    /// Waits, up to the test timeout, until `condition` holds.
    func eventually(_ condition: () -> Bool) async -> Bool {
        let deadline = DispatchTime.testTimeout
        while !condition() {
            if DispatchTime.now() > deadline { return false }
            await Task.yield()
        }
        return true
    }

    @Test func aCancelledWaitLeavesNoHandlerOnAPendingPromise() async throws {
        let (promise, resolver) = Promise<Int>.pending()
        // Safety of the cast: `pending()` makes an `EmptyBox`.
        let box = try #require(promise.box as? EmptyBox<Result<Int, Error>>)
        let waits = (0..<100).map { _ in Task { try await promise.async() } }
        // Every wait attached: one not started yet when the last attached one is cancelled would
        // find the promise cancelled.
        #expect(await eventually { box.storedHandlers == waits.count })

        for wait in waits { wait.cancel() }
        for wait in waits {
            await #expect(throws: CancellationError.self) { try await wait.value }
        }

        #expect(await eventually { box.storedHandlers == 0 })
        resolver.fulfill(1)
    }

    @Test func aWaitThatEndsWithTheValueLeavesNothingEither() async throws {
        let (promise, resolver) = Promise<Int>.pending()
        let box = try #require(promise.box as? EmptyBox<Result<Int, Error>>)
        let wait = Task { try await promise.async() }
        #expect(await eventually { box.storedHandlers > 0 })

        resolver.fulfill(5)

        #expect(try await wait.value == 5)
        #expect(box.storedHandlers == 0)
    }
}
