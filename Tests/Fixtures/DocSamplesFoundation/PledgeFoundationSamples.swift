// The Swift samples of Sources/PledgeFoundation/PledgeFoundation.docc/PledgeFoundation.md,
// verbatim, compiled by every build so that they cannot rot. Keep them in step with the article.

import Foundation
import Pledge
import PledgeFoundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Notification.Name {
    static let configurationDidChange = Notification.Name("configurationDidChange")
    static let downloadDidFinish = Notification.Name("downloadDidFinish")
    static let serverReady = Notification.Name("serverReady")
}

enum PledgeFoundationSamples {
    struct User: Decodable, Sendable {
        let name: String
    }
    struct Settings: Decodable, Sendable {
        let verbose: Bool
    }
    static func show(_ user: User) {}
    static func report(_ error: Error) {}
    static func open(_ file: URL) {}
    static func apply(_ settings: Settings) {}
    static func start() {}
    static func giveUp() {}

    static func requests(url: URL, destination: URL) {
        URLSession.shared.dataTask(.promise, with: url).validate().map { data, _ in
            try JSONDecoder().decode(User.self, from: data)
        }.done { user in
            show(user)
        }.catch { error in
            report(error)
        }

        URLSession.shared.downloadTask(.promise, with: url, to: destination).done { saved, _ in
            open(saved)
        }.catch { error in
            report(error)
        }
    }

    static func cancelRequest(url: URL) {
        let request = URLSession.shared.dataTask(.promise, with: url)
        // The user navigated away:
        request.cancel()  // cancels the URLSessionTask; request.isCancelled is true
    }

    static func runProcess() {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/git")
        process.arguments = ["rev-parse", "HEAD"]
        process.launch(.promise).map { out, _ in
            String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        }.done { head in
            print(head)
        }.catch { error in
            print(error.localizedDescription)
        }
    }

    static func terminate(_ process: Process) {
        let build = process.launch(.promise, terminationGracePeriod: .seconds(2))
        // Later:
        build.cancel()  // SIGTERM now, SIGKILL two seconds later if it is still running
    }

    static func readFile(settingsURL: URL) {
        FileHandle.readToEnd(.promise, contentsOf: settingsURL).map { data in
            try JSONDecoder().decode(Settings.self, from: data)
        }.done { settings in
            apply(settings)
        }.catch { error in
            report(error)
        }
    }

    static func waitForNotifications() {
        NotificationCenter.default.observe(once: .configurationDidChange).done { snapshot in
            print(snapshot.userInfo["reason"] ?? "no reason given")
        }

        NotificationCenter.default.observe(once: .downloadDidFinish) { notification in
            notification.userInfo?["bytes"] as? Int ?? 0
        }.done { bytes in
            print("downloaded \(bytes) bytes")
        }

        let ready: Promise<NotificationSnapshot> = NotificationCenter.default.observe(once: .serverReady)
        ready.timeout(seconds: 30).done { _ in start() }.catch { _ in giveUp() }
    }

    static func cancellationErrors() {
        let cancelled = URLError(.cancelled).isCancelled  // true
        let message = PMKError.timedOut.localizedDescription  // "The thenable passed to timeout() …"
        print(cancelled, message)
    }
}

/// The Retry-After recipe of the Pledge catalog's "Cancellation and time" article.
enum RetryAfterSample {
    static let reportURL = URL(string: "https://example.com/report")!

    static func fetch() {
        let honourRetryAfter: @Sendable (any Error, Int) -> RetryDecision = { error, _ in
            if error.isCancelled { return .stop }
            if let wait = (error as? PMKHTTPError)?.retryAfter { return .retry(after: wait) }
            return .retry
        }
        let report = retry(attempts: 5, backoff: .exponential(initial: .milliseconds(200)), decide: honourRetryAfter) {
            URLSession.shared.dataTask(.promise, with: reportURL).validate()
        }
        _ = report
    }
}
