// The samples of Sources/Pledge/Pledge.docc/CommonPatterns.md, compiled by every build.
// `.ci/check-doc-samples` fails when a sample there is missing here: edit both together.

import Foundation
import Pledge
import PledgeTesting
import Synchronization
import Testing

enum CommonPatternsSamples {
    static func retrying() {
        func loadSettings() -> Promise<Settings> {
            retry(attempts: 4, backoff: .exponential(initial: .milliseconds(250), jitter: true)) {
                downloadSettings()
            }
        }
        _ = loadSettings
    }

    static func retryingSome() {
        let isTransient: @Sendable (Error) -> Bool = { error in
            guard !error.isCancelled else { return false }
            guard let error = error as? HTTPError else { return true }
            return error.status >= 500
        }
        let settings = retry(attempts: 4, backoff: .constant(.seconds(1)), shouldRetry: isTransient) {
            downloadSettings()
        }
        _ = settings
    }

    static func deadlines() {
        let settings = retry(attempts: 3) {
            downloadSettings().timeout(seconds: 2)  // each attempt: 2 seconds
        }.timeout(seconds: 5)  // all attempts together: 5 seconds
        _ = settings
    }

    final class SearchController: Sendable {
        private let current = Mutex<Promise<[String]>?>(nil)

        func search(_ text: String) -> Promise<[String]> {
            let search = searchService.search(text)
            let previous: Promise<[String]>? = current.withLock { current in
                defer { current = search }
                return current
            }
            previous?.cancel()
            return search
        }
    }

    static func limitingPromises() {
        func downloadAll(_ urls: [URL]) -> Promise<[Data]> {
            var remaining = urls.makeIterator()
            let downloads = AnyIterator { remaining.next().map { fetch($0) } }
            return when(fulfilled: downloads, concurrently: 4)
        }
        _ = downloadAll
    }

    static func limitingClosures() {
        let imageWork = ConcurrencyLimitedDispatcher(limit: 2)

        func thumbnail(for url: URL) -> Promise<Image> {
            fetch(url)
                .map(on: imageWork) { data in try decode(data) }
                .map(on: imageWork) { image in image.scaled(to: 128) }
        }
        _ = thumbnail
    }

    static func serving() {
        server.onRequest { request, respond in
            handle(request).done(on: nil) { response in respond(response) }
        }
    }

    @Suite struct Tests {
        @Test func greetsAKnownUser() async throws {
            let greeting = try await greetUser(id: 42).async()
            #expect(greeting == "Hello, user42")
        }

        @Test func rejectsAnUnknownUser() {
            #expect(throws: LookupError.self) {
                try greetUser(id: -1).wait()
            }
        }
    }

    @Suite struct RecordingTests {
        @Test(.pledgeScope) func aGreetingLogsNothing() async throws {
            let log = LogRecorder()
            try await log.record {
                _ = try await greetUser(id: 42).async()
            }
            #expect(log.events.isEmpty)
        }
    }

    static func namingTheResultType() {
        fetchUser(id: 42).map { user -> String in
            let parts = user.name.split(separator: " ")
            return parts.first.map(String.init) ?? user.name
        }.done { firstName in
            print(firstName)
        }.catch { error in
            showError(error)
        }
    }
}

// File scope: local functions captured by Sendable closures would have to be marked @Sendable.

final class DownloadDelegate: DownloaderDelegate {
    private let resolver: Resolver<Data>

    init(_ resolver: Resolver<Data>) { self.resolver = resolver }

    func downloader(_ downloader: Downloader, didFinishWith data: Data) { resolver.fulfill(data) }
    func downloader(_ downloader: Downloader, didFailWith error: Error) { resolver.reject(error) }
}

func download(_ url: URL) -> Promise<Data> {
    Promise { seal in
        let downloader = Downloader(url: url, delegate: DownloadDelegate(seal))
        seal.onCancel { downloader.cancel() }
        downloader.start()
    }
}

func handle(_ request: Request) -> Guarantee<HTTPResponse> {
    firstly {
        fetchUser(id: request.userID)
    }.then { user in
        fetchOrders(for: user)
    }.map(on: nil) { orders in
        HTTPResponse(status: 200, body: orders.map { "\($0.id)" }.joined(separator: "\n"))
    }.timeout(seconds: 2).recover { error in
        Guarantee.value(HTTPResponse(status: status(for: error), body: "\(error)"))
    }
}

func status(for error: Error) -> Int {
    switch error {
    case PMKError.timedOut: 504
    case let error as HTTPError: error.status
    default: 500
    }
}

enum RequestLog {
    @TaskLocal static var requestID: String?
}

func startServer() {
    conf.propagate(RequestLog.$requestID)
    conf.propagate(ServiceContext.$current)
}

func answer(_ request: Request, id: String) async throws -> HTTPResponse {
    try await RequestLog.$requestID.withValue(id) {
        try await fetchUser(id: request.userID).map { user in
            log("found \(user.name)")  // logs with `id`, on whichever queue `map` runs
            return HTTPResponse(status: 200, body: user.name)
        }.async()
    }
}
