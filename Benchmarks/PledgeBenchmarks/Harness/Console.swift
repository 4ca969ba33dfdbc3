import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// Output and verdicts: unbuffered writes, and the checks that turn into the exit status.

/// Verification failures: printed as they happen, and a non-zero exit status at the end.
final class Failures: Sendable {
    static let shared = Failures()

    private let count = Atomic<Int>(0)

    /// Whether any check failed so far.
    var any: Bool { count.load(ordering: .acquiring) > 0 }

    /// Reports a failed check.
    func record(_ message: String) {
        count.add(1, ordering: .acquiringAndReleasing)
        Console.error("FAILED: \(message)")
    }

    /// Reports a failure unless `condition` holds.
    func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { record(message()) }
    }
}

/// Unbuffered output, so that progress shows while a long run goes on, even through a pipe.
enum Console {
    /// Writes `text` and a newline to standard output.
    static func out(_ text: String) {
        write(STDOUT_FILENO, text + "\n")
    }

    /// Writes `text` and a newline to standard error.
    static func error(_ text: String) {
        write(STDERR_FILENO, text + "\n")
    }

    /// Whether output is dropped: set by the harness's tests, which run whole suites and would
    /// otherwise print their tables into the test log. Never set by `pledge-bench` itself.
    private static let muted = Atomic<Bool>(false)

    /// Drops all further output of this process.
    static func mute() {
        muted.store(true, ordering: .relaxed)
    }

    private static func write(_ descriptor: Int32, _ text: String) {
        if muted.load(ordering: .relaxed) { return }
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = systemWrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written <= 0 { return }
                offset += written
            }
        }
    }
}

/// `write(2)`, under a name that does not clash with the `write` methods of ``Console`` and
/// ``RunRecord``.
@inline(__always)
func systemWrite(_ descriptor: Int32, _ bytes: UnsafePointer<UInt8>, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}
