// A client written in Swift 6 language mode with complete concurrency checking. It must
// compile with zero warnings: values crossing threads are Sendable, and chains read as they
// do with PromiseKit.

import Dispatch
import Pledge

struct User: Sendable, Equatable {
    let id: Int
    let name: String
}

enum LookupError: Error {
    case notFound(Int)
}

/// Wraps a completion-handler API with a `Resolver`.
func legacyFetchName(id: Int, completion: @escaping @Sendable (String?, Error?) -> Void) {
    DispatchQueue.global().async {
        id > 0 ? completion("user\(id)", nil) : completion(nil, LookupError.notFound(id))
    }
}

func fetchUser(id: Int) -> Promise<User> {
    Promise { seal in
        legacyFetchName(id: id) { name, error in
            seal.resolve(name.map { User(id: id, name: $0) }, error)
        }
    }
}

func cachedAvatar(for user: User) -> Guarantee<String> {
    Guarantee.value("avatar-\(user.id).png")
}

/// An idiomatic chain: firstly, then, map, get, done, catch, finally.
func greet(id: Int, log: @escaping @Sendable (String) -> Void) {
    firstly {
        fetchUser(id: id)
    }.then { user in
        cachedAvatar(for: user).map { (user, $0) }
    }.map { user, avatar in
        "\(user.name) (\(avatar))"
    }.get { line in
        log("got \(line)")
    }.done { line in
        log("Hello, \(line)")
    }.catch { error in
        log("failed: \(error)")
    }.finally {
        log("finished")
    }
}

/// recover, ensure, compactMap, tap and a Guarantee chain.
func loadCount(text: String) -> Promise<Int> {
    Promise.value(text)
        .compactMap { Int($0) }
        .recover { _ in Promise.value(0) }
        .tap { result in _ = result }
        .ensure {}
}

func guaranteeChain() -> Guarantee<Int> {
    Guarantee.value(20)
        .map { $0 + 1 }
        .then { value in Guarantee.value(value * 2) }
        .get { _ in }
}

func recoverToGuarantee(_ promise: Promise<User>) -> Guarantee<String> {
    promise.map { $0.name }.recover { _ in Guarantee.value("anonymous") }
}

func customQueues() -> Promise<Void> {
    let queue = DispatchQueue(label: "client.work")
    return Promise.value(1)
        .map(on: queue) { $0 * 2 }
        .done(on: nil) { _ in }
        .ensureThen { Guarantee() }
}
