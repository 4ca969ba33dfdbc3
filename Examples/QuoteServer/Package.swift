// swift-tools-version:6.2
import PackageDescription

// quote-server: a Hummingbird 2 server whose route calls a flaky backend through a Pledge chain
// (`retry(decide:)` honouring `Retry-After`, and `timeout(for:)`), bridged to the handler with
// `async()`, logging through swift-log with the request's id and tracing each backend call with
// swift-distributed-tracing; and three routes doing the same in-process work as a Pledge chain,
// with async/await and with SwiftNIO futures, to compare under load. A package of its own, so
// that Pledge keeps no dependencies. See README.md.
let package = Package(
    name: "QuoteServer",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Pledge", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", exact: "1.7.3"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        // The routes, the backends and the observability, as a library the tests drive too.
        .target(
            name: "QuoteService",
            dependencies: [
                .product(name: "Pledge", package: "Pledge"),
                .product(name: "PledgeFoundation", package: "Pledge"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "QuoteServer",
            dependencies: ["QuoteService", .product(name: "Hummingbird", package: "hummingbird")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .testTarget(
            name: "QuoteServiceTests",
            dependencies: [
                "QuoteService",
                .product(name: "Pledge", package: "Pledge"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
