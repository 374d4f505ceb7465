import EventLog
import Foundation
import Testing

@testable import LabelProjection

/// The differential oracle for the store: seeded, reproducible runs of random
/// commands, batches and raw entries (renames to canonically equivalent
/// titles among them) against a store over an in-memory log and over a file
/// log, with subscribers of every kind — per-label title, `isEnabled` and
/// label, membership, enabled count, everything, filtered views on queries
/// with the scalars where Foundation's search is not normalization-invariant,
/// callbacks and streams started at random seqs — checked after every step
/// against a plain-array model (``OracleHistory``), across `close()`,
/// releasing the store, and reopening (from snapshots, for a file).
///
/// The default run takes a few seconds; `LABELSTORE_SOAK=1` runs 20 seeds
/// per backing with longer epochs, and `LABELSTORE_ORACLE_SEED=N` seed N alone. The runs go one at a time (they share the
/// main actor anyway), so a soak run holds one history in memory at a time.
@MainActor
@Suite(.serialized) struct StoreOracleTests {
    nonisolated static let soak = ProcessInfo.processInfo.environment["LABELSTORE_SOAK"] != nil
    /// `LABELSTORE_ORACLE_SEED=N` runs seed N alone (to replay a soak run's failure).
    nonisolated static let seeds: [UInt64] =
        ProcessInfo.processInfo.environment["LABELSTORE_ORACLE_SEED"].flatMap(UInt64.init).map { [$0] }
        ?? (soak ? Array(1...20) : [1, 2])

    func directory() throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("oracle-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url.path
    }

    func run(_ backing: OracleRun.Backing, seed: UInt64) async throws -> [String: Int] {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let run = OracleRun(backing, seed: seed, directory: directory)
        try await run.run(epochs: Self.soak ? 8 : 4, steps: Self.soak ? 400 : 70)
        return run.counts
    }

    @Test(arguments: seeds) func aStoreOverAnInMemoryLogAgreesWithTheOracle(seed: UInt64) async throws {
        let counts = try await run(.memory, seed: seed)
        for what in [
            "written", "refused", "no-op", "canonical rename", "canonical raw rename", "raw entries", "time travel", "closed", "released"
        ] {
            #expect(counts[what, default: 0] > 0, "the run must exercise \(what): \(counts)")
        }
    }

    @Test(arguments: seeds) func aStoreOverAFileLogAgreesWithTheOracle(seed: UInt64) async throws {
        let counts = try await run(.file, seed: seed)
        for what in ["written", "refused", "canonical rename", "raw entries", "snapshot written", "opened from a snapshot"] {
            #expect(counts[what, default: 0] > 0, "the run must exercise \(what): \(counts)")
        }
    }

    @Test(arguments: seeds) func aStoreOverAFormatFourFileLogAgreesWithTheOracle(seed: UInt64) async throws {
        let counts = try await run(.fileFormat4, seed: seed)
        for what in ["written", "refused", "canonical rename", "raw entries", "snapshot written", "opened from a snapshot"] {
            #expect(counts[what, default: 0] > 0, "the run must exercise \(what): \(counts)")
        }
    }

    #if Postgres
    @Test(arguments: seeds) func aStoreOverAServerLogAgreesWithTheOracle(seed: UInt64) async throws {
        let counts = try await run(.server, seed: seed)
        for what in ["written", "refused", "canonical rename", "raw entries", "time travel", "closed", "released"] {
            #expect(counts[what, default: 0] > 0, "the run must exercise \(what): \(counts)")
        }
    }
    #endif
}
