import Foundation
import Testing

@testable import EventLog

/// A seeded model checker for the writer (``WriterModelCheck``): random
/// appends, syncs, discards, concurrent appenders, injected write, sync and
/// preallocation failures, and crashes of every kind; after every crash the
/// log must open in the default mode and hold every acknowledged record
/// exactly, followed only by whole records that were in flight; a writer that
/// saw a failed sync must refuse every later append.
///
/// `LABELSTORE_SOAK=1` runs 1,000 rounds per mode instead of 24; `LABELSTORE_MODEL_SEED=N`
/// replays the single round N (its violations and steps are printed), and
/// `LABELSTORE_MODEL_TRACE=1` prints every step as it happens.
@Suite("Writer model check")
struct WriterModelCheckTests {
    static let environment = ProcessInfo.processInfo.environment
    static let soak = environment["LABELSTORE_SOAK"] != nil
    static let rounds = soak ? 1_000 : 24

    @Test(arguments: Durability.allCases, [LogFormat.currentVersion, LogFormat.batchVersion])
    func everyCrashLeavesALogThatOpensWithEveryAcknowledgedRecord(mode: Durability, format: UInt16) {
        // Format 4 rounds (batch frames; a discard inside one is refused and changes nothing) have seeds of their own.
        let formatSeeds: UInt64 = format == LogFormat.currentVersion ? 0 : 30_000
        let modeSeeds: UInt64 =
            switch mode {
            case .syncEachAppend: 10_000
            case .groupCommit: 20_000
            case .noSync: 30_000
            }
        let firstSeed = formatSeeds + modeSeeds
        let seeds: [UInt64]
        if let replay = Self.environment["LABELSTORE_MODEL_SEED"].flatMap(UInt64.init) {
            // Seeds of each mode lie in their own range: replay in that mode only.
            seeds = replay / 10_000 == firstSeed / 10_000 ? [replay] : []
        } else {
            seeds = (0..<UInt64(Self.rounds)).map { firstSeed + $0 }
        }
        let clock = ContinuousClock()
        let start = clock.now
        var failing: [(seed: UInt64, failures: [String], trace: [String], summary: String)] = []
        var slowest: (seed: UInt64, time: Duration) = (0, .zero)
        for seed in seeds {
            let roundStart = clock.now
            let round = WriterModelCheck(mode: mode, seed: seed, format: format)
            let failures = round.run()
            if !failures.isEmpty { failing.append((seed, failures, round.trace, round.summary)) }
            let time = clock.now - roundStart
            if time > slowest.time { slowest = (seed, time) }
        }
        let kinds = Dictionary(grouping: failing.flatMap(\.failures), by: Self.kind).mapValues(\.count)
        print(
            "writer model check (\(mode), format \(format)): \(seeds.count) rounds in \(clock.now - start), \(failing.count) failing (slowest: seed \(slowest.seed), \(slowest.time)); violations by kind: \(kinds)"
        )
        for round in failing.prefix(3) {
            Issue.record(
                """
                seed \(round.seed) (\(round.summary)): \(round.failures.joined(separator: "\n"))
                replay: LABELSTORE_MODEL_SEED=\(round.seed) swift test --skip-build --filter 'everyCrashLeavesALogThatOpensWithEveryAcknowledgedRecord'
                last steps:
                \(round.trace.suffix(24).joined(separator: "\n"))
                """)
        }
        if failing.count > 3 {
            let others = failing.dropFirst(3).map { "seed \($0.seed): \($0.failures[0].prefix(300))" }
            Issue.record("\(failing.count - 3) more failing rounds; violations by kind: \(kinds)\n\(others.joined(separator: "\n"))")
        }
    }

    /// A coarse class of a violation, for the summary.
    static func kind(_ text: String) -> String {
        if text.contains("does not open") {
            if text.contains("outOfOrderPages") { return "does not open: out-of-order page loss" }
            if text.contains("impossible record length 0") {
                return "does not open: zeros (a write a failed sync dropped) before a later record"
            }
            if !text.contains("frame carriers: 0") { return "does not open: torn frame carrier" }
            return "does not open"
        }
        for site in ["preallocationSync", "truncationSync", "syncData", "syncAll"] where text.contains("failed sync (\(site)") {
            if text.contains("not poisoned") { return "acknowledged after a failed \(site)" }
            if text.contains("not refused as poisoned") { return "not refused after a failed \(site)" }
        }
        if text.contains("are lost") {
            if text.contains("explicit sync() beside group syncs") {
                return "acknowledged records lost (a failed explicit sync() beside group syncs)"
            }
            if text.contains("after discardRecords") { return "acknowledged records lost (appended after discardRecords)" }
        }
        for (needle, kind) in [
            ("are lost", "acknowledged records lost"),
            ("is not the acknowledged", "acknowledged record changed"), ("no append wrote", "unknown record"),
            ("did not finish", "deadlock"), ("survives with only", "partial append before others"),
            ("earlier records are missing", "append without its first records")
        ] where text.contains(needle) {
            return kind
        }
        return "other"
    }
}
