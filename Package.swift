// swift-tools-version:6.3
import PackageDescription

let package = Package(
    name: "Pledge",
    // The oldest systems whose Swift runtime has `Synchronization`, which Pledge's locks use.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "Pledge", targets: ["Pledge"]),
        .library(name: "PledgeFoundation", targets: ["PledgeFoundation"]),
        .library(name: "PledgeTesting", targets: ["PledgeTesting"]),
        .executable(name: "pledge-bench", targets: ["PledgeBenchmarks"]),
    ],
    targets: [
        // Strict memory safety (SE-0458): every unsafe construct left is marked `unsafe` and
        // listed in Architecture.md's "Unsafe constructs" table.
        .target(
            name: "Pledge",
            dependencies: ["CPledgeThreadLocal"],
            swiftSettings: [.swiftLanguageMode(.v6), .strictMemorySafety()]
        ),
        // PromiseKit's PMKFoundation wrappers (URLSession, Process, FileHandle, NotificationCenter):
        // the toolchain's Foundation only, so that `Pledge` itself stays Foundation-free.
        .target(
            name: "PledgeFoundation",
            dependencies: ["Pledge"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // For testing code that uses Pledge: a clock the test advances, waiting until Pledge's
        // work is done, and log events recorded per test. Neither library above uses it.
        .target(
            name: "PledgeTesting",
            dependencies: ["Pledge"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .testTarget(
            name: "PledgeTestingTests",
            dependencies: ["Pledge", "PledgeTesting"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // The samples of PledgeTesting's article, verbatim: compiled and run by `swift test`.
        .testTarget(
            name: "DocSamplesTestingFixture",
            dependencies: ["Pledge", "PledgeTesting"],
            path: "Tests/Fixtures/DocSamplesTesting",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // The C Pledge needs: the thread-local pointer to the thread's run state, and the thread's tag.
        .target(name: "CPledgeThreadLocal"),
        .testTarget(
            name: "PledgeTests",
            dependencies: ["Pledge", "CPledgeTestSetup", "PledgeTestSupport", "PledgeTesting"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // Against a loopback HTTP server, real child processes, temporary files.
        .testTarget(
            name: "PledgeFoundationTests",
            dependencies: ["Pledge", "PledgeFoundation", "PledgeTestSupport"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // What both test targets use: a clock the tests advance by hand.
        .target(
            name: "PledgeTestSupport",
            path: "Tests/PledgeTestSupport",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // Installs the tests' quiet log handler before the test runner starts.
        .target(name: "CPledgeTestSetup", path: "Tests/CPledgeTestSetup"),
        // A client fixture: compiled by every `swift build`, so idiomatic Swift 6 client code is
        // proven to build (with zero warnings under `-warnings-as-errors` in CI). The Swift 5
        // fixture and the code Swift 6 must reject are checked by `.ci/check-clients`.
        .target(
            name: "Swift6ClientFixture",
            dependencies: ["Pledge", "PledgeTestSupport", "PledgeTesting"],
            path: "Tests/Fixtures/Swift6Client",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // App code with Xcode 26's defaults (main-actor isolation by default, nonisolated async
        // functions run on their caller's actor, conformances inferred isolated), written as
        // PromiseKit code is: it builds with no diagnostics, and `.ci/run` runs it.
        .executableTarget(
            name: "MainActorAppFixture",
            dependencies: ["Pledge"],
            path: "Tests/Fixtures/MainActorApp",
            swiftSettings: [
                .swiftLanguageMode(.v6), .defaultIsolation(MainActor.self),
                .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
                .enableUpcomingFeature("InferIsolatedConformances"),
            ]
        ),
        // The Swift samples of the PledgeFoundation catalog, verbatim, so that every build compiles them.
        .target(
            name: "DocSamplesFoundationFixture",
            dependencies: ["Pledge", "PledgeFoundation"],
            path: "Tests/Fixtures/DocSamplesFoundation",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // The benchmark harness's own tests: options, sampling order, the table's numbers, the
        // JSON record and `--compare`'s verdict.
        .testTarget(
            name: "PledgeBenchmarksTests",
            dependencies: ["PledgeBenchmarks"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // The seed-reproducible random tester of the public API: a generator, an interpreter,
        // a reference model and a checker (Tests/RandomTester/README.md). A library, so that the
        // fixed-seed tests and the libFuzzer entry point (Fuzz/RandomTester) drive the same code.
        .target(
            name: "PledgeRandomTester",
            dependencies: ["Pledge"],
            path: "Tests/RandomTester",
            exclude: ["README.md"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .testTarget(
            name: "RandomTesterTests",
            dependencies: ["PledgeRandomTester"],
            path: "Tests/RandomTesterTests",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "PledgeBenchmarks",
            dependencies: ["Pledge"],
            path: "Benchmarks/PledgeBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
