import Dispatch
import Foundation

/// Runs `body` on a thread with a 512 KiB stack (a secondary thread's size on Apple platforms)
/// and waits for it: recursion per link of a long chain would overflow it and crash.
///
/// - Returns: whether `body` finished in time.
func onASmallStack(_ body: @escaping @Sendable () -> Void) -> Bool {
    onAThreadOfItsOwn(stackSize: 512 * 1024, timeout: .now() + 300, body)
}

/// Runs `body` on a new thread and waits for it, for at most `timeout`: for code that would
/// hang the test's own thread if it deadlocked.
///
/// - Returns: whether `body` finished in time.
func onAThreadOfItsOwn(
    stackSize: Int? = nil, timeout: DispatchTime = .testTimeout, _ body: @escaping @Sendable () -> Void
) -> Bool {
    let finished = DispatchSemaphore(value: 0)
    let thread = Thread {
        body()
        finished.signal()
    }
    if let stackSize { thread.stackSize = stackSize }
    thread.start()
    return finished.wait(timeout: timeout) == .success
}
