// The code examples of README.md, compiled by every build so that they cannot rot. Keep them
// in step with the README.

import Dispatch
import Foundation
import Pledge

enum ReadmeExamples {
    struct User: Sendable {
        let id: Int
        let name: String
    }
    struct Avatar: Sendable {}
    struct Timeout: Error {}
    struct File: Sendable {}
    static func legacyFetch(_ id: Int, _ completion: @escaping @Sendable (User?, Error?) -> Void) {}
    static func fetchUser(id: Int) -> Promise<User> {
        Promise { seal in
            legacyFetch(id) { user, error in seal.resolve(user, error) }
        }
    }
    static func fetchAvatar(id: Int) -> Promise<Avatar> { Promise.value(Avatar()) }
    static func download(_ url: String) -> Promise<File> { Promise.value(File()) }
    static func fetch() -> Promise<Int> { Promise.value(1) }
    static func cachedAvatar(for user: User) -> Guarantee<Avatar> { Guarantee.value(Avatar()) }

    static func quickStart() {
        firstly {
            fetchUser(id: 42)
        }.map { user in
            user.name.uppercased()
        }.done { name in
            print("Hello, \(name)")
        }.catch { error in
            print("Failed: \(error)")
        }.finally {
            print("finished")
        }
    }

    static func combining(ids: [Int], downloads: [Promise<File>], urlList: [String]) {
        when(fulfilled: ids.map { fetchUser(id: $0) }).done { users in _ = users }.cauterize()
        when(fulfilled: fetchUser(id: 1), fetchAvatar(id: 1)).done { user, avatar in _ = (user, avatar) }.cauterize()
        when(resolved: downloads).done { results in _ = results }
        var urls = urlList.makeIterator()
        let pending = AnyIterator { urls.next().map { download($0) } }
        when(fulfilled: pending, concurrently: 3).done { files in _ = files }.cauterize()
        race(fetch().asVoid(), after(seconds: 5).map { throw Timeout() }).catch { _ in }
        _ = DispatchQueue.global().async(.promise) { () throws -> Int in 42 }
    }

    static func asyncBridge() async throws {
        let user = try await fetchUser(id: 42).async()
        let avatar = await cachedAvatar(for: user).async()
        _ = avatar
    }

    struct Client: Sendable { func user(id: Int) async throws -> User { User(id: id, name: "x") } }
    static let client = Client()
    static func fetchUser2(id: Int) -> Promise<User> {
        Promise { try await client.user(id: id) }
    }

    static func configure() {
        conf.Q = (map: .main, return: .main)
        conf.Q.map = .global()
        conf.catchPolicy = .allErrors
        conf.logHandler = { event in print("\(event)") }
    }
}

// Migrating from PromiseKit, item 7. The README's version marks the conformance
// `@retroactive`, as a client in another package must; inside Pledge's own package the compiler
// rejects that attribute.
extension URLError: CancellableError {
    public var isCancelled: Bool { code == .cancelled }
}

// Migrating from PromiseKit, item 8.
private func fetchName() -> Promise<String> { Promise.value("name") }

@MainActor final class ReadmeViewModel {
    var title = ""

    func load() {
        fetchName().done(on: .main) { name in
            MainActor.assumeIsolated { self.title = name }
        }.cauterize()
    }

    func loadAsync() async throws {
        title = try await fetchName().async()
    }
}
