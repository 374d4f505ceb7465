// swift-tools-version:6.1
import PackageDescription

// Internal invariant checks (as swift-collections' COLLECTIONS_INTERNAL_CHECKS):
// with the LABELSTORE_INTERNAL_CHECKS condition, the projection checks its
// storage (slots, id index, title arena, the order's B+-tree) after its
// mutations — every fold, order edit and rollback — and traps on the first
// broken invariant. They are on in debug builds of this package built from its
// own directory (its `swift test`), never in release builds, and off when the
// package is a dependency of an app. LABELSTORE_INTERNAL_CHECKS=1 turns them on
// for any debug build of it, =0 off.
let internalChecks: Bool = {
    switch Context.environment["LABELSTORE_INTERNAL_CHECKS"] {
    case "1": return true
    case "0": return false
    default: return Context.environment["PWD"].map { Context.packageDirectory == $0 } ?? false
    }
}()
let projectionSettings: [SwiftSetting] =
    internalChecks
    ? [.define("LABELSTORE_INTERNAL_CHECKS", .when(configuration: .debug))]
    : []

let package = Package(
    name: "LabelStore",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "EventLog", targets: ["EventLog"]),
        .library(name: "LabelProjection", targets: ["LabelProjection"]),
        .executable(name: "labelreplay", targets: ["labelreplay"]),
        // The PostgreSQL backend; its code is compiled only with the `Postgres` trait.
        .library(name: "LabelStorePostgres", targets: ["LabelStorePostgres"])
    ],
    // `Postgres` (off by default) builds the PostgreSQL backend on libpq, a system
    // C library: `swift build --traits Postgres`, or in an app's dependency
    // `.package(url: …, traits: ["Postgres"])`. Without it nothing needs libpq.
    traits: [
        .trait(name: "Postgres", description: "The PostgreSQL backend (LabelStorePostgres), built on libpq.")
    ],
    targets: [
        // Hardware CRC-32C (SSE 4.2 / ARMv8 CRC); EventLog falls back to portable Swift without it.
        .target(name: "CCRC32C"),
        // Hardware SHA-256 (x86-64 SHA extensions / ARMv8 SHA2) for the history tree; portable Swift without it.
        .target(name: "CSHA256"),
        .target(name: "EventLog", dependencies: ["CCRC32C", "CSHA256"]),
        .target(name: "LabelProjection", dependencies: ["EventLog"], swiftSettings: projectionSettings),
        // libpq through pkg-config; reached only through dependencies conditioned on the trait.
        .systemLibrary(
            name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"]), .brew(["libpq"])]),
        .target(
            name: "LabelStorePostgres",
            dependencies: [
                "EventLog", "LabelProjection",
                .target(name: "CLibPQ", condition: .when(traits: ["Postgres"]))
            ]),
        // Timeline/Assets holds the timeline page's .js and .css, embedded by TimelineAssets.swift (not resources:
        // the page is one self-contained file, and the tool one binary).
        .executableTarget(
            name: "labelreplay", dependencies: ["EventLog", "LabelProjection", "LabelStorePostgres"], exclude: ["Timeline/Assets"]),
        // What the tests and their child process share (seeded randomness, stress records,
        // fixtures, finding the built executables); not a product.
        .target(name: "LabelStoreTestSupport", dependencies: ["EventLog", "LabelStorePostgres"], path: "Tests/TestSupport"),
        // The child process of the crash and multi-process tests; not a product.
        .executableTarget(
            name: "logtorture", dependencies: ["EventLog", "LabelProjection", "LabelStorePostgres", "LabelStoreTestSupport"]),
        .testTarget(name: "EventLogTests", dependencies: ["EventLog", "LabelStoreTestSupport"]),
        .testTarget(
            name: "ProjectionTests", dependencies: ["LabelProjection", "EventLog", "LabelStorePostgres", "LabelStoreTestSupport"]),
        // Golden/ holds the expected `--help` texts, read by path (HelpGoldenTests), not resources.
        // Every ```swift block of README.md, docs/ and the DocC articles, compiled (and run).
        .testTarget(name: "SnippetTests", dependencies: ["LabelProjection", "EventLog", "LabelStorePostgres"]),
        // Runs against a real server (scripts/pg-test-server); compiled only with the trait.
        .testTarget(
            name: "PostgresTests",
            dependencies: [
                "LabelStorePostgres", "EventLog", "LabelProjection", "LabelStoreTestSupport",
                .target(name: "CLibPQ", condition: .when(traits: ["Postgres"]))
            ]),
        // The seeds' filter screen written as an app would, with the public API only (no @testable).
        .testTarget(name: "AppTests", dependencies: ["LabelProjection"]),
        // CLITests run the built tool, and test its hand-written JSON writers in process (`@testable import labelreplay`).
        .testTarget(
            name: "CLITests", dependencies: ["EventLog", "LabelProjection", "LabelStoreTestSupport", "labelreplay"],
            exclude: ["Golden"])
    ],
    swiftLanguageModes: [.v6]
)
