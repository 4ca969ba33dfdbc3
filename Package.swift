// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Pledge",
    products: [
        .library(name: "Pledge", targets: ["Pledge"]),
        .executable(name: "pledge-bench", targets: ["PledgeBenchmarks"]),
    ],
    targets: [
        .target(
            name: "Pledge",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .testTarget(
            name: "PledgeTests",
            dependencies: ["Pledge"],
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
