// Not a build target: the chain `.ci/check-typecheck` times the type checker over. Twelve
// operators written as users write them: multi-statement closures carry their return type (a
// limit of Swift's inference), single-expression ones do not. Keep it in step with
// Baseline.swift, which runs the same closures through a plain chain type.

import Dispatch
import Pledge

struct User: Sendable {
    let id: Int
    let name: String
}

enum AppError: Error { case bad }

func fetch(_ id: Int) -> Promise<User> { Promise.value(User(id: id, name: "u\(id)")) }

func longChain(q: DispatchQueue) -> PMKFinalizer {
    firstly {
        fetch(1)
    }.map(on: q) { user -> Int in
        let n = user.name.count
        return n * 2
    }.then { n in
        fetch(n)
    }.map { user -> String in
        let s = user.name.uppercased()
        return s + "!"
    }.get { s in
        print(s)
    }.compactMap { s -> Int? in
        let v = Int(s.count)
        return v > 0 ? v : nil
    }.recover { error -> Promise<Int> in
        if case AppError.bad = error { return .value(0) }
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
