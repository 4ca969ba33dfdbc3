/// A first-in, first-out queue: appends at the back, takes from the front.
///
/// Taking moves an index instead of shifting the array; the taken prefix is dropped once it
/// outweighs the rest, so every element costs amortised O(1). Used by the dispatchers in
/// `Dispatch/` for bodies waiting to start and for the start times of a rate window.
struct FIFOQueue<Element> {
    private var storage: [Element?] = []
    private var head = 0

    init() {}

    /// Whether no element is waiting.
    var isEmpty: Bool { head == storage.count }

    /// How many elements are waiting.
    var count: Int { storage.count - head }

    /// The element that ``popFirst()`` would return, left in place.
    var first: Element? { isEmpty ? nil : storage[head] }

    /// Adds `element` at the back.
    mutating func append(_ element: Element) {
        storage.append(element)
    }

    /// Removes and returns the front element, or `nil` when the queue is empty.
    ///
    /// The element is moved out, not released here, so that a caller holding a lock can hand
    /// it on and let it go after unlocking.
    mutating func popFirst() -> Element? {
        guard head < storage.count else { return nil }
        let element = storage[head]
        storage[head] = nil
        head += 1
        if head == storage.count {
            storage.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 32 && head * 2 >= storage.count {
            // Only empty slots go, so nothing is released here.
            storage.removeFirst(head)
            head = 0
        }
        return element
    }
}

extension FIFOQueue: Sendable where Element: Sendable {}
