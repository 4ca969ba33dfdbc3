import Dispatch

extension Promise {
    /// Blocks the calling thread until the promise resolves, then returns the value or throws
    /// the error. For scripts, command-line tools and tests; async code uses `async()` instead.
    ///
    /// It warns only where it can hang for good: called while the promise is pending on a
    /// queue from ``PMKConfiguration/Q``, it logs ``LogEvent/waitOnHandlerQueue`` (or, on the
    /// main thread when `.main` is one of those queues, ``LogEvent/waitOnMainThread``), since
    /// handlers on that queue cannot run until `wait()` returns, so a chain that needs one never
    /// resolves. It does not know which queues a chain's `on:` arguments name: waiting on a
    /// serial queue that a handler of the same chain needs hangs without a warning. With the
    /// default ``PMKConfiguration/Q``, the main thread of a command-line tool waits silently.
    /// On the main thread, it runs the chain's main-actor handlers itself, in order, as they come
    /// (in Swift 6 the closures of a tool's `main.swift` are on the main actor), so that they do
    /// not wait for a main queue nothing drains.
    ///
    /// Do not call it from inside a handler to wait for a promise further down the same chain:
    /// that promise cannot resolve before the handler returns, so the wait never ends. (Waiting
    /// for the promise whose handler is running returns at once: it is already resolved.)
    ///
    /// ```swift
    /// let user = try fetchUser(id).wait()
    /// ```
    ///
    /// - Returns: The value.
    /// - Throws: The error the promise was rejected with.
    @available(*, noasync, message: "wait() blocks the thread; use `try await promise.async()` instead")
    public func wait() throws -> T {
        try blockUntilResolved(self) { self.result }.get()
    }
}

extension Guarantee {
    /// Blocks the calling thread until the guarantee has its value, then returns it. For
    /// scripts, command-line tools and tests; async code uses `async()` instead.
    ///
    /// Logs as ``Promise/wait()`` does: only when called while the guarantee is pending, on a
    /// queue from ``PMKConfiguration/Q`` (the main thread, when `.main` is one of them).
    ///
    /// - Returns: The value.
    @available(*, noasync, message: "wait() blocks the thread; use `await guarantee.async()` instead")
    public func wait() -> T {
        blockUntilResolved(self) { self.value }
    }
}

/// Blocks until `thenable` resolves and returns what `resolved` reads from it, logging the
/// waits that may hang.
///
/// - Parameter resolved: Reads the resolved state; returns `nil` while `thenable` is pending.
func blockUntilResolved<U: Thenable, V>(_ thenable: U, _ resolved: () -> V?) -> V {
    // Only a wait that blocks a queue the chain's default handlers run on can hang for good:
    // waiting anywhere else (the main thread of a tool whose `Q` is not `.main`, say) is fine.
    if thenable.isPending, HandlerQueueTag.currentIsConfiguredQueue() {
        conf.log(MainThread.isCurrent ? .waitOnMainThread : .waitOnHandlerQueue)
    }
    let semaphore = DispatchSemaphore(value: 0)
    thenable.pipe { _ in semaphore.signal() }
    // Work this thread's handlers left to their running loop, being nested too deep, would run
    // only once the handler returns: it may be what resolves `thenable`, so it runs now.
    if resolved() == nil { ThreadRun.runLeftWork() }
    guard MainThread.isCurrent else {
        while true {
            if let value = resolved() { return value }
            semaphore.wait()
        }
    }
    // On the main thread, main-actor handlers cannot run in their main-queue blocks until this
    // returns: it runs them, as they arrive (see `MainActorLane`).
    return MainActorLane.waiting(on: semaphore) {
        while true {
            if let value = resolved() { return value }
            if !MainActorLane.runNext() { semaphore.wait() }
        }
    }
}
