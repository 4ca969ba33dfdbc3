import Testing

@testable import PledgeBenchmarks

/// `pledge-bench`'s command line: every option parses into its field, the repetition count
/// follows the mode, and bad input is a usage error (exit status 2), never a crash.
struct OptionsTests {
    @Test func everyOptionParsesIntoItsField() throws {
        let options = try Options.parse([
            "--quick", "--repetitions", "5", "--filter", "W2", "--json", "now.json", "--compare", "base.json",
            "--threshold", "1.5", "--probe", "w3", "100",
        ])

        #expect(options.quick)
        #expect(options.repetitions == 5)
        #expect(options.filter == "W2")
        #expect(options.jsonPath == "now.json")
        #expect(options.comparePath == "base.json")
        #expect(options.threshold == 1.5)
        #expect(options.probe?.name == "w3")
        #expect(options.probe?.count == 100)
        #expect(!options.help)
    }

    @Test func noArgumentsMeanAFullRunWithTheDefaults() throws {
        let options = try Options.parse([])

        #expect(!options.quick)
        #expect(options.effectiveRepetitions == Options.defaultRepetitions)
        #expect(options.threshold == Options.defaultThreshold)
        #expect(options.filter == nil && options.jsonPath == nil && options.comparePath == nil)
        #expect(options.probe == nil)
    }

    @Test func quickRunsTakeFewerRepetitionsUnlessTold() throws {
        #expect(try Options.parse(["--quick"]).effectiveRepetitions == Options.quickRepetitions)
        #expect(try Options.parse(["--quick", "--repetitions", "7"]).effectiveRepetitions == 7)
    }

    @Test func helpIsRecognisedInBothSpellings() throws {
        #expect(try Options.parse(["--help"]).help)
        #expect(try Options.parse(["-h"]).help)
    }

    @Test(arguments: [
        ["--bogus"],
        ["--json"],
        ["--repetitions", "0"],
        ["--repetitions", "many"],
        ["--threshold", "0.9"],
        ["--threshold", "x"],
        ["--probe", "w9", "10"],
        ["--probe", "w2", "-1"],
        ["--probe", "w2"],
    ])
    func badInputIsAUsageError(arguments: [String]) {
        #expect(throws: UsageError.self) { try Options.parse(arguments) }
    }

    @Test func aUsageErrorSaysWhatWasWrong() {
        do {
            _ = try Options.parse(["--repetitions", "many"])
            Issue.record("parsing should have failed")
        } catch {
            #expect(error.message.contains("many"))
        }
    }
}
