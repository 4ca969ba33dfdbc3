// swift-tools-version:6.2
import PackageDescription

// pledge-migrate: rewrites PromiseKit client code for Pledge, and reports what it cannot rewrite.
// A package of its own, so that Pledge keeps no dependencies; swift-syntax resolves from the
// machine's package copies. See README.md.
let package = Package(
    name: "PledgeMigrate",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "pledge-migrate", targets: ["pledge-migrate"])
    ],
    dependencies: [
        .package(url: "https://github.com/swiftlang/swift-syntax", exact: "603.0.1")
    ],
    targets: [
        .target(
            name: "PledgeMigrateCore",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftParser", package: "swift-syntax"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "pledge-migrate",
            dependencies: ["PledgeMigrateCore"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .testTarget(
            name: "PledgeMigrateTests",
            dependencies: ["PledgeMigrateCore"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
