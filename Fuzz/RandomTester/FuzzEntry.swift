import Foundation
import PledgeRandomTester

/// libFuzzer's entry point: the input's bytes are the generator's choices, so every input is a
/// program, played and checked as a seeded round is. A model mismatch or a hang aborts, which
/// libFuzzer reports as a crash and saves the input; a sanitizer report does the same.
///
/// libFuzzer calls this on the main thread, and main-actor handlers run only where something
/// drains the main queue: the round runs on another thread while this one runs the main run loop.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FuzzProcess.prepare()
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let round = FuzzRound()
    Thread.detachNewThread {
        round.finish(RandomTester.run(bytes: bytes, options: FuzzProcess.options, deadline: .seconds(10)))
    }
    while !round.isFinished {
        _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.001))
    }
    if let report = round.report, !report.passed {
        FileHandle.standardError.write(Data((report.description + "\n").utf8))
        abort()
    }
    return 0
}

/// The process-wide setup, done once: the tester takes over `conf.logHandler`.
enum FuzzProcess {
    private static let prepared: Void = RandomTester.prepareProcess()

    /// `PLEDGE_RANDOM_AVOID` as for the seeded runs.
    static let options = Settings(defaultSeeds: 0..<1).options

    static func prepare() { prepared }
}

/// One input's round, handed from the thread that plays it to the main thread.
final class FuzzRound: @unchecked Sendable {
    // Safety: `stored` is only read or written while `lock` is held.
    private var stored: RoundReport?
    private let lock = NSLock()

    var isFinished: Bool { lock.withLock { stored != nil } }
    var report: RoundReport? { lock.withLock { stored } }

    func finish(_ report: RoundReport) {
        lock.withLock { stored = report }
    }
}
