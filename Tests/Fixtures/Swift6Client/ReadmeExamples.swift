// The code samples of README.md, verbatim, compiled by every build. `.ci/check-doc-samples`
// fails when a README sample is missing here: edit both together. (The install snippet and the
// quick start are built and run by `.ci/check-install`; the cancellation sample, which needs
// URLSession, is in Tests/Fixtures/DocSamplesFoundation.)

import Dispatch
import Foundation
import Pledge

enum ReadmeExamples {
    struct User: Sendable {
        let id: Int
        let name: String
    }
    struct Avatar: Sendable {}
    struct File: Sendable {}
    struct Quote: Sendable {}
    struct Client: Sendable { func user(id: Int) async throws -> User { User(id: id, name: "x") } }
    struct Connection: Sendable { func send(_ quote: Quote) {} }
    struct Logger: Sendable { func warning(_ message: String) {} }

    static let client = Client()
    static let connection = Connection()
    static let connectionQueue = DispatchQueue(label: "connection")
    static let logger = Logger()

    static func fetchUser(id: Int) -> Promise<User> { Promise.value(User(id: id, name: "x")) }
    static func fetchAvatar(id: Int) -> Promise<Avatar> { Promise.value(Avatar()) }
    static func fetchFromMirror(_ number: Int) -> Promise<File> { Promise.value(File()) }
    static func download(_ url: String) -> Promise<File> { Promise.value(File()) }
    static func cachedAvatar(for user: User) -> Guarantee<Avatar> { Guarantee.value(Avatar()) }
    static func loadQuote(_ symbol: String) -> Promise<Quote> { Promise.value(Quote()) }
    static func show(_ values: Any...) {}
    static func save(_ files: [File]) {}
    @Sendable static func report(_ error: Error) {}

    static func combining(ids: [Int], downloads: [Promise<File>], urlList: [String]) {
        // All of them; values in input order. The first rejection rejects at once.
        when(fulfilled: ids.map { fetchUser(id: $0) }).done { users in
            show(users)
        }.catch(report)

        // Different types, as a tuple.
        when(fulfilled: fetchUser(id: 1), fetchAvatar(id: 1)).done { user, avatar in
            show(user, avatar)
        }.catch(report)

        // Every result, successes and failures alike; a Guarantee, it never rejects.
        when(resolved: downloads).done { results in
            save(results.compactMap { try? $0.get() })
        }

        // At most 3 downloads in flight, made one at a time as earlier ones finish.
        var urls = urlList.makeIterator()
        let nextDownload = AnyIterator { urls.next().map { download($0) } }
        when(fulfilled: nextDownload, concurrently: 3).done { files in
            save(files)
        }.catch(report)

        // The first to resolve wins. (For a time limit, use `timeout`: see below.)
        race(fetchFromMirror(1), fetchFromMirror(2)).done { file in
            save([file])
        }.catch(report)
    }

    static func asyncBridge() async throws {
        // async → Promise, the same as Promise(task:)
        func fetchUser(id: Int) -> Promise<User> {
            Promise { try await client.user(id: id) }
        }

        let user = try await fetchUser(id: 42).async()  // Promise → async: throws its error
        let avatar = await cachedAvatar(for: user).async()  // Guarantee → async: cannot throw
        _ = avatar
    }

    static func configure() {
        conf.Q = (map: .main, return: .main)  // PromiseKit's defaults
        conf.Q.map = .global()  // or change one of them
        conf.catchPolicy = .allErrors  // let `catch` see cancellations too
        conf.logHandler = { event in logger.warning("\(event.message)") }
    }

    static func dropping(symbol: String) {
        let client = InvalidatableQueue(queue: connectionQueue)  // one per client connection
        loadQuote(symbol).done(on: client) { quote in connection.send(quote) }.cauterize()
        client.invalidate()  // the client went away: a late quote is dropped, never sent
    }
}

// Migrating from PromiseKit, item 6.
private func fetchName() -> Promise<String> { Promise.value("name") }

@MainActor final class ReadmeViewModel {
    var title = ""

    func load() async throws {
        fetchName().done { self.title = $0 }.cauterize()
        fetchName().done(on: .main) { self.title = $0 }.cauterize()

        title = try await fetchName().async()  // in an async method
    }
}
