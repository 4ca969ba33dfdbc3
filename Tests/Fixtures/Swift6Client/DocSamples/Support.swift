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
/// A progress indicator the samples start and stop.
final class Spinner: Sendable {
    func start() {}
    func stop() {}
}
let spinner = Spinner()
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

func fetchOrders(for user: User) -> Promise<[Order]> { Promise.value([]) }
func summarize(_ user: User) -> String { user.name }

struct Weather: Sendable {}
struct WeatherService: Sendable {
    func forecast(for city: String, completion: @escaping @Sendable (Weather?, Error?) -> Void) {}
    func fetch(city: String, completion: @escaping @Sendable (Result<Weather, Error>) -> Void) {}
}
let weatherService = WeatherService()

struct Dashboard: Sendable {
    let user: User
    let greeting: String
}
func greeting(for id: Int) -> Guarantee<String> { Guarantee.value("Hello") }

struct Logger: Sendable {
    func warning(_ message: String) {}
    func error(_ message: String) {}
}
let logger = Logger()

/// Just enough of PackageDescription to compile the manifest fragment of Getting Started.
enum Manifest {
    struct Dependency {
        static func package(path: String) -> Dependency { Dependency() }
    }
    struct TargetDependency {
        static func product(name: String, package: String) -> TargetDependency { TargetDependency() }
    }
    struct Target {
        static func target(name: String, dependencies: [TargetDependency]) -> Target { Target() }
    }
    struct Platform {
        struct Version {
            static let v2 = Version()
            static let v11 = Version()
            static let v15 = Version()
            static let v18 = Version()
        }
        static func macOS(_ version: Version) -> Platform { Platform() }
        static func iOS(_ version: Version) -> Platform { Platform() }
        static func tvOS(_ version: Version) -> Platform { Platform() }
        static func watchOS(_ version: Version) -> Platform { Platform() }
        static func visionOS(_ version: Version) -> Platform { Platform() }
    }
    struct Package {
        init(name: String, platforms: [Platform], dependencies: [Dependency], targets: [Target]) {}
    }
}

struct Settings: Sendable {}
func downloadSettings() -> Promise<Settings> { Promise.value(Settings()) }

struct SearchService: Sendable {
    func search(_ text: String) -> Promise<[String]> { Promise.value([]) }
}
let searchService = SearchService()

/// A delegate-based API: it holds its delegate until it finishes.
protocol DownloaderDelegate: AnyObject, Sendable {
    func downloader(_ downloader: Downloader, didFinishWith data: Data)
    func downloader(_ downloader: Downloader, didFailWith error: Error)
}
final class Downloader: Sendable {
    private let delegate: DownloaderDelegate
    init(url: URL, delegate: DownloaderDelegate) { self.delegate = delegate }
    func start() {}
    func cancel() {}
}

/// A stand-in for swift-service-context's `ServiceContext`, which this fixture does not depend on.
struct ServiceContext: Sendable {
    @TaskLocal static var current: ServiceContext?
}

struct Request: Sendable {
    let userID: Int
}
struct HTTPResponse: Sendable {
    let status: Int
    let body: String
}
/// A server framework that hands each request to a handler with a way to respond.
struct Server: Sendable {
    func onRequest(
        _ handler: @escaping @Sendable (Request, @escaping @Sendable (HTTPResponse) -> Void) -> Void
    ) {}
}
let server = Server()

func greetUser(id: Int) -> Promise<String> {
    fetchUser(id: id).map { "Hello, \($0.name)" }
}
