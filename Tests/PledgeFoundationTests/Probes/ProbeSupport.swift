import Dispatch
import Foundation
import Pledge

#if canImport(Glibc)
    import Glibc
#endif

/// Short timeout for probes: a hang shows as `nil` rather than stalling the run for a minute.
extension Thenable {
    func settled(within seconds: Int) -> Result<T, Error>? {
        let done = DispatchSemaphore(value: 0)
        pipe { _ in done.signal() }
        guard done.wait(timeout: .now() + .seconds(seconds)) == .success else { return nil }
        return result
    }
}

/// How many descriptors this process has open.
func openDescriptorCount() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
}

/// How many threads this process has.
func threadCount() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? -1
}

/// An HTTP server on 127.0.0.1 whose responses are written raw by `handler`, one thread a
/// connection: for responses `LoopbackHTTPServer` cannot give (redirects, 204, chunked, bodies
/// cut short, slow bodies).
final class RawHTTPServer: @unchecked Sendable {
    // Safety: every stored property is a `let` set in `init`, of a `Sendable` type or a
    // descriptor only closed in `stop()`.
    let port: UInt16
    private let listener: Int32
    private let handler: @Sendable (_ method: String, _ path: String, _ connection: Int32) -> Void
    private let connections = Locked<Set<Int32>>([])
    let requests = Locked<[String]>([])

    init(_ handler: @escaping @Sendable (String, String, Int32) -> Void) throws {
        self.handler = handler
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EIO) }
        var reuse: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(descriptor, 128) == 0 else {
            close(descriptor)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        listener = descriptor
        port = UInt16(bigEndian: address.sin_port)
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    func stop() {
        _ = shutdown(listener, Int32(SHUT_RDWR))
        // Under the lock: a copy taken out would share storage that a connection's thread
        // then changes, through a count ThreadSanitizer does not see.
        connections.mutate { connections in
            for connection in connections {
                _ = shutdown(connection, Int32(SHUT_RDWR))
            }
        }
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR { continue }
                close(listener)
                return
            }
            connections.mutate { $0.insert(connection) }
            let thread = Thread { [self] in
                if let head = readHead(connection) {
                    let parts = head.split(separator: " ")
                    if parts.count >= 2 {
                        requests.mutate { $0.append("\(parts[0]) \(parts[1])") }
                        handler(String(parts[0]), String(parts[1]), connection)
                    }
                }
                connections.mutate { $0.remove(connection) }
                close(connection)
            }
            thread.start()
        }
    }

    private func readHead(_ connection: Int32) -> String? {
        var head = Data()
        var byte: UInt8 = 0
        while !head.suffix(4).elementsEqual("\r\n\r\n".utf8) {
            guard recv(connection, &byte, 1, 0) == 1 else { return nil }
            head.append(byte)
        }
        return String(decoding: head, as: UTF8.self)
    }
}

/// Sends `text` on `connection`, ignoring errors (the client may have gone).
func send(_ text: String, on connection: Int32) {
    send(Data(text.utf8), on: connection)
}

func send(_ data: Data, on connection: Int32) {
    data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
        var sent = 0
        while sent < bytes.count {
            let count = Glibc.send(connection, bytes.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            sent += count
        }
    }
}

/// Blocks until the client closes `connection` (or it fails).
func waitForClose(_ connection: Int32) {
    var byte: UInt8 = 0
    while recv(connection, &byte, 1, 0) > 0 {}
}

/// `process` (a new `Process` by default) set up to run `script` with `/bin/sh -c`.
func sh(_ script: String, as process: Process = Process()) -> Process {
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", script]
    return process
}

/// Launches 120 quick children (`echo`) and 120 slow siblings (`slowSibling()`, which runs
/// `exec sleep 4`), interleaved from many threads at once, cancels the slow ones, and returns how
/// long the slowest quick child's promise took to settle. Had a quick child's pipes leaked into a
/// slow sibling spawned at the same moment, that time would be the sibling's 4 seconds.
func slowestQuickChild(slowSibling: @escaping @Sendable () -> Process) -> TimeInterval {
    let slow = Locked<[Promise<(out: Pipe, err: Pipe)>]>([])
    let quickTimes = Locked<[TimeInterval]>([])
    DispatchQueue.concurrentPerform(iterations: 240) { index in
        if index % 2 == 0 {
            let promise = slowSibling().launch(.promise)
            slow.mutate { $0.append(promise) }
        } else {
            let start = Date()
            _ = sh("echo quick").launch(.promise).settled(within: 10)
            let elapsed = Date().timeIntervalSince(start)
            quickTimes.mutate { $0.append(elapsed) }
        }
    }
    for promise in slow.value { promise.cancel() }
    return quickTimes.value.max() ?? 0
}
