import Foundation
import Pledge
import PledgeTestSupport
import Testing

@testable import PledgeFoundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `PMKHTTPError.retryAfter` reads both forms of `Retry-After`, and `retry(decide:)` waits what a
/// server said, on a clock the test advances.
@Suite(.timeLimit(.minutes(1))) struct FoundationRetryAfterTests {
    private func error(_ header: String?, status: Int = 503) -> PMKHTTPError {
        let url = URL(string: "http://127.0.0.1/")!
        let fields = header.map { ["Retry-After": $0] } ?? [:]
        let response = HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: fields)!
        return .badStatusCode(status, Data(), response)
    }

    @Test func readsSecondsAndEveryHTTPDateForm() {
        let now = Date(timeIntervalSince1970: 784_111_717)  // Sun, 06 Nov 1994 08:48:37 GMT
        #expect(error("120").retryAfter(now: now) == .seconds(120))
        #expect(error(" 7 ").retryAfter(now: now) == .seconds(7))
        #expect(error("0").retryAfter(now: now) == .zero)
        #expect(error("Sun, 06 Nov 1994 08:49:37 GMT").retryAfter(now: now) == .seconds(60))
        #expect(error("Sunday, 06-Nov-94 08:49:37 GMT").retryAfter(now: now) == .seconds(60))
        #expect(error("Sun Nov  6 08:49:37 1994").retryAfter(now: now) == .seconds(60))
        #expect(error("Sun, 06 Nov 1994 08:00:00 GMT").retryAfter(now: now) == .zero, "a past date waits nothing")
        #expect(error("99999999999999999999").retryAfter(now: now) == .seconds(Int64.max))
        #expect(error("soon").retryAfter(now: now) == nil)
        #expect(error("-5").retryAfter(now: now) == nil)
        #expect(error(nil).retryAfter(now: now) == nil)
    }

    /// 503 with `Retry-After: 120`, then 200: the second request goes out only once the clock has
    /// moved 120 seconds; 429 with an HTTP date 30 seconds ahead, the same.
    @Test(arguments: [(503, "120", false), (429, "30", true)])
    func retryWaitsWhatTheServerSaid(status: Int, seconds: String, asDate: Bool) async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        let key = "\(status)"
        let url = server.url("/busy?key=\(key)&status=\(status)&seconds=\(seconds)\(asDate ? "&date=1" : "")")
        let clock = ManualClock()
        let waits = Locked<[Duration]>([])
        let decide: @Sendable (any Error, Int) -> RetryDecision = { error, _ in
            guard let wait = (error as? PMKHTTPError)?.retryAfter else { return .stop }
            waits.mutate { $0.append(wait) }
            return .retry(after: wait)
        }
        let result = retry(attempts: 2, clock: clock, decide: decide) {
            URLSession.shared.dataTask(.promise, with: url).validate()
        }
        await clock.waitForSleepers(1)
        let asked = try #require(waits.value.first)
        let expected = Duration.seconds(Int(seconds)!)
        #expect(asked <= expected && asked > expected - .seconds(5))
        clock.advance(by: asked - .seconds(1))
        #expect(server.requests(key) == 1)
        #expect(result.isPending)
        clock.advance(by: .seconds(1))
        let (data, _) = try await result.async()
        #expect(String(decoding: data, as: UTF8.self) == "recovered")
        #expect(server.requests(key) == 2)
    }
}
