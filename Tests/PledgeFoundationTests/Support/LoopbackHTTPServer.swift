import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1, on a port the kernel picks, serving canned routes to the
/// URLSession tests. One thread accepts; each connection gets a thread of its own and is closed
/// after one response (`Connection: close`).
///
/// Routes:
/// - `GET /hello`: 200, `Hello, Pledge`.
/// - `GET /missing`: 404, `no such thing`.
/// - `GET /large`: 200, ``largeBody``.
/// - `GET /download`: 200, ``downloadBody``.
/// - `POST /echo` (and `PUT`): 200, the request's body.
/// - `GET /hang`: signals ``hangArrived``, then never answers; the connection stays open until
///   the client closes it (``hangClosed`` is signalled then) or the server stops.
/// - `GET /busy?key=K&status=S&seconds=N[&date=1]`: the first request for `K` gets status `S`
///   with `Retry-After: N` (as an HTTP date `N` seconds from now with `date=1`), every later one
///   200 `recovered`; ``requests(_:)`` counts them.
final class LoopbackHTTPServer: @unchecked Sendable {
    // Safety: `listener` and `port` are set once in `init`; the open connections are kept in a
    // `Locked`, and every other member is a `let` of a `Sendable` type.
    let port: UInt16
    private let listener: Int32
    private let connections = Locked<Set<Int32>>([])
    private let acceptorDone = DispatchSemaphore(value: 0)
    private let busyRequests = Locked<[String: Int]>([:])

    /// Signalled each time a request for `/hang` has arrived.
    let hangArrived = DispatchSemaphore(value: 0)
    /// Signalled each time the client closes a `/hang` connection.
    let hangClosed = DispatchSemaphore(value: 0)

    static let largeBody = Data((0..<(2 * 1024 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
    static let downloadBody = Data("A file to download.\n".utf8)

    /// Starts listening; throws when the socket cannot be set up.
    init() throws {
        let (descriptor, port) = try bindLoopbackSocket()
        guard listen(descriptor, 16) == 0 else {
            close(descriptor)
            throw POSIXError(.EADDRINUSE)
        }
        listener = descriptor
        self.port = port
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "LoopbackHTTPServer.accept"
        thread.start()
    }

    /// How many requests `/busy` has had for `key`.
    func requests(_ key: String) -> Int {
        busyRequests.value[key] ?? 0
    }

    /// The URL of `path` on this server.
    func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    /// Stops accepting, closes every open connection and waits for the accepting thread to end.
    func stop() {
        _ = shutdown(listener, Int32(SHUT_RDWR))
        _ = acceptorDone.wait(timeout: .now() + .seconds(10))
        close(listener)
        // Under the lock: a copy taken out would share storage that a connection's thread
        // then changes, through a count ThreadSanitizer does not see.
        connections.mutate { connections in
            for connection in connections {
                _ = shutdown(connection, Int32(SHUT_RDWR))
            }
        }
    }

    private func acceptLoop() {
        defer { acceptorDone.signal() }
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR { continue }
                return
            }
            connections.mutate { $0.insert(connection) }
            let thread = Thread { [self] in
                serve(connection)
                connections.mutate { $0.remove(connection) }
                close(connection)
            }
            thread.name = "LoopbackHTTPServer.connection"
            thread.start()
        }
    }

    private func serve(_ connection: Int32) {
        var reader = SocketReader(descriptor: connection)
        guard let head = reader.readHead() else { return }
        let lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.first?.split(separator: " ") ?? []
        guard requestLine.count >= 2 else { return }
        let method = String(requestLine[0])
        let path = String(requestLine[1])
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        if headers["expect"]?.lowercased() == "100-continue" {
            transmit(Data("HTTP/1.1 100 Continue\r\n\r\n".utf8), on: connection)
        }
        var body = Data()
        if let length = headers["content-length"].flatMap({ Int($0) }) {
            body = reader.read(count: length) ?? Data()
        } else if headers["transfer-encoding"]?.lowercased() == "chunked" {
            body = reader.readChunked() ?? Data()
        }

        switch (method, path) {
        case ("GET", "/hello"):
            respond(200, Data("Hello, Pledge".utf8), on: connection)
        case ("GET", "/missing"):
            respond(404, Data("no such thing".utf8), on: connection)
        case ("GET", "/large"):
            respond(200, Self.largeBody, on: connection)
        case ("GET", "/download"):
            respond(200, Self.downloadBody, on: connection)
        case ("POST", "/echo"), ("PUT", "/echo"):
            respond(200, body, on: connection)
        case ("GET", _) where path.hasPrefix("/busy?"):
            let query = URLComponents(string: path)?.queryItems ?? []
            func item(_ name: String) -> String? { query.first { $0.name == name }?.value }
            let key = item("key") ?? ""
            var count = 0
            busyRequests.mutate { counts in
                count = (counts[key] ?? 0) + 1
                counts[key] = count
            }
            guard count == 1, let status = item("status").flatMap(Int.init), let seconds = item("seconds") else {
                respond(200, Data("recovered".utf8), on: connection)
                return
            }
            var retryAfter = seconds
            if item("date") == "1", let offset = Double(seconds) {
                let formatter = DateFormatter()
                formatter.locale = Locale(identifier: "en_US_POSIX")
                formatter.timeZone = TimeZone(identifier: "GMT")
                formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
                retryAfter = formatter.string(from: Date(timeIntervalSinceNow: offset))
            }
            respond(status, Data("busy".utf8), headers: "Retry-After: \(retryAfter)\r\n", on: connection)
        case ("GET", "/hang"):
            hangArrived.signal()
            // Never answer: wait until the client goes away or the server stops.
            var byte: UInt8 = 0
            while recv(connection, &byte, 1, 0) > 0 {}
            hangClosed.signal()
        default:
            respond(400, Data("unknown route".utf8), on: connection)
        }
    }

    private func respond(_ status: Int, _ body: Data, headers: String = "", on connection: Int32) {
        let reason = status == 200 ? "OK" : status == 404 ? "Not Found" : "Bad Request"
        let head =
            "HTTP/1.1 \(status) \(reason)\r\nContent-Type: application/octet-stream\r\n" + headers
            + "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        transmit(Data(head.utf8) + body, on: connection)
    }

    private func transmit(_ data: Data, on connection: Int32) {
        data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            var sent = 0
            while sent < bytes.count {
                let count = send(connection, bytes.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return }
                sent += count
            }
        }
    }
}

