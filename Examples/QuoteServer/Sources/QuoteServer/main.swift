import Foundation
import Hummingbird
import Logging
import QuoteService

// quote-server [PORT [BACKEND-PORT]]: the quote server on 127.0.0.1:PORT (default 8080) and its
// flaky backend on 127.0.0.1:BACKEND-PORT (default 8081), in one process.

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let port = arguments.first ?? 8080
let backendPort = arguments.dropFirst().first ?? 8081

// Handlers of every chain see the request's id and trace context, wherever they run
// (QUOTE_PROPAGATE=0 turns it off, to measure what it costs).
if ProcessInfo.processInfo.environment["QUOTE_PROPAGATE"] != "0" { RequestLog.propagateThroughChains() }
var logger = Logger(label: "quote-server", metadataProvider: RequestLog.metadata)
logger.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info

let backend = Application(
    router: Backend().router(),
    configuration: .init(address: .hostname("127.0.0.1", port: backendPort), serverName: "flaky-backend"))
let router = Quotes(backend: URL(string: "http://127.0.0.1:\(backendPort)")!, logger: logger).router()
LocalQuotes(book: QuoteBook()).addRoutes(to: router)
let quotes = Application(
    router: router, configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "quote-server"))

try await withThrowingTaskGroup(of: Void.self) { group in
    group.addTask { try await backend.runService() }
    group.addTask { try await quotes.runService() }
    try await group.next()
}
