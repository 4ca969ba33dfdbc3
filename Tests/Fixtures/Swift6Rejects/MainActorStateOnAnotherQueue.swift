// expected-error: main actor-isolated property 'name' can not be mutated from a Sendable closure
// A handler given a queue other than the main queue runs there, off the main actor: touching
// main-actor state from it is a data race, and Swift 6 rejects it.
import Dispatch
import Pledge

@MainActor
final class ProfileModel {
    var name = ""

    func load(on queue: DispatchQueue) {
        Promise.value("Ada").done(on: queue) { self.name = $0 }.catch(on: .main) { _ in self.name = "?" }
    }
}
