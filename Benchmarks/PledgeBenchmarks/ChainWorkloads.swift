import Pledge

/// W1: a resolved promise through 10 `map(on: nil)` steps and a `done(on: nil)`; per map step.
let resolvedChain = Workload(name: "W1 resolved 10-step map chain", unit: "ns/map step", operations: 200_000) { n in
    for i in 0..<(n / 10) {
        var promise = Promise.value(i)
        for _ in 0..<10 {
            promise = promise.map(on: nil) { $0 &+ 1 }
        }
        blackHole(promise.done(on: nil) { blackHole($0) })
    }
}

/// Baseline for W1: the same ten additions through opaque closures.
let resolvedChainBaseline = Workload(name: "  baseline: 10 closure calls", unit: "ns/step", operations: 200_000) { n in
    let step = opaqueClosure { $0 &+ 1 }
    for i in 0..<(n / 10) {
        var value = i
        for _ in 0..<10 {
            value = step(value)
        }
        blackHole(value)
    }
}

/// W2: a pending promise, one `map(on: nil)`, one `done(on: nil)`, then fulfil; per iteration.
let pendingThenResolve = Workload(name: "W2 pending + map + done + fulfil", unit: "ns/iteration", operations: 200_000) { n in
    for i in 0..<n {
        let (promise, resolver) = Promise<Int>.pending()
        let done = promise.map(on: nil) { $0 &+ 1 }.done(on: nil) { blackHole($0) }
        resolver.fulfill(i)
        blackHole(done)
    }
}

/// Baseline for W2: a heap-allocated callback slot, set and then called.
let pendingThenResolveBaseline = Workload(name: "  baseline: callback slot", unit: "ns/iteration", operations: 200_000) { n in
    for i in 0..<n {
        let slot = CallbackSlot()
        slot.callback = opaqueClosure { blackHole($0 &+ 1) }
        slot.fire(i)
        blackHole(slot)
    }
}

/// The least a callback-based pending value can cost: one object holding one closure.
final class CallbackSlot {
    var callback: ((Int) -> Void)?
    func fire(_ value: Int) {
        callback?(value)
        callback = nil
    }
}

/// Hides a closure from the optimiser so the baseline cannot be folded away.
@inline(never)
func opaqueClosure<A, B>(_ body: @escaping (A) -> B) -> (A) -> B {
    body
}

/// `n` `map(on: nil)` steps on an already-resolved promise, for allocation counting.
func mapSteps(_ n: Int) {
    var promise = Promise.value(0)
    for _ in 0..<n {
        promise = promise.map(on: nil) { $0 &+ 1 }
    }
    blackHole(promise)
}
