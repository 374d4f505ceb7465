// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "LabelStore",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "EventLog", targets: ["EventLog"]),
        .library(name: "LabelProjection", targets: ["LabelProjection"]),
        .executable(name: "labelreplay", targets: ["labelreplay"]),
    ],
    targets: [
        // Hardware CRC-32C (SSE 4.2 / ARMv8 CRC); EventLog falls back to portable Swift without it.
        .target(name: "CCRC32C"),
        .target(name: "EventLog", dependencies: ["CCRC32C"]),
        .target(name: "LabelProjection", dependencies: ["EventLog"]),
        .executableTarget(name: "labelreplay", dependencies: ["EventLog", "LabelProjection"]),
        // What the tests and their child process share (seeded randomness, stress records,
        // fixtures, finding the built executables); not a product.
        .target(name: "LabelStoreTestSupport", dependencies: ["EventLog"], path: "Tests/TestSupport"),
        // The child process of the crash and multi-process tests; not a product.
        .executableTarget(name: "logtorture", dependencies: ["EventLog", "LabelStoreTestSupport"]),
        .testTarget(name: "EventLogTests", dependencies: ["EventLog", "LabelStoreTestSupport"]),
        .testTarget(name: "ProjectionTests", dependencies: ["LabelProjection", "EventLog", "LabelStoreTestSupport"]),
        // Golden/ holds the expected `--help` texts, read by path (HelpGoldenTests), not resources.
        .testTarget(name: "CLITests", dependencies: ["EventLog", "LabelProjection", "LabelStoreTestSupport"],
                    exclude: ["Golden"]),
    ],
    swiftLanguageModes: [.v6]
)
