// Stand-ins for the app, server and tool code that the documentation's samples call. Only their
// types matter: the samples are compiled, not run. `User` and `fetchUser(id:)` come from
// Swift6Client.swift.

import Dispatch
import Foundation
import Pledge

struct Image: Sendable {
    func scaled(to size: Int) -> Image { self }
}
struct Item: Sendable { let id: Int }
struct Report: Sendable {}
struct Profile: Sendable { let name: String }
struct Feed: Sendable {}
struct Order: Sendable { let id: Int }
struct Response: Sendable {}

struct HTTPError: Error {
    let status: Int
    var isClientError: Bool { (400..<500).contains(status) }
}

/// A URLSession-shaped client, so that the samples need no networking library.
final class Session: Sendable {
    func dataTask(
        with url: URL, completionHandler: @escaping @Sendable (Data?, Response?, Error?) -> Void
    ) -> DataTask { DataTask() }
}
final class DataTask: Sendable {
    func resume() {}
    func cancel() {}
}
let session = Session()

/// A view with an image, isolated to the main actor as UI objects are.
@MainActor final class ImageView {
    var image: Image?
}

func fetchReport(_ id: Int) -> Promise<Data> { Promise.value(Data()) }
func parse(_ data: Data) throws -> Report { Report() }
func fetchAvatar(for user: User) -> Promise<Image> { Promise.value(Image()) }
func fetchProfile(_ id: Int) -> Promise<Profile> { Promise.value(Profile(name: "")) }
func cachedProfile(_ id: Int) -> Promise<Profile> { Promise.value(Profile(name: "")) }
func fetchFeed() -> Promise<Feed> { Promise.value(Feed()) }
func fetchStatusCode() -> Promise<Int> { Promise.value(200) }
func saveDraft() -> Promise<Void> { Promise() }
func loadThumbnail(_ item: Item) -> Promise<Image> { Promise.value(Image()) }
func fetchImage(_ url: URL) -> Promise<Data> { Promise.value(Data()) }
func decode(_ data: Data) throws -> Image { Image() }
func generateReport(_ completion: @escaping @Sendable (Report?, Error?) -> Void) {}

func show(_ value: some Sendable) {}
func showAlert(_ error: Error) {}
func showError(_ error: Error) {}
func hideSpinner() {}
func log(_ message: String) {}

struct UserClient: Sendable {
    func user(id: Int) async throws -> User { User(id: id, name: "user\(id)") }
}
let client = UserClient()

extension UserClient {
    func send(_ query: String) -> Promise<Response> { Promise.value(Response()) }
}

/// An event loop of some server framework.
final class MyEventLoop: Sendable {
    func execute(_ body: @escaping @Sendable () -> Void) { DispatchQueue.global().async(execute: body) }
}
let serverLoop = MyEventLoop()

func fetch(_ url: URL) -> Promise<Data> { Promise.value(Data()) }
func respond(_ report: Report) {}
func respond(error: Error) {}
