// PromiseKit code that passes the array forms of `when` and `race` as functions.

import Pledge

enum FunctionReferences {
    static func all(_ promises: Promise<[Promise<Int>]>) -> Promise<[Int]> {
        promises.then(when(fulfilled:))
    }

    static func allVoid(_ promises: Promise<[Promise<Void>]>) -> Promise<Void> {
        promises.then(when(fulfilled:))
    }

    static func settled(_ promises: Guarantee<[Promise<Int>]>) -> Guarantee<[Result<Int, Error>]> {
        promises.then(when(resolved:))
    }

    static func values(_ guarantees: Guarantee<[Guarantee<Int>]>) -> Guarantee<[Int]> {
        guarantees.then(when(guarantees:))
    }

    static func first(_ promises: Promise<[Promise<Int>]>) -> Promise<Int> {
        promises.then(race(_:))
    }

    static func firstFulfilled(_ promises: Promise<[Promise<Int>]>) -> Promise<Int> {
        promises.then(race(fulfilled:))
    }

    static func asValues() {
        let settle: ([Promise<Int>]) -> Guarantee<[Result<Int, Error>]> = when(resolved:)
        let wait: ([Guarantee<Void>]) -> Guarantee<Void> = when(guarantees:)
        _ = (settle, wait)
    }
}
