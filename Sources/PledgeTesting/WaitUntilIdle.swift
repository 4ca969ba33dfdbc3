import Pledge

/// Blocks until no work Pledge has dispatched is queued or running, or `timeout` has passed;
/// whether it went quiet.
///
/// The work counted is every block Pledge dispatched for a handler (an operator's closure on a
/// queue, a `Dispatcher` or an actor, a cleanup run on a cancellation) and every
/// `DispatchQueue.async(.promise)` body, from when it is dispatched until it has run, including
/// the work it makes due as it runs. Called inside a configuration scope (`conf.withScope`, or
/// the `.pledgeScope` trait), it waits for the work of that scope's handlers alone, so tests
/// running in parallel do not wait for each other; elsewhere, for the whole process.
///
/// Handlers waiting for a promise nobody has resolved are not work: a chain waiting for a
/// ``TestClock`` that has not been advanced is idle. Nor is work outside Pledge (a `Task`, a
/// callback API's thread) until it hands a result back to Pledge.
///
/// ```swift
/// startSync()                          // fires a chain and forgets it
/// #expect(waitUntilIdle())
/// #expect(store.isSynced)
/// ```
///
/// Not available from async code, which should use the `async` form instead: blocking a thread
/// of the cooperative pool may starve the work it waits for.
///
/// - Parameter timeout: How long to wait at most.
/// - Returns: `true` once nothing is queued or running; `false` if `timeout` passed first.
@available(*, noasync, message: "use the async form: await waitUntilIdle()")
public func waitUntilIdle(timeout: Duration = .seconds(5)) -> Bool {
    pledgeWaitUntilIdle(timeout: timeout)
}

/// ``waitUntilIdle(timeout:)-4hji2`` without blocking a thread: suspends until no work Pledge has
/// dispatched is queued or running (in the current configuration scope, or in the process), or
/// until `timeout` has passed.
///
/// ```swift
/// @Test func syncsInTheBackground() async {
///     startSync()
///     #expect(await waitUntilIdle())
///     #expect(store.isSynced)
/// }
/// ```
///
/// - Parameter timeout: How long to wait at most.
/// - Returns: `true` once nothing is queued or running; `false` if `timeout` passed first.
public func waitUntilIdle(timeout: Duration = .seconds(5)) async -> Bool {
    await pledgeWaitUntilIdle(timeout: timeout)
}
