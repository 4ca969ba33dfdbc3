import Foundation
import Pledge
import PledgeFoundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Hostile uses of `FileHandle.readToEnd(.promise)`.
@Suite struct FoundationFileHandleProbeTests {
    @Test func readingADirectoryRejects() throws {
        let result = FileHandle.readToEnd(.promise, contentsOf: URL(fileURLWithPath: "/tmp")).settled(within: 10)
        #expect(result?.failureError != nil)
        let handle = try #require(FileHandle(forReadingAtPath: "/tmp"))
        defer { try? handle.close() }
        #expect(handle.readToEnd(.promise).settled(within: 10)?.failureError != nil)
    }

    @Test func readingAClosedHandleRejectsRatherThanCrashing() throws {
        let handle = try #require(FileHandle(forReadingAtPath: "/etc/hostname"))
        try handle.close()
        #expect(handle.readToEnd(.promise).settled(within: 10)?.failureError != nil)
    }

    @Test func readingAWriteOnlyHandleRejects() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("w")
        _ = FileManager.default.createFile(atPath: file.path, contents: Data("x".utf8))
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        #expect(handle.readToEnd(.promise).settled(within: 10)?.failureError != nil)
    }

    @Test func anEmptyAndA50MiBFileAreReadWhole() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let empty = directory.appendingPathComponent("empty")
        let large = directory.appendingPathComponent("large")
        _ = FileManager.default.createFile(atPath: empty.path, contents: Data())
        let contents = Data((0..<(50 * 1024 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try contents.write(to: large)
        #expect(FileHandle.readToEnd(.promise, contentsOf: empty).settled(within: 10)?.successValue == Data())
        #expect(FileHandle.readToEnd(.promise, contentsOf: large).settled(within: 60)?.successValue == contents)
    }

    @Test func aProcFileWhoseSizeIsZeroIsStillRead() throws {
        let data = try #require(
            FileHandle.readToEnd(.promise, contentsOf: URL(fileURLWithPath: "/proc/self/status")).settled(within: 10)?
                .successValue)
        #expect(!data.isEmpty)
    }

    @Test func cancellingAnEndlessReadRejectsAndStopsIt() throws {
        let promise = FileHandle.readToEnd(.promise, contentsOf: URL(fileURLWithPath: "/dev/zero"))
        usleep(100_000)
        promise.cancel()
        #expect(promise.settled(within: 5)?.failureError?.isCancelled == true)
    }

    @Test func cancellingBeforeTheQueueRunsReadsNothing() throws {
        let queue = DispatchQueue(label: "probe")
        let gate = DispatchSemaphore(value: 0)
        queue.async { gate.wait() }
        let handle = try #require(FileHandle(forReadingAtPath: "/etc/passwd"))
        defer { try? handle.close() }
        let promise = handle.readToEnd(.promise, on: queue)
        promise.cancel()
        gate.signal()
        queue.sync {}
        #expect(promise.result?.failureError?.isCancelled == true)
        #expect(handle.offsetInFile == 0)
    }

    @Test func cancellingAReadThatWaitsOnAPipeSettlesAtOnce() throws {
        let pipe = Pipe()
        let promise = pipe.fileHandleForReading.readToEnd(.promise)
        #expect(promise.settled(within: 1) == nil)
        promise.cancel()
        #expect(promise.settled(within: 10)?.failureError?.isCancelled == true)
        // The blocked read returns once the writer goes; the reader then stops.
        try pipe.fileHandleForWriting.close()
    }

    @Test func cancellingAnOpenOfAFIFONobodyWritesToSettlesAtOnce() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("fifo")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let promise = FileHandle.readToEnd(.promise, contentsOf: fifo)
        #expect(promise.settled(within: 1) == nil)
        promise.cancel()
        #expect(promise.settled(within: 10)?.failureError?.isCancelled == true)
        // The queue's thread is blocked in open(2) until a writer comes: release it.
        let writer = open(fifo.path, O_WRONLY)
        if writer >= 0 { close(writer) }
    }

    @Test func aMissingFileRejectsWithACocoaError() throws {
        let error = FileHandle.readToEnd(.promise, contentsOf: URL(fileURLWithPath: "/nonexistent/x")).settled(
            within: 10)?.failureError
        #expect(error is CocoaError)
        #expect(error?.isCancelled == false)
    }
}
