import Synchronization

// What the floors of W3 and W4 share: the objects PromiseKit's object model requires, with none
// of Pledge's logic. Each workload sizes its own box like Pledge's; these are the parts that do
// not depend on the size.

/// A floor's promise: an object that keeps its box.
final class FloorPromise<Box: AnyObject & Sendable>: Sendable {
    let box: Box

    init(_ box: Box) {
        self.box = box
    }
}

extension Atomic where Value == UInt32 {
    /// Runs `write` under the lock bit of a floor box's state word, kept as Pledge's pending
    /// boxes keep it (bit 4, over phase 0, spinning while another thread holds it), then drops
    /// the lock and publishes `phase` with one release store.
    func withFloorLock(publishing phase: UInt32, _ write: () -> Void) {
        while !compareExchange(expected: 0, desired: 4, ordering: .acquiring).exchanged {}
        write()
        store(phase, ordering: .releasing)
    }
}
