import Foundation

/// A thread-safe log of what handlers saw, to assert on after waiting for them.
///
/// Handlers run on other threads, where `#expect` cannot tell which test it belongs to; they
/// record here and the test body asserts.
final class Recorder<Element: Sendable>: @unchecked Sendable {
    // Safety: `elements` is only touched while `lock` is held.
    private var elements: [Element] = []
    private let lock = NSLock()

    init() {}

    func append(_ element: Element) {
        lock.withLock { elements.append(element) }
    }

    /// What was recorded so far, in order.
    var all: [Element] {
        lock.withLock { elements }
    }
}
