// The README.md samples that need URLSession, verbatim, compiled by every build.
// `.ci/check-doc-samples` fails when one is missing here: edit both together.

import Foundation
import Pledge
import PledgeFoundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

enum ReadmeFoundationExample {
    static func fetch(url: URL) {
        URLSession.shared.dataTask(.promise, with: url).validate().done { data, _ in
            print("\(data.count) bytes")
        }.catch { error in
            print("failed: \(error)")  // PMKHTTPError.badStatusCode for a status outside 200..<300
        }
    }

    struct Thumbnail: Sendable {}
    static func makeThumbnail(from data: Data) throws -> Thumbnail { Thumbnail() }
    static func show(_ thumbnail: Thumbnail) {}
    @Sendable static func showError(_ error: Error) {}

    static func cancelling(url: URL) {
        let thumbnail = retry(attempts: 3, backoff: .exponential(initial: .milliseconds(200), jitter: true)) {
            download(url).timeout(seconds: 10)  // each attempt gets 10 seconds
        }.map { data in
            try makeThumbnail(from: data)
        }
        thumbnail.done { show($0) }.catch { showError($0) }  // `catch` skips cancellations

        // The user closed the screen:
        thumbnail.cancel()  // rejects with PMKError.cancelled; stops the retries and the download
    }
}

private let session = URLSession.shared

func download(_ url: URL) -> Promise<Data> {
    Promise { seal in
        let task = session.dataTask(with: url) { data, _, error in seal.resolve(data, error) }
        seal.onCancel { task.cancel() }  // runs if the promise is cancelled
        task.resume()
    }
}
