import Dispatch
import Foundation

/// Runs `body` on a thread with a 512 KiB stack (a secondary thread's size on Apple platforms)
/// and waits for it: recursion per link of a long chain would overflow it and crash.
///
/// - Returns: whether `body` finished in time.
func onASmallStack(_ body: @escaping @Sendable () -> Void) -> Bool {
    let finished = DispatchSemaphore(value: 0)
    let thread = Thread {
        body()
        finished.signal()
    }
    thread.stackSize = 512 * 1024
    thread.start()
    return finished.wait(timeout: .now() + 300) == .success
}
