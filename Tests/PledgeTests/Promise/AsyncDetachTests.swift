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

    /// Every order of `AsyncWait`'s four events ends with the waiter resumed once at most and
    /// not kept: a kept waiter would keep the wait, and the two would never be freed.
    @Test(arguments: [
        ["cancel", "suspend"],
        ["suspend", "cancel", "attached"],
        ["suspend", "attached", "cancel", "resolve"],
        ["suspend", "attached", "resolve", "cancel"],
        ["suspend", "resolve", "attached", "cancel"],
    ])
    func aWaitEndsOnceAndKeepsNoWaiter(order: [String]) {
        weak var kept: ProbeWaiter?
        let wait = AsyncWait()
        var endings = 0
        do {
            let waiter = ProbeWaiter()
            kept = waiter
            for event in order {
                switch event {
                case "suspend": if !wait.suspend(waiter) { endings += 1 }
                case "cancel": if wait.cancel() != nil { endings += 1 }
                case "attached": _ = wait.attached()
                default: if wait.resolve() { endings += 1 }
                }
            }
        }
        #expect(endings == 1)
        #expect(kept == nil)
        #expect(wait.cancel() == nil && !wait.resolve() && wait.attached() == nil)
    }

    /// A cancellation racing the value, from another thread, in every interleaving the scheduler
    /// gives: each wait ends once, with one or the other, and leaves no handler behind.
    @Test func aCancellationRacingTheValueEndsEachWaitOnce() async throws {
        for round in 0..<500 {
            let (promise, resolver) = Promise<Int>.pending()
            let box = try #require(promise.box as? EmptyBox<Result<Int, Error>>)
            let wait = Task { try await promise.async() }
            let start = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                start.wait()
                resolver.fulfill(round)
            }
            start.signal()
            wait.cancel()
            do {
                #expect(try await wait.value == round)
            } catch {
                #expect(error is CancellationError)
            }
            #expect(await eventually { box.storedHandlers == 0 })
        }
    }
}

/// A waiter for `AsyncWait`'s transitions alone.
private final class ProbeWaiter: AsyncResumable {
    func resume(throwing _: any Error) {}
}
