import Foundation
import Pledge
import PledgeFoundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `Process.launch(.promise)` with real child processes.
@Suite struct FoundationProcessTests {
    private func process(_ executable: String, _ arguments: [String]) -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        return process
    }

    @Test func echoFulfilsWithPipesHoldingItsOutput() throws {
        let result = process("/bin/echo", ["hello", "pledge"]).launch(.promise).settled()
        let pipes = try #require(result?.successValue)
        #expect(pipes.out.fileHandleForReading.readDataToEndOfFile() == Data("hello pledge\n".utf8))
        #expect(pipes.err.fileHandleForReading.readDataToEndOfFile().isEmpty)
    }

    @Test func aNonZeroExitRejectsWithTheStatusAndBothOutputs() throws {
        let child = process("/bin/sh", ["-c", "echo out; echo err >&2; exit 3"])
        let error = try #require(child.launch(.promise).settled()?.failureError)
        guard case Process.PMKError.execution(let process, let standardOutput, let standardError) = error else {
            Issue.record("expected Process.PMKError.execution, got \(error)")
            return
        }
        #expect(process === child)
        #expect(standardOutput == "out\n")
        #expect(standardError == "err\n")
        let processError = try #require(error as? Process.PMKError)
        #expect(processError.terminationStatus == 3)
        #expect(processError.terminationReason == .exit)
        #expect(
            error.localizedDescription
                == "`/bin/sh -c \"echo out; echo err >&2; exit 3\"` exited with status 3. Standard error: err")
    }

    @Test func moreOutputThanAPipeHoldsOnBothStreamsDoesNotStall() throws {
        // 1.5 MiB on standard output, then 1.5 MiB on standard error: the child only gets to the
        // second once the first has been read.
        let size = 1_572_864
        let script = "head -c \(size) /dev/zero; head -c \(size) /dev/zero >&2"
        let result = process("/bin/sh", ["-c", script]).launch(.promise).settled()
        let pipes = try #require(result?.successValue)
        let out = pipes.out.fileHandleForReading.readDataToEndOfFile()
        let err = pipes.err.fileHandleForReading.readDataToEndOfFile()
        #expect(out.count == size)
        #expect(err.count == size)
        #expect(out.allSatisfy { $0 == 0 })
    }

    @Test func aMissingExecutableRejects() throws {
        let child = process("/nonexistent/pledge-no-such-tool", [])
        let error = try #require(child.launch(.promise).settled()?.failureError)
        #expect(!error.isCancelled)
    }

    @Test func aProcessWithoutExecutableRejectsAsNotExecutable() throws {
        let error = try #require(Process().launch(.promise).settled()?.failureError)
        guard case Process.PMKError.notExecutable(nil) = error else {
            Issue.record("expected Process.PMKError.notExecutable(nil), got \(error)")
            return
        }
    }

    @Test func launchingAProcessTwiceRejectsTheSecondLaunch() throws {
        let child = process("/bin/echo", ["once"])
        #expect(child.launch(.promise).settled()?.successValue != nil)
        #expect(child.launch(.promise).settled()?.failureError as? PMKError == .badInput)
    }

    @Test func aTerminationHandlerSetBeforeLaunchStillRuns() throws {
        let child = process("/bin/echo", ["hi"])
        let ran = DispatchSemaphore(value: 0)
        child.terminationHandler = { _ in ran.signal() }
        #expect(child.launch(.promise).settled()?.successValue != nil)
        #expect(ran.wait(timeout: .now() + testTimeout) == .success)
    }

    @Test func aSettledProcessIsReleasedWithItsPipes() throws {
        // swift-corelibs-foundation keeps a process that nobody waited for; launch(.promise)
        // must let it go, or each launch would leak the process and its pipes' descriptors.
        weak var released: Process?
        weak var releasedPipe: Pipe?
        do {
            let child = process("/bin/echo", ["bye"])
            released = child
            let pipes = try #require(child.launch(.promise).settled()?.successValue)
            releasedPipe = pipes.out
            #expect(pipes.out.fileHandleForReading.readDataToEndOfFile() == Data("bye\n".utf8))
        }
        #expect(waitUntil { released == nil && releasedPipe == nil })
    }

    @Test func cancellingKillsAChildThatIgnoresSIGTERM() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ready = directory.appendingPathComponent("ready")
        // Given a child that ignores SIGTERM, known to have set its trap
        let child = process("/bin/sh", ["-c", "trap '' TERM; touch '\(ready.path)'; exec sleep 100"])
        let exited = DispatchSemaphore(value: 0)
        child.terminationHandler = { _ in exited.signal() }
        let promise = child.launch(.promise, terminationGracePeriod: .milliseconds(200))
        #expect(waitUntil { FileManager.default.fileExists(atPath: ready.path) })
        let identifier = child.processIdentifier

        // When the promise is cancelled
        promise.cancel()

        // Then it settles cancelled at once, and SIGKILL ends the child after the grace period
        #expect(promise.isCancelled)
        #expect(exited.wait(timeout: .now() + testTimeout) == .success)
        #expect(child.terminationReason == .uncaughtSignal)
        #expect(child.terminationStatus == SIGKILL)
        #expect(!child.isRunning)
        #expect(kill(identifier, 0) == -1 && errno == ESRCH)
    }

    @Test func cancellingAlsoEndsWhatTheChildStarted() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pidFile = directory.appendingPathComponent("grandchild")
        // Given a child that started a grandchild and waits for it
        let script = "sleep 100 & echo $! > '\(pidFile.path).tmp'; mv '\(pidFile.path).tmp' '\(pidFile.path)'; wait"
        let child = process("/bin/sh", ["-c", script])
        let exited = DispatchSemaphore(value: 0)
        child.terminationHandler = { _ in exited.signal() }
        let promise = child.launch(.promise, terminationGracePeriod: .milliseconds(200))
        #expect(waitUntil { FileManager.default.fileExists(atPath: pidFile.path) })
        let contents = try String(contentsOf: pidFile, encoding: .utf8)
        let grandchild = try #require(Int32(contents.trimmingCharacters(in: .whitespacesAndNewlines)))

        // When the promise is cancelled
        promise.cancel()

        // Then the child and the grandchild, in its process group, are ended
        #expect(promise.isCancelled)
        #expect(exited.wait(timeout: .now() + testTimeout) == .success)
        #expect(child.terminationReason == .uncaughtSignal)
        #expect(waitUntil { hasEnded(grandchild) })
    }
}

/// Whether the process `identifier` is gone, or a zombie: ended, and waiting for whichever
/// ancestor adopted it to reap it.
private func hasEnded(_ identifier: Int32) -> Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(identifier)/stat", encoding: .utf8),
        let end = stat.lastIndex(of: ")")
    else { return true }
    let fields = stat[stat.index(after: end)...].split(separator: " ")
    return fields.first == "Z" || fields.first == "X"
}
