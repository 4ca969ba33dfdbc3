import Dispatch
import Testing

@testable import Pledge

private actor Numbers {
    var numbers: [Int] = []

    func append(_ number: Int) {
        preconditionIsolated()
        numbers.append(number)
    }
}

/// Both ways `ActorDispatcher` reaches an actor keep one thread's order and run isolated to the
/// actor: `Task.immediate` where the system has it, and, for older systems, plain tasks, which
/// reach the actor in any order (run here too, so that Linux CI covers it).
@Suite struct ActorDispatcherTests {
    @Test(arguments: [false, true])
    func bodiesReachTheActorInTheOrderOneThreadDispatchedThem(throughPlainTasks: Bool) async {
        let numbers = Numbers()
        let dispatcher = ActorDispatcher(numbers)
        let count = 300
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                for number in 0..<count {
                    // `assumeIsolated` traps unless the dispatcher ran the body on the actor.
                    let body: @Sendable () -> Void = {
                        numbers.assumeIsolated { $0.append(number) }
                        if number == count - 1 { continuation.resume() }
                    }
                    dispatcher.dispatch(body, throughPlainTask: throughPlainTasks)
                }
            }
        }
        #expect(await numbers.numbers == Array(0..<count))
    }
}
