import Dispatch
import Pledge
import Synchronization
import Testing

// Everyday Pledge code, written as an app or a server would write it, on the default queues.

private struct TimedOut: Error {}

private struct FlakyError: Error {}

/// A legacy completion-handler API: calls back on a background queue.
private func legacyLookup(id: Int, completion: @escaping @Sendable (String?, Error?) -> Void) {
    DispatchQueue.global().async {
        switch id {
        case ..<0: completion(nil, ComboError.numbered(id))
        case 0: completion(nil, nil)
        default: completion("user\(id)", nil)
        }
    }
}

/// Wrapping it: the usual `Resolver` idiom.
private func lookup(id: Int) -> Promise<String> {
    Promise { seal in
        legacyLookup(id: id) { name, error in seal.resolve(name, error) }
    }
}

/// Retries `body` up to `attempts` times, waiting `delay` between attempts.
private func retrying<T>(
    attempts: Int, delay: DispatchTimeInterval, _ body: @escaping @Sendable () -> Promise<T>
) -> Promise<T> {
    body().recover { error -> Promise<T> in
        guard attempts > 1 else { throw error }
        return after(delay).then { retrying(attempts: attempts - 1, delay: delay, body) }
    }
}

/// Gives up on `work` after `seconds`.
private func timeout<T>(seconds: Double, _ work: Promise<T>) -> Promise<T> {
    let timer = after(seconds: seconds).map { () throws -> T in throw TimedOut() }
    return race(work, timer)
}

/// A fake download that records how many downloads run at once.
private final class FakeNetwork: Sendable {
    private let active = Atomic<Int>(0)
    private let peak = Atomic<Int>(0)

    var mostAtOnce: Int { peak.load(ordering: .sequentiallyConsistent) }

    func download(_ url: String) -> Promise<String> {
        let now = active.add(1, ordering: .sequentiallyConsistent).newValue
        peak.max(now, ordering: .sequentiallyConsistent)
        return DispatchQueue.global().async(.promise) { () throws -> String in
            self.active.subtract(1, ordering: .sequentiallyConsistent)
            return "contents of \(url)"
        }
    }
}

@Suite struct CommonPatternsTests {
    @Test func aSerialChainBuiltInALoop() {
        let log = Locked<[String]>([])
        @Sendable func step(_ item: Int) -> Promise<Int> {
            DispatchQueue.global().async(.promise) { () throws -> Int in
                log.withLock { $0.append("start \(item)") }
                log.withLock { $0.append("end \(item)") }
                return item * item
            }
        }

        var chain = Promise<[Int]>.value([])
        for item in 1...4 {
            chain = chain.then { squares in step(item).map { squares + [$0] } }
        }

        #expect(chain.comboValue() == [1, 4, 9, 16])
        // Each step started only after the one before it ended.
        #expect(log.withLock { $0 } == (1...4).flatMap { ["start \($0)", "end \($0)"] })
    }

    @Test func retryWithRecoverAndAfter() {
        let calls = Locked(0)
        let flaky = retrying(attempts: 5, delay: .milliseconds(5)) { () -> Promise<String> in
            let call = calls.withLock { count -> Int in
                count += 1
                return count
            }
            return call < 3 ? Promise(error: FlakyError()) : Promise.value("ok on attempt \(call)")
        }

        #expect(flaky.comboValue() == "ok on attempt 3")
        #expect(calls.withLock { $0 } == 3)
    }

    @Test func retryGivesUpWithTheLastError() {
        let calls = Locked(0)
        let hopeless = retrying(attempts: 3, delay: .milliseconds(1)) { () -> Promise<Int> in
            calls.withLock { $0 += 1 }
            return Promise(error: FlakyError())
        }

        #expect(hopeless.comboError() is FlakyError)
        #expect(calls.withLock { $0 } == 3)
    }

    @Test func aTimeoutMadeFromRaceAndAfter() {
        let (never, _) = Promise<Int>.pending()

        let slow = timeout(seconds: 0.01, never)
        let fast = timeout(seconds: 5, Promise.value(1))

        #expect(slow.comboError() is TimedOut)
        #expect(fast.comboValue() == 1)
    }

    @Test func limitedConcurrencyDownloadsFromAnAnyIterator() {
        let network = FakeNetwork()
        let urls = (0..<12).map { "https://example.com/\($0)" }

        var remaining = urls.makeIterator()
        let downloads = AnyIterator { remaining.next().map { network.download($0) } }
        let all = when(fulfilled: downloads, concurrently: 3)

        #expect(all.comboValue() == urls.map { "contents of \($0)" })
        #expect(network.mostAtOnce <= 3)
    }

    @Test func keepingEarlierResultsInATuple() {
        let greeting = firstly {
            lookup(id: 7)
        }.then { name in
            when(fulfilled: Promise.value(name), lookup(id: 8))
        }.then { first, second in
            lookup(id: 9).map { (first, second, $0) }
        }.map { first, second, third in
            "\(first), \(second) and \(third)"
        }

        #expect(greeting.comboValue() == "user7, user8 and user9")
    }

    @Test func wrappingACompletionHandlerAPIWithAResolver() {
        #expect(lookup(id: 1).comboValue() == "user1")
        #expect(lookup(id: -2).comboError() as? ComboError == .numbered(-2))
        #expect(comboIsPMKError(lookup(id: 0).comboResult(), .invalidCallingConvention))
    }

    @Test func fanningOutAndBackInFromAnAsyncFunction() async throws {
        let names = try await when(fulfilled: (1...3).map { lookup(id: $0) }).async()

        #expect(names == ["user1", "user2", "user3"])
    }

    @Test func handlingTheErrorAtTheEndOfAChain() {
        let handled = DispatchSemaphore(value: 0)
        let seen = Locked<Error?>(nil)

        lookup(id: -1).done { _ in }.catch { error in
            seen.withLock { $0 = error }
        }.finally {
            handled.signal()
        }

        #expect(handled.wait(timeout: .now() + comboTimeout) == .success)
        #expect(seen.withLock { $0 } as? ComboError == .numbered(-1))
    }
}
