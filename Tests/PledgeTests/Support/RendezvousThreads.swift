import Dispatch
import Foundation
import Synchronization

/// Starts real threads (not queue work items, whose pool may run them one after another) and
/// waits for all of them to finish.
enum RendezvousThreads {
    /// Runs `body(index)` for every index in `0..<count`, each on a new `Thread`, and blocks
    /// until all of them have returned or `timeout` seconds have passed.
    ///
    /// Every thread finishes with a release increment of an atomic counter that the caller
    /// reads with acquire ordering, so whatever the threads did happens before this method
    /// returns, in a way ThreadSanitizer can see without relying on how it models Dispatch.
    ///
    /// - Parameters:
    ///   - count: How many threads to start.
    ///   - stackSize: The stack size of each thread, in bytes; the platform default when `nil`.
    ///   - timeout: How long to wait, in seconds.
    ///   - body: The work of one thread; gets the thread's index.
    /// - Returns: Whether every thread finished in time.
    @discardableResult
    static func run(
        count: Int, stackSize: Int? = nil, timeout: Double = 120,
        _ body: @escaping @Sendable (Int) -> Void
    ) -> Bool {
        let finished = RendezvousFinishLine()
        let group = DispatchGroup()
        for index in 0..<count {
            group.enter()
            let thread = Thread {
                body(index)
                finished.cross()
                group.leave()
            }
            if let stackSize { thread.stackSize = stackSize }
            thread.start()
        }
        guard group.wait(timeout: .now() + timeout) == .success else { return false }
        return finished.crossed == count
    }
}

/// Counts threads that have finished; the acquire load in ``crossed`` sees everything they did.
private final class RendezvousFinishLine: Sendable {
    private let count = Atomic<Int>(0)

    func cross() {
        count.wrappingAdd(1, ordering: .releasing)
    }

    var crossed: Int {
        count.load(ordering: .acquiring)
    }
}
