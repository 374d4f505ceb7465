import EventLog
import Foundation
import LabelProjection
import LabelStoreTestSupport
import Testing

/// A store that cuts its open log (retention after its automatic snapshots)
/// killed in the middle: a child process (`logtorture store-retain`) adds
/// labels durably while its store archives all but the last 100 records
/// every 200, and ends at each step of a cut (`LABELSTORE_TEST_CUT_CRASH`:
/// the archive linked; the new log renamed over the old one) or at a random
/// moment (SIGKILL). Every write it acknowledged must be in the archives and
/// the log, with its title, chained across each join; the log must reopen
/// as a store with the policy, which cuts again.
@Suite("Open-log cut kills")
struct OpenRetentionKillTests {
    static let kills = ProcessInfo.processInfo.environment["LABELSTORE_SOAK"] != nil ? 200 : 12

    /// The acknowledgements in `child`'s output (seq → title).
    static func acknowledgements(_ child: Child) -> [UInt64: String] {
        var acknowledged: [UInt64: String] = [:]
        for line in child.lines() {
            let parts = line.split(separator: " ")
            if parts.count == 3, parts[0] == "ack", let seq = UInt64(parts[1]) { acknowledged[seq] = String(parts[2]) }
        }
        return acknowledged
    }

    /// Checks that every acknowledged write is in the history at `path`
    /// (archives beside it, then the log), chained across each join.
    static func expectHistoryHolds(_ acknowledged: [UInt64: String], path: String, directory: String, _ what: String) throws {
        let (records, joins) = try OpenRetentionTests.wholeHistory(path, directory: directory)
        #expect(joins, "\(what): each archive joins the next file")
        #expect(records.map(\.seq) == (records.isEmpty ? [] : Array(1...UInt64(records.count))), "\(what): seqs 1… without a gap")
        let bySeq = Dictionary(uniqueKeysWithValues: records.map { ($0.seq, $0) })
        for (seq, title) in acknowledged {
            guard case .added(_, let stored, _, _)? = bySeq[seq]?.event else {
                Issue.record("\(what): acknowledged seq \(seq) ('\(title)') is lost")
                continue
            }
            #expect(stored == title, "\(what): seq \(seq)")
        }
    }

    @Test(arguments: ["archive-written", "log-replaced"])
    func aCrashAtAStepOfTheCutLosesNoAcknowledgedWriteAndTheStoreCutsAgain(step: String) async throws {
        try await offPool {
            let dir = TemporaryDirectory()
            let path = dir.file("labels.labellog")
            let child = try Child(["store-retain", path], environment: ["LABELSTORE_TEST_CUT_CRASH": step])
            // The first cut comes after the first snapshot, at 200 records; a child that never gets there is killed.
            let deadline = ContinuousClock.now.advanced(by: .seconds(300))
            while child.process.isRunning && ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.01) }
            if child.process.isRunning { child.kill() }
            #expect(child.process.terminationStatus == 99, "the child did not stop at \(step): \(child.errorText())")
            let acknowledged = Self.acknowledgements(child)
            #expect(acknowledged.count >= 200, "a cut comes after the first snapshot, at 200 records")
            try Self.expectHistoryHolds(acknowledged, path: path, directory: dir.path, "after \(step)")
            // Reopened with the policy: a leftover archive is written again, the cut is made.
            let store = try LabelStore.open(
                path: path, options: .init(retention: LabelStore.Retention(keep: .lastRecords(100), minimumCut: 100)))
            #expect(store.retentionReport?.error == nil, "\(String(describing: store.retentionReport))")
            #expect(store.lastSeq >= acknowledged.keys.max() ?? 0)
            store.close()
            try Self.expectHistoryHolds(acknowledged, path: path, directory: dir.path, "reopened after \(step)")
            // No archive is left beside the log but those of its history (a stopped cut's copy is removed):
            // their seqs run from 1 to the log's first, each once.
            let ranges = try FileManager.default.contentsOfDirectory(atPath: dir.path)
                .filter { $0.hasSuffix(".labellog") && $0 != "labels.labellog" }
                .map { name -> ClosedRange<UInt64> in
                    let records = try LogReader.readAll(path: dir.file(name)).records
                    return records[0].seq...records[records.count - 1].seq
                }
                .sorted { $0.lowerBound < $1.lowerBound }
            let firstSeq = try LogReader(path: path).header.firstSeq
            #expect(ranges.first?.lowerBound == 1 && ranges.last?.upperBound == firstSeq - 1, "\(ranges)")
            #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0.upperBound + 1 == $1.lowerBound }, "\(ranges)")
        }
    }

    @Test func sigkillWhileTheStoreCutsItsOpenLogLosesNoAcknowledgedWrite() async throws {
        try await offPool {
            let dir = TemporaryDirectory()
            let path = dir.file("labels.labellog")
            var rng = SeededGenerator(seed: 0xc07)
            var acknowledged: [UInt64: String] = [:]
            for round in 0..<Self.kills {
                let child = try Child(["store-retain", path])
                guard child.firstLine()?.hasPrefix("opened") == true else {
                    child.kill()
                    Issue.record("round \(round): the child did not open the store: \(child.errorText())")
                    return
                }
                // Past at least one snapshot (so the store cuts), then any moment.
                _ = child.waitForLine {
                    $0.hasPrefix("ack") && ($0.split(separator: " ").dropFirst().first.flatMap { UInt64($0) } ?? 0) % 200 == 0
                }
                usleep(UInt32.random(in: 0...30_000, using: &rng))
                child.kill()
                for (seq, title) in Self.acknowledgements(child) {
                    #expect(acknowledged[seq] == nil, "round \(round): seq \(seq) acknowledged twice")
                    acknowledged[seq] = title
                }
                try Self.expectHistoryHolds(acknowledged, path: path, directory: dir.path, "round \(round)")
            }
            let firstSeq = try LogReader(path: path).header.firstSeq
            #expect(firstSeq > 1, "the store cut its log")
            print(
                "open-log cut kill test: \(Self.kills) SIGKILLs, \(acknowledged.count) acknowledged writes verified, the log starts at seq \(firstSeq)"
            )
        }
    }
}
