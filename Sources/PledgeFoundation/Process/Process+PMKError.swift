import Foundation

extension Process {
    /// The errors `launch(.promise)` rejects with, as PromiseKit names them.
    ///
    /// `Process` is `Sendable` in the toolchain's Foundation, so the error carries the process
    /// itself, exited: read its `terminationStatus` and `terminationReason`, or use
    /// ``terminationStatus`` and ``terminationReason`` here.
    ///
    /// ```swift
    /// process.launch(.promise).catch { error in
    ///     if case Process.PMKError.execution(_, _, let standardError) = error {
    ///         print(standardError ?? "")
    ///     }
    /// }
    /// ```
    public enum PMKError: Error, Sendable {
        /// The process has no executable: neither `executableURL` nor `launchPath` was set.
        /// Carries the launch path, `nil` here.
        case notExecutable(String?)

        /// The process exited with a status other than zero, or was terminated by a signal.
        /// Carries the process and its standard output and standard error, decoded as UTF-8
        /// (`nil` for output that is not UTF-8).
        case execution(process: Process, standardOutput: String?, standardError: String?)

        /// The exit status, or the number of the signal that terminated the process; `nil` for
        /// ``notExecutable(_:)``.
        public var terminationStatus: Int32? {
            guard case .execution(let process, _, _) = self else { return nil }
            return process.terminationStatus
        }

        /// Whether the process exited or was terminated by a signal; `nil` for
        /// ``notExecutable(_:)``.
        public var terminationReason: Process.TerminationReason? {
            guard case .execution(let process, _, _) = self else { return nil }
            return process.terminationReason
        }
    }
}

extension Process.PMKError: LocalizedError {
    /// A sentence naming the command line and how it ended, followed by the start of its
    /// standard error, if any: for `sh -c "exit 3"`, the command line in backticks followed by
    /// "exited with status 3."
    public var errorDescription: String? {
        switch self {
        case .notExecutable(let path?):
            return "File not executable: \(path)"
        case .notExecutable(nil):
            return "No executable specified: set the process's executableURL."
        case .execution(let process, _, let standardError):
            let ending: String
            switch process.terminationReason {
            case .exit: ending = "exited with status \(process.terminationStatus)"
            case .uncaughtSignal: ending = "was terminated by signal \(process.terminationStatus)"
            @unknown default: ending = "ended with status \(process.terminationStatus)"
            }
            var sentence = "`\(process.commandLine)` \(ending)."
            if let standardError, !standardError.isEmpty {
                let trimmed = standardError.trimmingCharacters(in: .whitespacesAndNewlines)
                let limit = 1000
                let excerpt = trimmed.count > limit ? String(trimmed.prefix(limit)) + "…" : trimmed
                sentence += " Standard error: \(excerpt)"
            }
            return sentence
        }
    }
}

extension Process.PMKError: CustomStringConvertible {
    /// The ``errorDescription``.
    public var description: String {
        errorDescription ?? "Process error"
    }
}

extension Process {
    /// The executable and its arguments as a shell would show them: arguments with spaces, or
    /// empty, in double quotes.
    var commandLine: String {
        let executable = executableURL?.path ?? "(no executable)"
        return ([executable] + (arguments ?? [])).map { argument in
            if argument.isEmpty { return "\"\"" }
            return argument.contains(" ") ? "\"\(argument)\"" : argument
        }.joined(separator: " ")
    }
}
