import Foundation
import Hummingbird

// quote-server [PORT [BACKEND-PORT]]: the quote server on 127.0.0.1:PORT (default 8080) and its
// flaky backend on 127.0.0.1:BACKEND-PORT (default 8081), in one process.

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let port = arguments.first ?? 8080
let backendPort = arguments.dropFirst().first ?? 8081

let backend = Application(
    router: Backend().router(),
    configuration: .init(address: .hostname("127.0.0.1", port: backendPort), serverName: "flaky-backend"))
let quotes = Application(
    router: Quotes(backend: URL(string: "http://127.0.0.1:\(backendPort)")!).router(),
    configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "quote-server"))

try await withThrowingTaskGroup(of: Void.self) { group in
    group.addTask { try await backend.runService() }
    group.addTask { try await quotes.runService() }
    try await group.next()
}
