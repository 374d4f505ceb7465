// swift-tools-version:6.0
import PackageDescription

// The benchmark harness of the label store: `labelbench` compares the EventLog
// with SQLite (through its C API) on the same events. Always run it in release mode:
//
//     swift run -c release --package-path Benchmarks labelbench [--quick]
//
// It is a separate package so that `swift test` at the root needs neither SQLite nor this code.
let package = Package(
    name: "LabelBench",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "LabelStore", path: "..")
    ],
    targets: [
        // SQLite's C API from the system (Debian/Ubuntu: apt-get install libsqlite3-dev).
        .systemLibrary(
            name: "CSQLite",
            path: "Sources/CSQLite",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .target(
            name: "LabelBenchKit",
            dependencies: [
                .product(name: "EventLog", package: "LabelStore"),
                .product(name: "LabelProjection", package: "LabelStore"),
                "CSQLite"
            ]
        ),
        .executableTarget(name: "labelbench", dependencies: ["LabelBenchKit"]),
        .testTarget(
            name: "LabelBenchKitTests",
            dependencies: [
                "LabelBenchKit",
                .product(name: "LabelProjection", package: "LabelStore")
            ])
    ],
    swiftLanguageModes: [.v6]
)
