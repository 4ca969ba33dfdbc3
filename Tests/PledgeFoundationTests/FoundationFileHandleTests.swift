import Foundation
import Pledge
import PledgeFoundation
import Testing

/// `FileHandle.readToEnd(.promise)` and `FileHandle.readToEnd(.promise, contentsOf:)` on real
/// temporary files.
@Suite struct FoundationFileHandleTests {
    @Test func readingAFileByURLFulfilsWithItsContents() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("contents.bin")
        let contents = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try contents.write(to: file)
        let result = FileHandle.readToEnd(.promise, contentsOf: file).settled()
        #expect(result?.successValue == contents)
    }

    @Test func readingAnEmptyFileFulfilsWithEmptyData() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("empty")
        try Data().write(to: file)
        #expect(FileHandle.readToEnd(.promise, contentsOf: file).settled()?.successValue == Data())
    }

    @Test func readingAMissingFileRejects() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let missing = directory.appendingPathComponent("missing")
        let error = try #require(FileHandle.readToEnd(.promise, contentsOf: missing).settled()?.failureError)
        #expect(!error.isCancelled)
    }

    @Test func readingAHandleReadsFromItsOffsetToTheEndOnTheGivenQueue() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("offset.txt")
        try Data("skip:keep".utf8).write(to: file)
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        try handle.seek(toOffset: 5)
        let queue = DispatchQueue(label: "FoundationFileHandleTests.reader")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        // The queue is held until the handler is attached, so the promise settles after: an
        // inline handler then runs where it settles, on the reading queue.
        let attached = DispatchSemaphore(value: 0)
        queue.async { _ = attached.wait(timeout: .now() + testTimeout) }
        let settledOnQueue = handle.readToEnd(.promise, on: queue).map(on: nil) { data in
            (data, DispatchQueue.getSpecific(key: key) == true)
        }
        attached.signal()
        let value = try #require(settledOnQueue.settled()?.successValue)
        #expect(value.0 == Data("keep".utf8))
        #expect(value.1)
    }

    @Test func aCancelledReadIsRejectedAsCancelled() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("contents")
        try Data(repeating: 1, count: 1024).write(to: file)
        // A serial queue held busy, so that the cancellation comes before the read starts.
        let queue = DispatchQueue(label: "FoundationFileHandleTests.blocked")
        let release = DispatchSemaphore(value: 0)
        queue.async { _ = release.wait(timeout: .now() + testTimeout) }
        let promise = FileHandle.readToEnd(.promise, contentsOf: file, on: queue)
        promise.cancel()
        release.signal()
        #expect(promise.isCancelled)
        #expect(promise.settled()?.failureError as? PMKError == .cancelled)
    }
}
