import Foundation
import Pledge

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One `launch(.promise)`: reads the process's two pipes while it runs, waits for it to exit,
/// settles the promise, and terminates the process when the promise is cancelled.
///
/// Each pipe is read to its end by a thread of its own. Every event (a pipe's whole output, the
/// exit, a cancellation, the end of the grace period) is handled on one serial queue, so the run's
/// state needs no lock.
final class ProcessRun: @unchecked Sendable {
    // Safety: the `var`s below are read and written only on `queue`, a serial queue (and in
    // `init`, before the run is shared); the `let`s are set once in `init`.
    private let queue = DispatchQueue(label: "org.pledge.PledgeFoundation.process")
    private let process: Process
    private let resolver: Resolver<(out: Pipe, err: Pipe)>
    private let gracePeriod: DispatchTimeInterval
    private let pipes: [Pipe]

    /// What each pipe delivered: standard output, then standard error.
    private var output = [Data(), Data()]
    private var openPipes = 2
    private var exited = false
    private var settled = false
    /// The run itself until it settles: the process's termination handler holds it weakly.
    private var keepAlive: ProcessRun?

    init(process: Process, resolver: Resolver<(out: Pipe, err: Pipe)>, gracePeriod: DispatchTimeInterval) {
        self.process = process
        self.resolver = resolver
        self.gracePeriod = gracePeriod
        pipes = [Pipe(), Pipe()]
        process.standardOutput = pipes[0]
        process.standardError = pipes[1]
        keepAlive = self
    }

    /// Lets the run go when the process could not be launched.
    func abandon() {
        queue.async {
            self.keepAlive = nil
        }
    }

    /// Starts reading both pipes; call once the process runs (its write ends are closed here).
    func startReading() {
        queue.async {
            for index in self.pipes.indices {
                self.startReading(index)
            }
        }
    }

    private func startReading(_ index: Int) {
        let descriptor = pipes[index].fileHandleForReading.fileDescriptor
        // A thread of its own, blocked in read(2) until the pipe's end: libdispatch's event loop
        // crashed now and then (under ThreadSanitizer) with DispatchIO channels on these pipes,
        // as processes were spawned one after another. The pipe's file handle keeps owning the
        // descriptor, and the run keeps the pipe, so the descriptor stays valid until then.
        let reader = Thread {
            let data = readToEnd(descriptor)
            self.queue.async {
                self.output[index] = data
                self.openPipes -= 1
                self.settleIfDone()
            }
        }
        reader.name = "org.pledge.PledgeFoundation.process-output"
        reader.start()
    }

    /// Called from the process's termination handler.
    func processExited() {
        queue.async {
            self.exited = true
            self.settleIfDone()
        }
    }

    /// Sends `SIGTERM` to the process group now, and `SIGKILL` after the grace period if the
    /// process is still running then.
    func terminate() {
        queue.async {
            self.signal(SIGTERM)
            guard self.gracePeriod != .never else { return }
            self.queue.asyncAfter(deadline: .now() + self.gracePeriod) {
                self.signal(SIGKILL)
            }
        }
    }

    private func signal(_ number: Int32) {
        // Once the process has been reaped its identifier may be reused: signal only a process
        // whose exit has not been seen. (Between the reaping and the termination handler's
        // event reaching this queue, the identifier could in theory be reused already; a new
        // process would have to be given that identifier within that moment.)
        guard !exited else { return }
        let identifier = process.processIdentifier
        guard identifier > 0 else { return }
        // The process leads a group of its own: reach what it started too. If it does not,
        // signal it alone.
        if kill(-identifier, number) != 0 {
            _ = kill(identifier, number)
        }
    }

    private func settleIfDone() {
        guard exited, openPipes == 0, !settled else { return }
        settled = true
        keepAlive = nil
        if resolver.isCancelled { return }
        if process.terminationReason == .exit, process.terminationStatus == 0 {
            do {
                try replay(output[0], into: pipes[0])
                try replay(output[1], into: pipes[1])
                resolver.fulfill((pipes[0], pipes[1]))
            } catch {
                resolver.reject(error)
            }
        } else {
            resolver.reject(
                Process.PMKError.execution(
                    process: process,
                    standardOutput: String(data: output[0], encoding: .utf8),
                    standardError: String(data: output[1], encoding: .utf8)))
        }
        output = []
    }
}

/// Reads `descriptor` until its end (or an error other than an interruption).
private func readToEnd(_ descriptor: Int32) -> Data {
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count > 0 {
            data.append(contentsOf: buffer[0..<count])
        } else if count < 0 && errno == EINTR {
            continue
        } else {
            return data
        }
    }
}

/// Makes `pipe`'s read end read `data` from the start: writes it to an unlinked temporary file
/// and puts that file in place of the pipe's read end, under the same descriptor, which the
/// pipe's file handle keeps owning. An empty output needs nothing: the pipe is at its end.
private func replay(_ data: Data, into pipe: Pipe) throws {
    guard !data.isEmpty else { return }
    let path = (NSTemporaryDirectory() as NSString).appendingPathComponent("pledge-output.XXXXXX")
    var template = Array(path.utf8CString)
    let file = template.withUnsafeMutableBufferPointer { buffer in
        buffer.baseAddress.map { mkstemp($0) } ?? -1
    }
    guard file >= 0 else { throw currentPOSIXError() }
    defer { close(file) }
    template.withUnsafeBufferPointer { buffer in
        if let path = buffer.baseAddress { _ = unlink(path) }
    }
    try data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
        var written = 0
        while written < bytes.count {
            let count = write(file, bytes.baseAddress.map { $0 + written }, bytes.count - written)
            if count < 0 {
                if errno == EINTR { continue }
                throw currentPOSIXError()
            }
            written += count
        }
    }
    guard lseek(file, 0, SEEK_SET) == 0 else { throw currentPOSIXError() }
    guard dup2(file, pipe.fileHandleForReading.fileDescriptor) >= 0 else { throw currentPOSIXError() }
}

private func currentPOSIXError() -> POSIXError {
    POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
}
