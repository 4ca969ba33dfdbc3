// The async/await way of doing what W2, W3 and W4 do, shown next to them as references so
// users can weigh the trade-off. They are not baselines: `--compare` does not judge against
// them. Each runs in a detached task on the global concurrent executor, with the main thread
// waiting (see `runBlocking`).

enum AsyncWorkloads {
    /// For W2: a `CheckedContinuation` resumed with a value, the value mapped and consumed; per
    /// iteration. The continuation is resumed inside its closure (as W2 fulfils on the same
    /// thread), so the task does not really suspend.
    static func continuation(_ scale: Scale) -> Workload {
        let iterations = scale.pick(full: 200_000, quick: 20_000)
        return Workload(
            name: "async/await: CheckedContinuation, resume, await", unit: "ns/iteration",
            sample: .async {
                let start = now()
                for i in 0..<iterations {
                    let value = await withCheckedContinuation { (continuation: CheckedContinuation<Int, Never>) in
                        continuation.resume(returning: i)
                    }
                    blackHole(value &+ 1)
                }
                return Double(now() - start) / Double(iterations)
            })
    }

    /// For W3: `steps` awaits in a row, each hopping onto an actor and back; per step.
    static func actorHops(_ steps: Int) -> Workload {
        Workload(
            name: "async/await: \(steps) awaits hopping to an actor", unit: "ns/step",
            sample: .async {
                let stepper = Stepper()
                let start = now()
                var value = 0
                for _ in 0..<steps {
                    value = await stepper.step(value)
                }
                let elapsed = now() - start
                Failures.shared.check(value == steps, "W3 actor chain ended with \(value), expected \(steps)")
                return Double(elapsed) / Double(steps)
            })
    }

    /// For W4: a task group of `count` children, each returning a value, collected into an
    /// array (in completion order, not input order as `when` keeps it); per element.
    static func taskGroup(_ count: Int) -> Workload {
        Workload(
            name: "async/await: task group of \(count) children", unit: "ns/element",
            sample: .async {
                let start = now()
                let values = await withTaskGroup(of: Int.self, returning: [Int].self) { group in
                    for index in 0..<count {
                        group.addTask { index }
                    }
                    var values: [Int] = []
                    values.reserveCapacity(count)
                    for await value in group {
                        values.append(value)
                    }
                    return values
                }
                let elapsed = now() - start
                Failures.shared.check(values.count == count, "W4 task group gave \(values.count) values")
                return Double(elapsed) / Double(count)
            })
    }
}

/// The actor W3's reference hops to.
private actor Stepper {
    func step(_ value: Int) -> Int {
        value &+ 1
    }
}