/// A TCP socket bound to 127.0.0.1 on a port the kernel picks, and that port.
private func bindLoopbackSocket() throws -> (descriptor: Int32, port: UInt16) {
    let socketKind: Int32
    #if canImport(Glibc)
        socketKind = Int32(SOCK_STREAM.rawValue)
    #else
        socketKind = SOCK_STREAM
    #endif
    let descriptor = socket(AF_INET, socketKind, 0)
    guard descriptor >= 0 else { throw POSIXError(.EIO) }
    var reuse: Int32 = 1
    _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard bound == 0 else {
        close(descriptor)
        throw POSIXError(.EADDRINUSE)
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
    }
    return (descriptor, UInt16(bigEndian: address.sin_port))
}

/// A loopback port that is bound but not listening: connecting to it is refused, and no other
/// socket can take it until ``release()``.
final class RefusingLoopbackPort: Sendable {
    private let descriptor: Int32
    let port: UInt16

    init() throws {
        (descriptor, port) = try bindLoopbackSocket()
    }

    func release() {
        close(descriptor)
    }
}

/// Reads an HTTP request from a socket, buffering what arrives past the part asked for.
private struct SocketReader {
    let descriptor: Int32
    var buffer = Data()

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Receives more bytes into the buffer; `false` at the end of the stream or on an error.
    private mutating func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let count = recv(descriptor, &chunk, chunk.count, 0)
        if count < 0 && errno == EINTR { return true }
        guard count > 0 else { return false }
        buffer.append(contentsOf: chunk[0..<count])
        return true
    }

    /// The request line and headers, without the blank line that ends them.
    mutating func readHead() -> String? {
        let separator = Data("\r\n\r\n".utf8)
        while true {
            if let range = buffer.range(of: separator) {
                let head = String(decoding: buffer[buffer.startIndex..<range.lowerBound], as: UTF8.self)
                buffer = Data(buffer[range.upperBound...])
                return head
            }
            guard fill() else { return nil }
        }
    }

    mutating func read(count: Int) -> Data? {
        while buffer.count < count {
            guard fill() else { return nil }
        }
        let result = Data(buffer.prefix(count))
        buffer = Data(buffer.dropFirst(count))
        return result
    }

    private mutating func readLine() -> String? {
        let separator = Data("\r\n".utf8)
        while true {
            if let range = buffer.range(of: separator) {
                let line = String(decoding: buffer[buffer.startIndex..<range.lowerBound], as: UTF8.self)
                buffer = Data(buffer[range.upperBound...])
                return line
            }
            guard fill() else { return nil }
        }
    }

    /// A body sent with `Transfer-Encoding: chunked`.
    mutating func readChunked() -> Data? {
        var body = Data()
        while true {
            guard let sizeLine = readLine() else { return nil }
            let digits = sizeLine.split(separator: ";").first.map(String.init) ?? ""
            guard let size = Int(digits.trimmingCharacters(in: .whitespaces), radix: 16) else { return nil }
            if size == 0 {
                _ = readLine()
                return body
            }
            guard let chunk = read(count: size) else { return nil }
            body.append(chunk)
            _ = readLine()
        }
    }
}
