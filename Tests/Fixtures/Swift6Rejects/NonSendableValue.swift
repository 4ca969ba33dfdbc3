// expected-error: does not conform to the 'Sendable' protocol
import Pledge

final class Counter {
    var value = 0
}

func makePromise() -> Promise<Counter> {
    Promise.value(Counter())
}
