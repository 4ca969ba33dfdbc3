// The samples of Sources/PledgeTesting/PledgeTesting.docc/TestingCodeThatUsesPledge.md, compiled
// and run by `swift test`. `.ci/check-doc-samples` fails when a sample there is missing here:
// edit both together.

import Dispatch
import Pledge
import PledgeTesting
import Synchronization
import Testing

// The code under test, as the article imagines it.

struct Report: Sendable {
    let lines: Int
}

func loadReport() -> Promise<Report> {
    DispatchQueue.global().async(.promise) { Report(lines: 3) }
}

/// A directory service that never answers, keeping each request's resolver.
final class Directory: Sendable {
    private let waiting = Mutex<[Resolver<String>]>([])

    func find(_ name: String) -> Promise<String> {
        let (promise, resolver) = Promise<String>.pending()
        waiting.withLock { $0.append(resolver) }
        return promise
    }
}

let directory = Directory()

final class Shelf: Sendable {
    private let state = Mutex<[String]>([])

    var titles: [String] { state.withLock { $0 } }

    func refresh() {
        DispatchQueue.global().async(.promise) { ["Dune", "Emma"] }
            .done { titles in self.state.withLock { $0 = titles } }
            .cauterize()
    }
}

struct Unavailable: Error {}

/// A server whose first `failures` calls fail.
final class FlakyServer: Sendable {
    private let count = Atomic<Int>(0)
    private let failures: Int

    init(failures: Int) { self.failures = failures }

    var calls: Int { count.load(ordering: .relaxed) }

    func call() -> Promise<String> {
        let call = count.add(1, ordering: .relaxed).newValue
        return call <= failures ? Promise(error: Unavailable()) : .value("pong")
    }
}

// The samples.

@Test func parsesTheReport() async throws {
    let report = try await loadReport().async()
    #expect(report.lines == 3)
}

func lookUp(_ name: String, clock: some Clock<Duration> = ContinuousClock()) -> Promise<String> {
    directory.find(name).timeout(for: .seconds(5), clock: clock)
}

@Test func aSlowLookupTimesOut() async {
    let clock = TestClock()
    let answer = lookUp("never answers", clock: clock)
    clock.advance(by: .seconds(5))
    await #expect(throws: PMKError.timedOut) { try await answer.async() }
}

@Suite(.pledgeScope) struct ShelfTests {
    @Test func refreshingFillsTheShelf() async {
        let shelf = Shelf()
        shelf.refresh()  // starts a chain and returns at once
        #expect(await waitUntilIdle())
        #expect(shelf.titles == ["Dune", "Emma"])
    }
}

@Test(.pledgeScope) func retriesAfterTheBackoff() async throws {
    let clock = TestClock()
    let server = FlakyServer(failures: 1)
    let reply = retry(attempts: 2, backoff: .constant(.seconds(1)), clock: clock) { server.call() }

    #expect(await waitUntilIdle())  // the first attempt has failed
    #expect(clock.nextDeadline == TestClock.Instant(offset: .seconds(1)))
    clock.advance(by: .seconds(1))  // the second attempt starts

    #expect(try await reply.async() == "pong")
    #expect(server.calls == 2)
}

@Test func handlersRunOnTheTestsQueue() async throws {
    let queue = DispatchQueue(label: "handlers")
    try await conf.withScope(queues: (queue, queue)) {
        let onQueue = try await loadReport().map { _ in
            dispatchPrecondition(condition: .onQueue(queue))
            return true
        }.async()
        #expect(onQueue)
    }
}

@Test(.pledgeScope) func refreshingLogsNothing() async {
    let log = LogRecorder()
    await log.record {
        Shelf().refresh()
        #expect(await waitUntilIdle())
    }
    #expect(log.events.isEmpty)
}
