// PromiseKit-style calls of `when`, `race` and `retry` that must keep compiling, and keep their
// PromiseKit meaning, now that every form also takes a trailing `file:` and `line:`.

import Pledge

enum CombinatorOverloads {
    static func emptyArrays() -> (Promise<[Int]>, Promise<[Int]>, Promise<Void>) {
        (when(fulfilled: [Promise<Int>]()), when(fulfilled: [] as [Promise<Int>]), when(fulfilled: [Promise<Void>]()))
    }

    static func twoOfTheSameTypeMakeATuple(a: Promise<Int>, b: Promise<Int>) {
        when(fulfilled: a, b).done { x, y in _ = x + y }.cauterize()
        firstly { when(fulfilled: a, b) }.done { x, y in _ = x + y }.cauterize()
    }

    static func twoVoidPromises(a: Promise<Void>, b: Promise<Void>) -> Promise<Void> {
        when(fulfilled: a, b).done { print("both") }.cauterize()
        return when(fulfilled: a, b)
    }

    static func aPromiseAndAGuarantee(a: Promise<Int>, b: Guarantee<String>) {
        when(fulfilled: a, b).done { x, y in _ = (x, y) }.cauterize()
    }

    static func fiveMakeATuple(a: Promise<Int>) -> Promise<(Int, Int, Int, Int, Int)> {
        when(fulfilled: a, a, a, a, a)
    }

    static func voidsOfAnArray(_ promises: [Promise<Int>]) -> Promise<Void> {
        when(fulfilled: promises.map { $0.asVoid() })
    }

    static func mixedThenables(a: Promise<Int>, b: Guarantee<String>) -> Promise<[any Sendable]> {
        let all: [any Thenable] = [a, b]
        return when(fulfilled: all)
    }

    static func resolvedGuarantees(g: Guarantee<Int>, h: Guarantee<Int>) {
        when(resolved: g, h).done { results in _ = results.count }
        when(resolved: [g, h]).done { results in _ = results.count }
    }

    static func resolvedPromises(a: Promise<Int>, b: Promise<Int>) -> Guarantee<[Result<Int, Error>]> {
        when(resolved: [a, b]).done { results in
            for case .success(let value) in results { _ = value }
        }
        return when(resolved: a, b)
    }

    static func guarantees(g: Guarantee<Int>, h: Guarantee<String>, voids: [Guarantee<Void>]) -> Guarantee<Void> {
        when(guarantees: g, h).done { x, y in _ = (x, y) }
        _ = when(g, g) as Guarantee<[Int]>
        return when(guarantees: voids)
    }

    static func races(a: Promise<Int>, g: Guarantee<Int>) -> (Guarantee<Int>, Promise<Int>, Promise<Int>, Promise<Int>)
    {
        (race(g, g), race([g, g]), race(fulfilled: [g, g]), race(fulfilled: [a, a]))
    }

    static func nested(a: Promise<Int>) -> Promise<Int> {
        race(when(fulfilled: a, a).map { $0 + $1 }, a)
    }

    static func retries() -> [Promise<Int>] {
        [
            retry { Promise.value(1) },
            retry(attempts: 2) { Promise.value(1) },
            retry(attempts: 2, backoff: .constant(.milliseconds(1))) { Promise.value(1) },
            retry(shouldRetry: { _ in true }, { Promise.value(1) }),
        ]
    }

    static func concurrently() -> Promise<[Int]> {
        when(fulfilled: (0..<3).map { Promise.value($0) }.makeIterator(), concurrently: 2)
    }

    static func asFunctions(
        promises: Promise<[Guarantee<Int>]>, groups: [[Promise<Int>]], voids: [[Promise<Void>]],
        guaranteeGroups: [[Guarantee<Int>]]
    ) {
        _ = promises.then(when(resolved:)) as Promise<[Result<Int, Error>]>
        _ = promises.then(when(guarantees:)) as Promise<[Int]>
        _ = promises.then(race(_:)) as Promise<Int>
        _ = groups.map(when(fulfilled:)) as [Promise<[Int]>]
        _ = voids.map(when(fulfilled:)) as [Promise<Void>]
        _ = guaranteeGroups.map(when(resolved:)) as [Guarantee<[Result<Int, Error>]>]
        _ = guaranteeGroups.map(race(fulfilled:)) as [Promise<Int>]
    }
}
