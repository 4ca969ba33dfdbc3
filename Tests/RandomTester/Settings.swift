import Foundation

/// The tester's settings from the environment, so that CI and a person replaying a seed use the
/// same test: `PLEDGE_RANDOM_SEEDS` (`0..<500`, `7,42` or `3`), `PLEDGE_RANDOM_AVOID` (a
/// comma-separated list of ``KnownBug`` raw values, or `none`, the default),
/// `PLEDGE_RANDOM_DEADLINE` (seconds a round may take; 20 by default), `PLEDGE_RANDOM_VERBOSE=1`,
/// `PLEDGE_RANDOM_SHARDS` (how many processes share the seeds; one per core, at most 4, by default).
public struct Settings: Sendable {
    /// How many child processes share the seeds: `PLEDGE_RANDOM_SHARDS`, or one per core up to 4.
    /// The rounds of one process run one after another; a round uses at most 4 threads, mostly
    /// waiting on one another, so one process keeps about one core busy.
    public static let shards: Int = {
        if let asked = Int(ProcessInfo.processInfo.environment["PLEDGE_RANDOM_SHARDS"] ?? ""), asked > 0 {
            return asked
        }
        return max(1, min(ProcessInfo.processInfo.activeProcessorCount, 4))
    }()

    public var seeds: [UInt64]
    public var options: ModelOptions
    public var deadline: Duration
    /// `PLEDGE_RANDOM_VERBOSE=1`: print every round's trace, passing or not.
    public var verbose: Bool

    public init(environment: [String: String] = ProcessInfo.processInfo.environment, defaultSeeds: Range<UInt64>) {
        seeds = Self.seeds(environment["PLEDGE_RANDOM_SEEDS"]) ?? Array(defaultSeeds)
        options = .today
        if let avoid = environment["PLEDGE_RANDOM_AVOID"] {
            options.avoiding = Set(avoid.split(separator: ",").compactMap { KnownBug(rawValue: String($0)) })
        }
        verbose = environment["PLEDGE_RANDOM_VERBOSE"] == "1"
        deadline = .seconds(Int(environment["PLEDGE_RANDOM_DEADLINE"] ?? "") ?? 20)
    }

    /// The seeds at positions `index`, `index + count`, `index + 2 × count`, …: shard `index` of
    /// `count`, which together hold every seed once.
    public func shard(_ index: Int, of count: Int) -> Settings {
        var shard = self
        shard.seeds = seeds.enumerated().filter { $0.offset % count == index }.map(\.element)
        return shard
    }

    private static func seeds(_ text: String?) -> [UInt64]? {
        guard let text, !text.isEmpty else { return nil }
        if let range = text.range(of: "..<") {
            guard let low = UInt64(text[..<range.lowerBound]), let high = UInt64(text[range.upperBound...]) else {
                return nil
            }
            return Array(low..<max(low, high))
        }
        let list = text.split(separator: ",").compactMap { UInt64($0.trimmingCharacters(in: .whitespaces)) }
        return list.isEmpty ? nil : list
    }
}
