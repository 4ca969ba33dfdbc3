import Foundation
import PledgeRandomTester
import Testing

/// The random tester over a fixed list of seeds (`PLEDGE_RANDOM_SEEDS`, see ``Settings``).
///
/// The rounds run in an exit test's child process: the tester takes over `conf.logHandler` there
/// to keep what Pledge logs, which would disturb the suites that capture the log if it ran in
/// this process. The child sends its standard error to a file, so that its reports and any
/// sanitizer report reach the parent, which prints them when a round failed or the child died.
@Suite struct RandomTesterTests {
    @Test func everyRoundOfTheFixedSeedsMatchesTheModel() async throws {
        let log: String = FileManager.default.temporaryDirectory
            .appendingPathComponent("pledge-random-\(ProcessInfo.processInfo.processIdentifier).log").path
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: log) }
        // The child inherits the environment: that is how it learns where to write.
        setenv("PLEDGE_RANDOM_CHILD_LOG", log, 1)
        await #expect(processExitsWith: .success) {
            let log = ProcessInfo.processInfo.environment["PLEDGE_RANDOM_CHILD_LOG"] ?? "/dev/stderr"
            let passed = RandomTester.runSeeds(Settings(defaultSeeds: 0..<200), reportingTo: log)
            exit(passed ? EXIT_SUCCESS : EXIT_FAILURE)
        }
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        let summary = lines.last { $0.hasPrefix("random tester: ") }
        if summary?.hasSuffix(" 0 failed") == true, !lines.contains(where: { $0.contains("Sanitizer") }),
            ProcessInfo.processInfo.environment["PLEDGE_RANDOM_VERBOSE"] != "1"
        {
            print(lines.filter { $0.hasPrefix("random tester: ") }.joined(separator: "\n"))
            return
        }
        let lastSeed = lines.last { $0.hasPrefix("playing seed ") } ?? "none"
        let shown = lines.filter { !$0.hasPrefix("playing seed ") }
        let hint = "(the last seed the child started: \(lastSeed); PLEDGE_RANDOM_VERBOSE=1 prints each program first)"
        print((shown.map(String.init) + [hint]).joined(separator: "\n"))
    }

    @Test func aSeedAlwaysMakesTheSameProgram() {
        #expect(RandomTester.programText(seed: 7) == RandomTester.programText(seed: 7))
        #expect(RandomTester.programText(seed: 7) != RandomTester.programText(seed: 8))
    }
}
