import Dispatch
import Pledge
import Testing

/// Makes a promise from synchronous code, to show that `Promise(task:)` needs no async context.
private func promiseStartedFromSynchronousCode() -> Promise<Int> {
    Promise { 6 * 7 }
}

/// Waits, without blocking a thread, until `flag` is set.
private func comboYield(until flag: Locked<Bool>) async {
    while !flag.withLock({ $0 }) { await Task.yield() }
}

/// A task that awaits `promise`, once it has started.
private func waitingTask(for promise: Promise<Int>) async -> Task<Int, Error> {
    let started = Locked(false)
    let waiter = Task {
        started.withLock { $0 = true }
        return try await promise.async()
    }
    await comboYield(until: started)
    return waiter
}

@Suite struct AsyncTests {
    // MARK: Promise.async()

    @Test func asyncReturnsTheValueOfAFulfilledPromise() async throws {
        #expect(try await Promise.value(1).async() == 1)
    }

    @Test func asyncWaitsForAPendingPromiseWithoutAQueue() async throws {
        let (promise, resolver) = Promise<Int>.pending()
        DispatchQueue.global().async { resolver.fulfill(2) }

        #expect(try await promise.async() == 2)
    }

    @Test func asyncThrowsTheRejection() async {
        let (promise, resolver) = Promise<Int>.pending()
        DispatchQueue.global().async { resolver.reject(ComboError.boom) }

        await #expect(throws: ComboError.boom) { try await promise.async() }
        await #expect(throws: ComboError.boom) { try await Promise<Int>(error: ComboError.boom).async() }
    }

    @Test func cancellationErrorsOfThePromiseAreThrownToo() async {
        // No catch policy filters them out.
        let cancelled = Promise<Int>(error: PMKError.cancelled)
        let cancellation = Promise<Int>(error: CancellationError())

        await #expect(throws: PMKError.cancelled) { try await cancelled.async() }
        await #expect(throws: CancellationError.self) { try await cancellation.async() }
    }

    @Test func cancellingTheAwaitingTaskEndsTheWaitAndCancelsAPromiseNothingElseNeeds() async throws {
        // Given a task waiting for a pending promise that nothing else depends on
        let (promise, resolver) = Promise<Int>.pending()
        let hooks = Locked(0)
        resolver.onCancel { hooks.withLock { $0 += 1 } }
        let waiter = await waitingTask(for: promise)

        // When the task is cancelled
        waiter.cancel()

        // Then the wait ends with CancellationError, and the waiter, a cancelled dependent,
        // took the promise with it
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(promise.isCancelled)
        #expect(hooks.withLock { $0 } == 1)
        resolver.fulfill(3)
        #expect(promise.isCancelled)
    }

    @Test func cancellingTheAwaitingTaskLeavesAPromiseSomethingElseNeedsGoing() async throws {
        // Given a promise that a handler depends on, and a task waiting for it
        let (promise, resolver) = Promise<Int>.pending()
        let seen = Locked<Int?>(nil)
        promise.done(on: nil) { value in seen.withLock { $0 = value } }.cauterize()
        let waiter = await waitingTask(for: promise)

        // When the task is cancelled
        waiter.cancel()

        // Then the wait ends, and the promise still resolves as usual
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(promise.isPending)
        resolver.fulfill(3)
        #expect(seen.withLock { $0 } == 3)
        #expect(try await promise.async() == 3)
    }

    @Test func aTaskCancelledBeforeAwaitingThrowsAtOnceAndWithdraws() async {
        let (promise, resolver) = Promise<Int>.pending()

        let waiter = Task { () throws -> Int in
            withUnsafeCurrentTask { $0?.cancel() }
            return try await promise.async()
        }

        await #expect(throws: CancellationError.self) { try await waiter.value }
        // Nothing else depended on the promise.
        #expect(promise.isCancelled)
        resolver.fulfill(1)
        #expect(promise.isCancelled)
    }

    @Test func cancellingAPromiseFromATaskCancelsTheTask() async {
        let started = Locked(false)
        let sawCancellation = Locked(false)
        let promise = Promise<Int>(task: {
            started.withLock { $0 = true }
            while !Task.isCancelled { await Task.yield() }
            sawCancellation.withLock { $0 = true }
            throw CancellationError()
        })
        await comboYield(until: started)

        promise.cancel()

        #expect(promise.isCancelled)
        await comboYield(until: sawCancellation)
    }

    @Test func aResolvedPromiseGivesItsValueEvenToACancelledTask() async throws {
        let waiter = Task { () throws -> Int in
            withUnsafeCurrentTask { $0?.cancel() }
            return try await Promise.value(4).async()
        }

        #expect(try await waiter.value == 4)
    }

    @Test func manyTasksCanAwaitOnePromise() async throws {
        let (promise, resolver) = Promise<Int>.pending()

        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<20 { group.addTask { try await promise.async() } }
            resolver.fulfill(5)
            for try await value in group { #expect(value == 5) }
        }
    }

    // MARK: Guarantee.async()

    @Test func guaranteeAsyncReturnsTheValue() async {
        let (guarantee, resolve) = Guarantee<String>.pending()
        DispatchQueue.global().async { resolve("later") }

        #expect(await Guarantee.value("now").async() == "now")
        #expect(await guarantee.async() == "later")
    }

    @Test func cancellingATaskAwaitingAGuaranteeKeepsItWaitingForTheValue() async {
        let (guarantee, resolve) = Guarantee<Int>.pending()
        let started = Locked(false)
        let waiter = Task {
            started.withLock { $0 = true }
            return await guarantee.async()
        }
        await comboYield(until: started)

        waiter.cancel()
        resolve(6)

        #expect(await waiter.value == 6)
    }

    @Test func aGuaranteeWaitCanBeMadeCancellableThroughAPromise() async {
        let (guarantee, _) = Guarantee<Int>.pending()

        let waiter = Task { () throws -> Int in
            withUnsafeCurrentTask { $0?.cancel() }
            return try await Promise(guarantee).async()
        }

        await #expect(throws: CancellationError.self) { try await waiter.value }
    }

    // MARK: Promise(task:) and Guarantee(task:)

    @Test func promiseTaskCanStartFromSynchronousCode() async throws {
        let promise = promiseStartedFromSynchronousCode()

        #expect(try await promise.async() == 42)
    }

    @Test func promiseTaskFulfilsWithTheResultOfAsyncWork() async throws {
        let promise = Promise(task: { () async throws -> String in
            await Task.yield()
            return "done"
        })

        #expect(comboStaticType(promise) == "Promise<String>")
        #expect(try await promise.async() == "done")
    }

    @Test func promiseTaskRejectsWithTheThrownError() async {
        let promise = Promise<Int>(task: { throw ComboError.boom })

        await #expect(throws: ComboError.boom) { try await promise.async() }
    }

    @Test func promiseTaskChainsLikeAnyPromise() async throws {
        let chained = Promise(task: { 20 }).map(on: nil) { $0 + 1 }.then(on: nil) { value in
            Promise(task: { value * 2 })
        }

        #expect(try await chained.async() == 42)
    }

    @Test func guaranteeTaskResolvesWithTheValue() async {
        let guarantee = Guarantee(task: { () async -> Int in
            await Task.yield()
            return 9
        })

        #expect(comboStaticType(guarantee) == "Guarantee<Int>")
        #expect(await guarantee.async() == 9)
    }
}
