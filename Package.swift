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
        // The child process of the crash and multi-process tests; not a product.
        .executableTarget(name: "logtorture", dependencies: ["EventLog"]),
        .testTarget(name: "EventLogTests", dependencies: ["EventLog"]),
        .testTarget(name: "ProjectionTests", dependencies: ["LabelProjection", "EventLog"]),
        .testTarget(name: "CLITests", dependencies: ["EventLog", "LabelProjection"]),
    ],
    swiftLanguageModes: [.v6]
)
