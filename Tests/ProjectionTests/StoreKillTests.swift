import EventLog
import Foundation
import LabelProjection
import LabelStoreTestSupport
import Testing

/// Group-committed store writes killed in the middle: a child process
/// (`logtorture store-writers`) writes one file-backed store from eight
/// writers at once (threads and tasks, so writes are committed in groups)
/// and is SIGKILLed at random moments. Every write it acknowledged must be in
/// the log with the content it was acknowledged with, and the log must
/// reopen as a store.
@Suite("Store kills")
struct StoreKillTests {
    static let kills = ProcessInfo.processInfo.environment["LABELSTORE_SOAK"] != nil ? 1_000 : 30

    @Test func sigkillDuringGroupCommittedWritesLosesNoAcknowledgedWrite() async throws {
        // Off the cooperative pool: it blocks for long (see offPool).
        try await offPool { try Self.sigkillDuringGroupCommittedWritesLosesNoAcknowledgedWriteBody() }
    }

    static func sigkillDuringGroupCommittedWritesLosesNoAcknowledgedWriteBody() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        var rng = SeededGenerator(seed: 0x5107e)
        var acknowledged: [UInt64: String] = [:]
        for round in 0..<Self.kills {
            let child = try Child(["store-writers", path, "8"])
            if round % 5 == 0 {
                // Any moment, opening (recovery, snapshot use) included.
                usleep(UInt32.random(in: 0...80_000, using: &rng))
            } else {
                guard let first = child.firstLine(), first.hasPrefix("opened") else {
                    child.kill()
                    Issue.record("round \(round): the child did not open the store: \(child.errorText())")
                    return
                }
                if round % 5 == 4 {
                    // Soon after an acknowledged write, waited for rather than timed, so that some
                    // writes are acknowledged however loaded the machine is.
                    _ = child.waitForLine { $0.hasPrefix("ack") }
                    usleep(UInt32.random(in: 0...5_000, using: &rng))
                } else {
                    usleep(UInt32.random(in: 5_000...50_000, using: &rng))
                }
            }
            child.kill()
            for line in child.lines() where !line.hasPrefix("opened") {
                let parts = line.split(separator: " ", maxSplits: 2)
                guard parts.count == 3, parts[0] == "ack", let seq = UInt64(parts[1]) else {
                    Issue.record("round \(round): unexpected child output: \(line)")
                    continue
                }
                #expect(acknowledged[seq] == nil, "round \(round): seq \(seq) acknowledged twice")
                acknowledged[seq] = String(parts[2])
            }
            guard FileManager.default.fileExists(atPath: path) else {
                #expect(acknowledged.isEmpty, "round \(round): the log vanished")
                continue
            }
            let (records, _) = try LogReader.readAll(path: path)
            let bySeq = Dictionary(uniqueKeysWithValues: records.map { ($0.seq, $0) })
            for (seq, title) in acknowledged {
                guard let record = bySeq[seq] else {
                    Issue.record("round \(round): acknowledged seq \(seq) ('\(title)') is lost; the log has \(records.count) records")
                    continue
                }
                switch record.event {
                case .added(_, let stored, _, _), .renamed(_, _, let stored): #expect(stored == title, "round \(round): seq \(seq)")
                default: Issue.record("round \(round): seq \(seq) holds \(record.event.kind), acknowledged as '\(title)'")
                }
            }
        }
        // The log reopens as a store and shows the last acknowledged write,
        // or what a later record (durable, killed before its acknowledgement
        // was printed) made of that label: a writer renames its last label.
        let store = try LabelStore.open(path: path)
        defer { store.close() }
        let lastAcknowledged = acknowledged.keys.max() ?? 0
        #expect(store.lastSeq >= lastAcknowledged)
        let (records, _) = try LogReader.readAll(path: path)
        let label = try #require(records.first { $0.seq == lastAcknowledged }?.event.labelID)
        let titleSinceThen = records.reduce(into: acknowledged[lastAcknowledged]) { title, record in
            guard record.seq > lastAcknowledged, record.event.labelID == label else { return }
            if case .renamed(_, _, let newTitle) = record.event { title = newTitle }
        }
        #expect(
            store.labels.first { $0.id == label }?.title == titleSinceThen,
            "the last acknowledged write (seq \(lastAcknowledged)) is not shown")
        print("store kill test: \(Self.kills) SIGKILLs, \(acknowledged.count) acknowledged writes verified")
        #expect(acknowledged.count > Self.kills, "the child acknowledged too little for the test to prove anything")
    }
}
