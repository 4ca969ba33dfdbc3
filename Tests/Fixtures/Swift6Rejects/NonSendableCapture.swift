// expected-error: capture of 'counter' with non-Sendable type 'Counter' in a '@Sendable' closure
import Pledge

final class Counter {
    var value = 0
}

func attach(_ promise: Promise<Int>) {
    let counter = Counter()
    _ = promise.done { counter.value += $0 }
}
