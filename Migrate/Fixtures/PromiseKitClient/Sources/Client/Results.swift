import Foundation
import PromiseKit

// Patterns of real PromiseKit client code that "change the import" alone does not move: its own
// `Result<T>` and the cases `.fulfilled`/`.rejected`, code bridging to a callback API, and the
// results of `when(resolved:)`.

enum ClientError: Error {
    case empty
}

/// A callback API as SDKs write them over PromiseKit: the promise's result handed on.
func loadCount(_ text: String, completion: @escaping (PromiseKit.Result<Int>) -> Void) {
    parse(text).pipe { result in completion(result) }
}

func parse(_ text: String) -> Promise<Int> {
    Promise { seal in
        guard let value = Int(text) else { return seal.reject(ClientError.empty) }
        seal.fulfill(value)
    }
}

func describe(_ result: Result<Int>) -> String {
    switch result {
    case .fulfilled(let value): return "fulfilled \(value)"
    case .rejected(let error): return "rejected \(error)"
    }
}

/// Counts the inputs that parsed, whatever the others did.
func countParsed(_ texts: [String]) -> Guarantee<Int> {
    when(resolved: texts.map(parse)).map { results in
        results.filter { result in
            if case .fulfilled = result { return true }
            return false
        }.count
    }
}

extension Result {
    /// The value, if fulfilled: a member PromiseKit's `Result` lacks, which clients add.
    var valueIfAny: T? {
        if case .fulfilled(let value) = self { return value }
        return nil
    }
}

/// An SDK's bridge from Swift's `Result` to PromiseKit's, and a `resolve` that takes Swift's:
/// once migrated, the same as Pledge's own `resolve(_:)`, which it would call for ever;
/// pledge-migrate removes it.
extension Swift.Result {
    var promiseResult: PromiseKit.Result<Success> {
        switch self {
        case .success(let value): return .fulfilled(value)
        case .failure(let error): return .rejected(error)
        }
    }
}

extension Resolver {
    func resolve(_ result: Swift.Result<T, Error>) { resolve(result.promiseResult) }
}

func parseWithSwiftResult(_ text: String) -> Promise<Int> {
    Promise { seal in
        let result: Swift.Result<Int, Error> = Int(text).map { .success($0) } ?? .failure(ClientError.empty)
        seal.resolve(result)
    }
}
