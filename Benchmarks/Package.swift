// swift-tools-version:6.1
import PackageDescription

// The benchmark harness of the label store: `labelbench` compares the EventLog
// with SQLite (through its C API) on the same events. Always run it in release mode:
//
//     swift run -c release --package-path Benchmarks labelbench [--quick]
//
// With the `Postgres` trait it also measures the PostgreSQL backend (the root
// package's `Postgres` trait) against plain tables on the same server:
//
//     swift run -c release --package-path Benchmarks --traits Postgres labelbench --filter pg --postgres CONNINFO
//
// It is a separate package so that `swift test` at the root needs neither SQLite nor this code.
let package = Package(
    name: "LabelBench",
    platforms: [.macOS(.v15)],
    // `Postgres` (off by default): the server workloads (`pg-*`), on libpq.
    traits: [
        .trait(name: "Postgres", description: "The PostgreSQL workloads (pg-*): LabelStorePostgres and plain-table peers, on libpq.")
    ],
    dependencies: [
        .package(
            name: "LabelStore", path: "..",
            traits: [.trait(name: "Postgres", condition: .when(traits: ["Postgres"]))])
    ],
    targets: [
        // SQLite's C API from the system (Debian/Ubuntu: apt-get install libsqlite3-dev).
        .systemLibrary(
            name: "CSQLite",
            path: "Sources/CSQLite",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        // libpq for the PostgreSQL peers' SQL (the root's CLibPQ is not a product);
        // needed only with the `Postgres` trait.
        .systemLibrary(
            name: "CLibPQPeer",
            path: "Sources/CLibPQPeer",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"]), .brew(["libpq"])]
        ),
        .target(
            name: "LabelBenchKit",
            dependencies: [
                .product(name: "EventLog", package: "LabelStore"),
                .product(name: "LabelProjection", package: "LabelStore"),
                .product(name: "LabelStorePostgres", package: "LabelStore", condition: .when(traits: ["Postgres"])),
                .target(name: "CLibPQPeer", condition: .when(traits: ["Postgres"])),
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
