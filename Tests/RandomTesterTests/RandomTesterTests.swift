import Foundation
import PledgeRandomTester
import Testing

/// The random tester over a fixed list of seeds (`PLEDGE_RANDOM_SEEDS`, see ``Settings``).
///
/// The rounds run in exit tests' child processes: the tester takes over `conf.logHandler` there
/// to keep what Pledge logs, which would disturb the suites that capture the log if it ran in
/// this process. The seeds are dealt out to one child per core (``Settings/shards``), which run
/// side by side. Each child sends its standard error to a file, so that its reports and any
/// sanitizer report reach the parent, which prints them when a round failed or the child died.
@Suite struct RandomTesterTests {
    @Test(arguments: 0..<Settings.shards)
    func everyRoundOfTheFixedSeedsMatchesTheModel(shard: Int) async throws {
        let log: String = FileManager.default.temporaryDirectory
            .appendingPathComponent("pledge-random-\(ProcessInfo.processInfo.processIdentifier)-\(shard).log").path
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: log) }
        await #expect(processExitsWith: .success) { [log = log as String, shard = shard as Int] in
            let settings = Settings(defaultSeeds: 0..<200).shard(shard, of: Settings.shards)
            let passed = RandomTester.runSeeds(settings, reportingTo: log)
            exit(passed ? EXIT_SUCCESS : EXIT_FAILURE)
        }
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        let summary = lines.last { $0.hasPrefix("random tester: ") }
        if summary?.hasSuffix(" 0 failed") == true, !lines.contains(where: { $0.contains("Sanitizer") }),
            ProcessInfo.processInfo.environment["PLEDGE_RANDOM_VERBOSE"] != "1"
        {
            let summaries = lines.filter { $0.hasPrefix("random tester: ") }.map { "shard \(shard): \($0)" }
            print(summaries.joined(separator: "\n"))
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

    @Test func theShardsDealOutEverySeedOnce() {
        let settings = Settings(environment: [:], defaultSeeds: 0..<11)
        let dealt = (0..<3).flatMap { settings.shard($0, of: 3).seeds }
        #expect(dealt.sorted() == settings.seeds)
    }
}
