// Not a build target: the baseline `.ci/check-typecheck` divides LongChain.swift's time by. The
// same twelve closures, in the same order and with the same annotations, through a chain type
// with one overload per step and no queues: what type checking the closures costs by itself,
// so that the ratio measures what Pledge's overloads add, whatever the machine's speed.

struct Step<Value> {
    func map<U>(on _: Int?, _ body: (Value) throws -> U) -> Step<U> { Step<U>() }
    func map<U>(_ body: (Value) throws -> U) -> Step<U> { Step<U>() }
    func then<U>(_ body: (Value) throws -> Step<U>) -> Step<U> { Step<U>() }
    func get(_ body: (Value) throws -> Void) -> Step<Value> { self }
    func compactMap<U>(_ body: (Value) throws -> U?) -> Step<U> { Step<U>() }
    func recover(_ body: (Error) throws -> Step<Value>) -> Step<Value> { self }
    func tap(_ body: (Result<Value, Error>) -> Void) -> Step<Value> { self }
    func ensure(_ body: () -> Void) -> Step<Value> { self }
    func done(_ body: (Value) throws -> Void) -> Step<Void> { Step<Void>() }
    func `catch`(_ body: (Error) -> Void) {}
}

func fetchStep(_ id: Int) -> Step<User> { Step() }

func baselineChain(q: Int) {
    fetchStep(1).map(on: q) { user -> Int in
        let n = user.name.count
        return n * 2
    }.then { n in
        fetchStep(n)
    }.map { user -> String in
        let s = user.name.uppercased()
        return s + "!"
    }.get { s in
        print(s)
    }.compactMap { s -> Int? in
        let v = Int(s.count)
        return v > 0 ? v : nil
    }.recover { error -> Step<Int> in
        if case AppError.bad = error { return Step() }
        throw error
    }.map(on: nil) { v -> Int in
        let w = v + 1
        return w * 3
    }.tap { result in
        print(result)
    }.ensure {
        print("ensure")
    }.done { v in
        let z = v - 1
        print(z)
    }.catch { error in
        print(error)
    }
}
