import Dispatch
import Foundation
import InMemoryTracing
import Instrumentation
import Logging
import Pledge
import QuoteService
import Synchronization
import Testing
import Tracing

/// A log handler that keeps each line with its metadata, the provider's included.
struct RecordingLogHandler: LogHandler {
    final class Lines: Sendable {
        let all = Mutex<[(message: String, metadata: Logger.Metadata)]>([])
    }

    let lines: Lines
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: Logging.LogEvent) {
        var merged = metadata
        merged.merge(metadataProvider?.get() ?? [:]) { $1 }
        merged.merge(event.metadata ?? [:]) { $1 }
        lines.all.withLock { $0.append(("\(event.message)", merged)) }
    }
}

/// A backend that answers on a queue of its own, failing its first `failures` calls: the chain's
/// later attempts start from a retry timer, far from the request's task.
final class QueueBackend: Sendable {
    private let calls = Atomic<Int>(0)
    private let failures: Int

    init(failures: Int) { self.failures = failures }

    func fetch(_ symbol: String) -> Promise<Data> {
        let call = calls.add(1, ordering: .relaxed).newValue
        let failures = failures
        return DispatchQueue(label: "backend").async(.promise) {
            guard call > failures else { throw URLError(.badServerResponse) }
            return Data("\(symbol): 101".utf8)
        }
    }
}

// One tracer for the process: `InstrumentationSystem` is bootstrapped once.
let tracer: InMemoryTracer = {
    let tracer = InMemoryTracer()
    InstrumentationSystem.bootstrap(tracer)
    return tracer
}()

@Suite(.serialized) struct ObservabilityTests {
    /// The route's chain logs in its last handler, on the backend's queue, and traces each
    /// attempt, the second started from a retry timer: both carry the request.
    @Test func theRequestsIdAndTraceReachTheHandlersOfItsChain() async throws {
        RequestLog.propagateThroughChains()
        _ = tracer
        tracer.clearAll()
        let lines = RecordingLogHandler.Lines()
        let logger = Logger(label: "test") { _ in
            RecordingLogHandler(lines: lines, metadataProvider: RequestLog.metadata)
        }
        let backend = QueueBackend(failures: 1)
        let quotes = Quotes(logger: logger) { backend.fetch($0) }

        let data = try await handlingRequest(id: "request-7", name: "GET /quote") {
            try await quotes.quote("PLDG").async()
        }

        #expect(String(decoding: data, as: UTF8.self) == "PLDG: 101")
        let answered = lines.all.withLock { $0 }.filter { $0.message == "backend answered" }
        #expect(answered.count == 1)
        #expect(answered.first?.metadata["request.id"] == "request-7")

        let spans = tracer.finishedSpans
        let request = try #require(spans.first { $0.operationName == "GET /quote" })
        let calls = spans.filter { $0.operationName == "GET /quote/PLDG" }
        #expect(calls.count == 2)
        #expect(calls.allSatisfy { $0.traceID == request.traceID })
        #expect(calls.allSatisfy { $0.spanContext.parentSpanID == request.spanContext.spanID })
    }

    /// Without a request, nothing is carried: the log line has no id and the span its own trace.
    @Test func aChainOutsideAnyRequestCarriesNothing() async throws {
        RequestLog.propagateThroughChains()
        tracer.clearAll()
        let lines = RecordingLogHandler.Lines()
        let logger = Logger(label: "test") { _ in
            RecordingLogHandler(lines: lines, metadataProvider: RequestLog.metadata)
        }
        let backend = QueueBackend(failures: 0)

        _ = try await Quotes(logger: logger) { backend.fetch($0) }.quote("PLDG").async()

        let answered = lines.all.withLock { $0 }.filter { $0.message == "backend answered" }
        #expect(answered.first?.metadata["request.id"] == nil)
        #expect(tracer.finishedSpans.first { $0.operationName == "GET /quote/PLDG" }?.spanContext.parentSpanID == nil)
    }
}

/// The three `/local` ways answer alike.
@Suite struct LocalQuotesTests {
    @Test func theThreeWaysAnswerAlike() async throws {
        let local = LocalQuotes(book: QuoteBook())
        let answers = try await [local.pledge("PLDG"), local.plainAsync("PLDG"), local.nio("PLDG")]
        #expect(Set(answers.map { String(buffer: $0) }).count == 1)
        await #expect(throws: QuoteBook.Failure.self) { try await local.pledge("") }
    }
}
