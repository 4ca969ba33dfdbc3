import Foundation
import Pledge

extension Process {
    /// Launches the process and returns a promise of its standard output and standard error,
    /// fulfilled when it exits with status zero.
    ///
    /// The process's `standardOutput` and `standardError` are replaced by new pipes, which Pledge
    /// reads while the process runs (two threads of its own wait in `read` until the pipes'
    /// end), so a process that writes more than a pipe holds (64 KiB on Linux) never stalls. When the process has exited and closed both, the promise settles, on
    /// a private serial queue:
    /// - exit status zero: fulfilled with the two pipes. Each pipe's `fileHandleForReading`
    ///   then reads everything the process wrote to it, from the start, then reaches its end:
    ///   `readDataToEndOfFile()` returns it all at once, however large (PromiseKit's code reads
    ///   the pipes that way and works unchanged). The output is kept in an unlinked temporary
    ///   file until the pipe is released.
    /// - a status other than zero, or a signal: rejected with
    ///   ``PMKError/execution(process:standardOutput:standardError:)``, which carries the
    ///   process and both outputs.
    /// - no executable set: rejected with ``PMKError/notExecutable(_:)``; an executable that
    ///   cannot be launched (missing, not executable): rejected with the error `run()` throws;
    ///   a process launched already: rejected with `PMKError.badInput`.
    ///
    /// A `terminationHandler` set before the call still runs, after Pledge's own; do not set one
    /// after the call: it replaces Pledge's, and the promise then settles only when cancelled.
    /// Processes that the process started and that keep running (a daemon it forked, say)
    /// delay the promise until they exit, even with their output redirected: on Linux they also
    /// inherit the descriptor through which Foundation sees the process exit, so until they
    /// close it the process counts as running. Launches through this method take turns to
    /// spawn, so processes launched at the same moment never hold up one another; on Linux a
    /// process spawned with `run()` on another thread at that moment, or an instance of a
    /// subclass of `Process` (whose `run()` may be code of yours, so it never takes a turn), can
    /// still inherit this one's pipes (swift-corelibs-foundation closes inherited descriptors by
    /// listing them first), and then delays this promise until it exits.
    ///
    /// Cancelling the promise rejects it with `PMKError.cancelled` at once and terminates the
    /// process: `SIGTERM` to its process group (Foundation starts each process in a group of its
    /// own, so whatever it started goes too), then, if it is still running after
    /// `terminationGracePeriod`, `SIGKILL`. A process that ignores or blocks `SIGTERM` is thus
    /// killed all the same. The process starts with no signal blocked, whatever the mask of the
    /// calling thread (Dispatch's threads block most signals, `SIGCHLD` and `SIGTERM` among them).
    ///
    /// ```swift
    /// let process = Process()
    /// process.executableURL = URL(fileURLWithPath: "/usr/bin/git")
    /// process.arguments = ["rev-parse", "HEAD"]
    /// process.launch(.promise).map { out, _ in
    ///     String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    /// }.done { head in
    ///     print(head)
    /// }.catch { error in
    ///     print(error.localizedDescription)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - _: Always `.promise`.
    ///   - terminationGracePeriod: How long a cancelled process has to exit after `SIGTERM`
    ///     before it is sent `SIGKILL`; `.never` sends `SIGTERM` only.
    /// - Returns: A promise of the pipes holding the process's standard output and standard
    ///   error.
    public func launch(
        _: PMKNamespacer, terminationGracePeriod: DispatchTimeInterval = .seconds(5)
    ) -> Promise<(out: Pipe, err: Pipe)> {
        guard processIdentifier == 0, !isRunning else {
            return Promise(error: Pledge.PMKError.badInput)
        }
        guard executableURL != nil else {
            return Promise(error: PMKError.notExecutable(nil))
        }
        let (promise, seal) = Promise<(out: Pipe, err: Pipe)>.pending()
        let previousHandler = terminationHandler
        let (previousOutput, previousError) = (standardOutput, standardError)
        let processRun: ProcessRun
        do {
            processRun = try withLaunchesSerialized {
                // The run makes the pipes: inside, so no other launch spawns a child between.
                let processRun = ProcessRun(process: self, resolver: seal, gracePeriod: terminationGracePeriod)
                // Weak: the process keeps its handler for good, and the run keeps the process.
                terminationHandler = { [weak processRun] process in
                    // The process has exited, so this returns at once; it also lets
                    // swift-corelibs-foundation release the process, which it keeps otherwise
                    // (its run loop source retains it).
                    process.waitUntilExit()
                    processRun?.processExited()
                    previousHandler?(process)
                }
                do {
                    try runWithNoSignalsBlocked()
                } catch {
                    processRun.abandon()
                    throw error
                }
                return processRun
            }
        } catch {
            // Leave the process as it was. Foundation keeps a process whose spawn failed (a
            // missing working directory, say) alive for good, so pipes left on it never close.
            terminationHandler = previousHandler
            standardOutput = previousOutput
            standardError = previousError
            seal.reject(error)
            return promise
        }
        processRun.startReading()
        seal.onCancel { processRun.terminate() }
        return promise
    }
}

/// Held while `launch(.promise)` makes its pipes and spawns the process.
private let launchLock = NSLock()

extension Process {
    /// Runs `body` (which makes the pipes and spawns the process) with no other
    /// `launch(.promise)` doing the same.
    ///
    /// On Linux, swift-corelibs-foundation keeps a child from inheriting the parent's other
    /// descriptors by listing those open just before the spawn and closing each in the child.
    /// A descriptor opened by another thread between that listing and the spawn (the pipes and
    /// exit-notification socket of a process launched at the same moment) leaks into the child,
    /// and the other process's promise then waits until this child exits. Launches made here
    /// take turns, so they cannot leak into one another. A subclass's `run()` is user code, so
    /// it runs with no lock held (and is not serialised).
    fileprivate func withLaunchesSerialized<Result>(_ body: () throws -> Result) rethrows -> Result {
        guard type(of: self) == Process.self else { return try body() }
        return try launchLock.withLock(body)
    }
}

extension Process {
    /// `run()`, with the calling thread's signal mask emptied for the spawn and restored after.
    ///
    /// swift-corelibs-foundation spawns the child with the signal mask of the calling thread.
    /// Dispatch's worker threads (where promise handlers and tests run) block most signals, so a
    /// child started from one would start with `SIGCHLD`, `SIGTERM`, `SIGINT` and `SIGALRM`
    /// blocked: a shell script that runs jobs in the background and `wait`s for them never wakes,
    /// and a polite `SIGTERM` never arrives. The main thread's mask is empty already, so
    /// unblocking this thread for a moment lets no signal in that the process could not receive
    /// anyway.
    fileprivate func runWithNoSignalsBlocked() throws {
        #if os(Linux)
            var empty = sigset_t()
            var previous = sigset_t()
            sigemptyset(&empty)
            let changed = pthread_sigmask(SIG_SETMASK, &empty, &previous) == 0
            defer { if changed { pthread_sigmask(SIG_SETMASK, &previous, nil) } }
        #endif
        try run()
    }
}
