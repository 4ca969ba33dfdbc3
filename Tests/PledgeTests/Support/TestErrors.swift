import Pledge

/// Errors thrown and rejected with by the tests.
enum TestError: Error, Equatable, Sendable {
    case boom
    case other
    case numbered(Int)
}

/// A user-defined error that may stand for a cancellation.
struct TestCancellableError: CancellableError, Equatable, Sendable {
    var isCancelled: Bool
}
