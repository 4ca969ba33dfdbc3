// The samples of Sources/Pledge/Pledge.docc/CancellationAndTime.md, compiled by every build.
// `.ci/check-doc-samples` fails when a sample there is missing here: edit both together.

import Dispatch
import Foundation
import Pledge
import PledgeTestSupport
import Testing

enum CancellationAndTimeSamples {
    static func producer() {
        func download(_ url: URL) -> Promise<Data> {
            Promise { seal in
                let task = session.dataTask(with: url) { data, _, error in seal.resolve(data, error) }
                seal.onCancel { task.cancel() }
                task.resume()
            }
        }
        _ = download
    }

    static func steps() {
        func thumbnails(of images: [Image]) -> Promise<[Image]> {
            Promise { seal in
                DispatchQueue.global().async {
                    var thumbnails: [Image] = []
                    for image in images {
                        guard !seal.isCancelled else { return }  // the promise is rejected already
                        thumbnails.append(image.scaled(to: 128))
                    }
                    seal.fulfill(thumbnails)
                }
            }
        }
        _ = thumbnails
    }

    static func consumer(id: Int) {
        let report = fetchReport(id).map { try parse($0) }
        // The user navigated away:
        report.cancel()  // rejects `report`, and `fetchReport`'s promise, which stops its work
    }

    static func finalizer(id: Int) {
        let work = fetchUser(id: id).done { show($0) }.catch { showAlert($0) }
        // Later:
        work.cancel()  // the `done` promise is cancelled, and through it `fetchUser`'s
    }

    static func cleanup(id: Int) {
        spinner.start()
        let work = fetchUser(id: id).ensure { spinner.stop() }.done { show($0) }.catch { showAlert($0) }
        work.cancel()  // the spinner stops
    }

    static func policy(id: Int) {
        fetchUser(id: id).done { show($0) }.catch(policy: .allErrors) { error in
            if error.isCancelled { log("cancelled") } else { showAlert(error) }
        }
    }

    static func sharedProducer() {
        let user = fetchUser(id: 42)  // A, the producer
        let name = user.map { $0.name }  // B
        let avatar = user.then { fetchAvatar(for: $0) }  // C, which follows D once A is fulfilled
        _ = (name, avatar)
    }

    static func taskToPromise() {
        let loader = Task {
            let user = try await fetchUser(id: 42).async()
            show(user)
        }
        // Later:
        loader.cancel()  // throws CancellationError in the task, and cancels `fetchUser`'s promise
    }

    static func promiseToTask() {
        func fetchUser(id: Int) -> Promise<User> {
            Promise { try await client.user(id: id) }  // cancelling the promise cancels this task
        }
        _ = fetchUser
    }

    static func timeout(id: Int) {
        fetchProfile(id).timeout(seconds: 5).done { show($0) }.catch { error in
            // PMKError.timedOut after five seconds without an answer
        }
    }

    static func timeoutFallback(id: Int) -> Promise<Profile> {
        fetchProfile(id).timeout(.milliseconds(800)).recover { error -> Promise<Profile> in
            guard (error as? PMKError) == .timedOut else { throw error }
            return cachedProfile(id)
        }
    }

    static func retrying() {
        // swift-format-ignore: OnlyOneTrailingClosureArgument
        let feed = retry(
            attempts: 5,
            backoff: .exponential(initial: .milliseconds(200), maximum: .seconds(10), jitter: true),
            shouldRetry: { error in
                !error.isCancelled && (error as? HTTPError)?.isClientError != true
            }
        ) {
            fetchFeed().timeout(seconds: 10)  // each attempt has its own deadline
        }
        _ = feed
    }

    static func backoffs() {
        let backoff = Backoff.exponential(initial: .seconds(1))
        let beforeSecond = backoff.delay(beforeRetry: 1)  // 1 second
        let beforeFourth = backoff.delay(beforeRetry: 3)  // 4 seconds
        let beforeTenth = backoff.delay(beforeRetry: 9)  // 30 seconds: the cap
        _ = (beforeSecond, beforeFourth, beforeTenth)
    }

    static func delaying() {
        saveDraft().delay(seconds: 0.3).done { hideSpinner() }.catch { showError($0) }
    }

    static func validating() {
        fetchStatusCode().validate { (200..<300).contains($0) }.done { code in
            log("status \(code)")
        }.catch { error in
            showError(error)  // PMKError.validationFailed for a status outside 200..<300
        }
    }
}

// "Clocks and testing time".
@Test func profileTimesOutAfterFiveSeconds() async {
    let clock = ManualClock()
    let reply = fetchProfile(42).timeout(for: .seconds(5), clock: clock)
    await clock.waitForSleepers(1)  // the timeout has armed its wait
    clock.advance(by: .seconds(4))
    #expect(reply.isPending)
    clock.advance(by: .seconds(1))
    await #expect(throws: PMKError.timedOut) { try await reply.async() }
}

extension UserClient {
    func report() async throws -> Report { Report() }
}

func loadReport() async throws -> Report {
    try await withRetry(attempts: 3, backoff: .constant(.seconds(1))) {
        try await withTimeout(.seconds(2)) { try await client.report() }
    }
}
