// The samples of Sources/Pledge/Pledge.docc/QueuesDispatchersAndThreads.md, compiled by every
// build. `.ci/check-doc-samples` fails when a sample there is missing here: edit both together.

import Dispatch
import Foundation
import Pledge

enum QueuesDispatchersAndThreadsSamples {
    static func defaults() {
        conf.Q = (map: .main, return: .main)
    }

    static func perHandler(url: URL, imageView: ImageView) {
        fetchImage(url)
            .map(on: .global(qos: .userInitiated)) { data in try decode(data) }
            .done(on: .main) { image in imageView.image = image }  // on the main queue, on the main actor
            .catch(on: .main) { error in showError(error) }
    }

    @MainActor final class ProfileModel {
        var name = ""
        var failed = false

        func load() {
            fetchUser().done { self.name = $0.name }.catch { _ in self.failed = true }
        }
    }

    actor Counters {
        var hits = 0

        func record(_ request: Promise<Int>) {
            request.done { self.hits += $0 }.cauterize()
        }
    }

    static func inline(download: Promise<Data>) {
        let length = download.map(on: nil) { $0.count }
        _ = length
    }

    static func customDispatcher(request: Promise<Data>) {
        struct EventLoopDispatcher: Dispatcher {
            let loop: MyEventLoop
            func dispatch(_ body: @escaping @Sendable () -> Void) { loop.execute(body) }
        }

        let loop = EventLoopDispatcher(loop: serverLoop)
        request.map(on: loop) { try parse($0) }
            .done(on: loop) { respond($0) }
            .catch(on: loop) { respond(error: $0) }
    }

    @MainActor final class Cell {
        let imageView = ImageView()
        var queue = InvalidatableQueue(queue: .main)

        func show(_ item: Item) {
            queue.invalidate()
            queue = InvalidatableQueue(queue: .main)
            loadThumbnail(item).done(on: queue) { [imageView] image in
                MainActor.assumeIsolated { imageView.image = image }
            }.cauterize()
        }
    }

    static func limits(urls: [URL], queries: [String]) {
        let downloads = ConcurrencyLimitedDispatcher(limit: 4)
        let api = RateLimitedDispatcher(maxDispatches: 10, perInterval: .seconds(1))

        // At most four pages are parsed at once, however many downloads finish together.
        let pages = urls.map { url in fetch(url).map(on: downloads) { try parse($0) } }
        // At most ten requests are sent per second.
        let replies = queries.map { query in Promise.value(query).then(on: api) { client.send($0) } }
        _ = (pages, replies)
    }

    static func lazyStart() {
        let report = Promise<Report>.lazy { seal in
            generateReport { seal.resolve($0, $1) }
        }
        // Nothing has run yet. Reading `isPending` or `value` does not start it.
        report.done { show($0) }.cauterize()  // starts it now
    }
}

/// The Actors section's producer.
private func fetchUser() -> Promise<User> { fetchUser(id: 1) }
