// swift-tools-version:6.2
import PackageDescription

// quote-server: a Hummingbird 2 server whose route calls a flaky backend through a Pledge chain
// (`retry(decide:)` honouring `Retry-After`, and `timeout(for:)`), bridged to the handler with
// `async()`. A package of its own, so that Pledge keeps no dependencies. See README.md.
let package = Package(
    name: "QuoteServer",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Pledge", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1", traits: []),
    ],
    targets: [
        .executableTarget(
            name: "QuoteServer",
            dependencies: [
                .product(name: "Pledge", package: "Pledge"),
                .product(name: "PledgeFoundation", package: "Pledge"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        )
    ]
)
