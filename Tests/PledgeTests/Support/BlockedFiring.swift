import Dispatch
import Pledge

/// A pending promise whose first handler blocks the thread that resolves it: the promise is
/// then resolved but still firing, for as long as a test likes.
///
/// The blocking handler is attached from a thread of its own, so it is no earlier handler of
/// the test's thread: handlers the test attaches wait only for their own thread's earlier ones.
/// Attach more handlers with ``promise``, call ``resolve()`` to fulfil the promise from another
/// thread and wait until the blocking handler is running, then ``release()`` it and
/// ``waitUntilResolved()`` for `fulfill` to return.
final class BlockedFiring: Sendable {
    let promise: Promise<Int>
    private let resolver: Resolver<Int>
    private let running = DispatchSemaphore(value: 0)
    private let released = DispatchSemaphore(value: 0)
    private let resolved = DispatchSemaphore(value: 0)

    /// - Parameter blocked: called first in the blocking handler, on the resolving thread.
    init(blocked: @escaping @Sendable () -> Void = {}) {
        (promise, resolver) = Promise<Int>.pending()
        let attached = DispatchSemaphore(value: 0)
        DispatchQueue.global().async { [promise, running, released] in
            promise.pipe { _ in
                blocked()
                running.signal()
                _ = released.wait(timeout: .testTimeout)
            }
            attached.signal()
        }
        attached.wait()
    }

    /// Fulfils the promise with 1 on another thread.
    ///
    /// - Returns: whether the blocking handler started in time.
    func resolve() -> Bool {
        DispatchQueue.global().async { [resolver, resolved] in
            resolver.fulfill(1)
            resolved.signal()
        }
        return running.wait(timeout: .testTimeout) == .success
    }

    /// Lets the blocking handler return.
    func release() {
        released.signal()
    }

    /// Whether the resolving thread's `fulfill` returned in time.
    func waitUntilResolved() -> Bool {
        resolved.wait(timeout: .testTimeout) == .success
    }
}
