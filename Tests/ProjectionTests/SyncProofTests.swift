import EventLog
import Foundation
import LabelStoreTestSupport
import Testing

@testable import LabelProjection

/// A shared list in memory that keeps history tree heads with checkpoints,
/// as a server list does: honest ones hashed from its records, or forged ones.
final class CheckpointingServer: IdempotentAppendStorage, CheckpointStorage, @unchecked Sendable {
    let log = InMemoryEventLog()
    var heads: [CheckpointHead] = []

    var lastSeq: UInt64 { log.lastSeq }
    var checkpointInterval: UInt64 { 0 }
    var checkpointHistoryID: LabelID { LabelID() }
    func waitForAppends(after seq: UInt64, timeout: Duration) throws(EventLogError) -> Bool { false }
    func read(from seq: UInt64, maxCount: Int) throws(EventLogError) -> [EventRecord] { try log.read(from: seq, maxCount: maxCount) }
    func batchID(atSeq seq: UInt64) throws(EventLogError) -> UUID? { try log.batchID(atSeq: seq) }
    func append(_ entries: [LogEntry], expectedLastSeq: UInt64?) throws(EventLogError) -> [EventRecord] {
        try log.append(entries, expectedLastSeq: expectedLastSeq)
    }
    func append(_ entries: [LogEntry], expectedLastSeq: UInt64?, batchID: UUID) throws(EventLogError) -> [EventRecord] {
        try log.append(entries, expectedLastSeq: expectedLastSeq, batchID: batchID)
    }
    func checkpoint(atOrBefore seq: UInt64) throws(EventLogError) -> CheckpointLookup { CheckpointLookup(checkpoint: nil) }
    func storeCheckpoint(seq: UInt64, image: [UInt8], frontier: HistoryTreeBuilder?) throws(EventLogError) -> Bool {
        guard let frontier else { return false }
        heads.append(CheckpointHead(seq: seq, chainValue: 0, tree: frontier))
        return true
    }
    func checkpointHeads(in seqs: ClosedRange<UInt64>) throws(EventLogError) -> [CheckpointHead] {
        heads.filter { seqs.contains($0.seq) }.sorted { $0.seq < $1.seq }
    }

    /// The tree of the first `seq` records, with `rewriting` (a seq) hashed as another record.
    func tree(through seq: UInt64, rewriting: UInt64? = nil) throws -> HistoryTreeBuilder {
        var tree = HistoryTreeBuilder()
        for record in log.allRecords.prefix(Int(seq)) {
            tree.append(payload: record.seq == rewriting ? Array("forged".utf8) : try record.storedPayload())
        }
        return tree
    }

    /// Keeps the head after record `seq` as a checkpoint's.
    func keepHead(at seq: UInt64, rewriting: UInt64? = nil) throws {
        _ = try storeCheckpoint(seq: seq, image: [], frontier: try tree(through: seq, rewriting: rewriting))
    }
}

/// A device proves the server's history after each pull: every head the
/// server keeps with a checkpoint among the mirror's seqs must be the head
/// of the records the device pulled, by a consistency proof from the head
/// it proved before (docs/SYNC.md, "Proving the server's history").
@Suite("Sync: proving the server's history")
struct SyncProofTests {
    @Test func eachCheckpointHeadADevicePullsPastIsProvenAndHeldAfterTheRound() throws {
        let dir = TemporaryDirectory()
        let server = CheckpointingServer()
        let writer = try SyncSession.open(mirrorPath: dir.file("w.labellog"), server: server)
        let device = try SyncSession.open(mirrorPath: dir.file("d.labellog"), server: server)
        defer {
            writer.close()
            device.close()
        }
        for i in 0..<7 { try writer.make(.add(title: "label \(i)", isEnabled: true)) }
        try writer.sync()
        #expect(try device.sync().provenHead == nil, "no head kept yet: nothing to prove")
        try server.keepHead(at: 3)
        try server.keepHead(at: 6)
        #expect(try device.sync().provenHead == (try server.tree(through: 6)).head, "both checked, the newest held")
        for i in 0..<20 { try writer.make(.add(title: "more \(i)", isEnabled: true)) }
        try writer.sync()
        try server.keepHead(at: 26)
        try device.make(.remove(id: try #require(device.optimistic.list.labels.first?.id)))
        let report = try device.sync()
        #expect(report.provenHead == (try server.tree(through: 26)).head, "proven from seq 6 by the records after it")
        #expect(report.done.count == 1)
        #expect(device.provenHead == report.provenHead)
    }

    @Test func aServerHeadOverARewrittenRecordTheDeviceAlreadyHeldIsNamedAndNothingIsPushed() throws {
        let dir = TemporaryDirectory()
        let server = CheckpointingServer()
        let device = try SyncSession.open(mirrorPath: dir.file("d.labellog"), server: server)
        defer { device.close() }
        for i in 0..<10 { try device.make(.add(title: "label \(i)", isEnabled: true)) }
        try device.sync()
        try server.keepHead(at: 8)
        #expect(try device.sync().provenHead?.seq == 8)
        // The server rewrites record 5, which the device holds and proved, and keeps a head over it.
        try device.make(.add(title: "pending", isEnabled: true))
        try server.keepHead(at: 10, rewriting: 5)
        let error = #expect(throws: StoreError.self) { try device.sync() }
        guard case .storage(let cause) = error?.code else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(cause.code == .historyDiverged)
        #expect(cause.message.contains("head at seq 10") && cause.message.contains("proved at seq 8"), "\(cause.message)")
        #expect(server.lastSeq == 10, "nothing pushed")
        #expect(device.outbox.pending.count == 1)
        #expect(device.provenHead?.seq == 8, "the head proven before stays")
    }

    @Test func aSyncedStoresStatusShowsTheNewestHeadProven() throws {
        let dir = TemporaryDirectory()
        let server = CheckpointingServer()
        let app = try SyncedStore.open(mirrorPath: dir.file("app.labellog"), server: server)
        defer { app.close() }
        for i in 0..<5 { try app.store.add("label \(i)") }
        try app.sync()
        #expect(app.status.provenHead == nil)
        try server.keepHead(at: 4)
        try app.store.add("one more")
        try app.sync()
        #expect(app.status.provenHead == (try server.tree(through: 4)).head)
        #expect(app.status.lastSyncedSeq == 6)
    }

    @Test func aNewSessionProvesTheWholeMirrorAgainstTheNewestHeadAndCatchesAnOldRewrite() throws {
        let dir = TemporaryDirectory()
        let server = CheckpointingServer()
        let path = dir.file("d.labellog")
        do {
            let device = try SyncSession.open(mirrorPath: path, server: server)
            for i in 0..<12 { try device.make(.add(title: "label \(i)", isEnabled: true)) }
            try device.sync()
            device.close()
        }
        // Honest: a new session proves seq 12 from the mirror's start.
        try server.keepHead(at: 12)
        do {
            let device = try SyncSession.open(mirrorPath: path, server: server)
            defer { device.close() }
            #expect(try device.sync().provenHead == (try server.tree(through: 12)).head)
        }
        // A head kept later over a rewrite of record 2 is caught by the next session, whatever it proved before.
        server.heads = [CheckpointHead(seq: 12, chainValue: 0, tree: try server.tree(through: 12, rewriting: 2))]
        let device = try SyncSession.open(mirrorPath: path, server: server)
        defer { device.close() }
        let error = #expect(throws: StoreError.self) { try device.sync() }
        #expect(error?.message.contains("head at seq 12") == true, "\(String(describing: error))")
    }
}
