// swift-tools-version:6.0
import PackageDescription

// pledge-vs-nio: pledge-bench's W1–W6 next to the same jobs done with SwiftNIO's
// EventLoopFuture, sampled alternately in one run. A package of its own, so that Pledge itself
// keeps no dependencies: it compiles Pledge's sources and pledge-bench's harness through the
// symbolic links `Sources/Pledge`, `Sources/CPledgeThreadLocal` and
// `Sources/PledgeVsNIO/PledgeBenchmarks`.
//
//     cd Benchmarks/NIOComparison && swift run -c release pledge-vs-nio [pledge-bench options]

let package = Package(
    name: "PledgeVsNIO",
    products: [
        .executable(name: "pledge-vs-nio", targets: ["PledgeVsNIO"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio", exact: "2.101.3")
    ],
    targets: [
        .target(name: "CPledgeThreadLocal"),
        .target(
            name: "Pledge",
            dependencies: ["CPledgeThreadLocal"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "PledgeVsNIO",
            dependencies: [
                "Pledge",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            exclude: ["PledgeBenchmarks/main.swift"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
