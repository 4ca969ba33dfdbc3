import Dispatch
import Pledge

// Helpers for the tests of the time operators (`timeout`, `delay`, `retry`, `Backoff`).

/// The uptime now, in nanoseconds.
func timeNow() -> UInt64 {
    DispatchTime.now().uptimeNanoseconds
}

/// `interval` in nanoseconds, for lower bounds on measured times.
func timeNanoseconds(_ interval: DispatchTimeInterval) -> UInt64 {
    switch interval {
    case .seconds(let count): return UInt64(max(count, 0)) * 1_000_000_000
    case .milliseconds(let count): return UInt64(max(count, 0)) * 1_000_000
    case .microseconds(let count): return UInt64(max(count, 0)) * 1_000
    case .nanoseconds(let count): return UInt64(max(count, 0))
    case .never: return .max
    }
}

/// Blocks the calling thread for `milliseconds`: only for tests whose subject is a timer, to let
/// it run (or show that it does not), never to order events.
func timeLetTimersRun(milliseconds: Int) {
    _ = DispatchSemaphore(value: 0).wait(timeout: .now() + .milliseconds(milliseconds))
}

extension Thenable {
    /// The result and when it settled (uptime nanoseconds), waiting up to the test timeout;
    /// `nil` if it is still pending then.
    func timedResult() -> (result: Result<T, Error>, at: UInt64)? {
        let settledAt = Locked<UInt64?>(nil)
        let settled = DispatchSemaphore(value: 0)
        pipe { _ in
            settledAt.value = timeNow()
            settled.signal()
        }
        guard settled.wait(timeout: .testTimeout) == .success, let result, let at = settledAt.value else {
            return nil
        }
        return (result, at)
    }
}

/// Whether `error` is the `PMKError` `expected`.
func timeIsPMKError(_ error: Error?, _ expected: PMKError) -> Bool {
    (error as? PMKError) == expected
}
