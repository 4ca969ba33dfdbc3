// expected-error: actor-isolated property 'count' can not be mutated from a Sendable closure
// A handler given a queue runs on that queue, outside the actor that wrote it: touching the
// actor's state from it is a data race, and Swift 6 rejects it.
import Dispatch
import Pledge

actor Counter {
    var count = 0

    func add(on queue: DispatchQueue) {
        Promise.value(1).done(on: queue) { self.count += $0 }.cauterize()
    }
}
