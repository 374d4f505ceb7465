import EventLog
import Foundation
import LabelStoreTestSupport
import Testing

@testable import LabelProjection

/// Devices syncing through one shared list held in memory: each device a
/// ``SyncSession`` with its own mirror file and outbox.
@Suite("Sync sessions")
struct SyncSessionTests {
    func labels(_ state: SyncState) -> [String] { state.list.labels.map { "\($0.title)\($0.isEnabled ? "" : " (off)")" } }

    @Test func twoDevicesEditingOfflineEndWithTheServersListAndTheRefusalRecorded() throws {
        let dir = TemporaryDirectory()
        let server = InMemoryEventLog()
        let a = try SyncSession.open(mirrorPath: dir.file("a.labellog"), server: server)
        let b = try SyncSession.open(mirrorPath: dir.file("b.labellog"), server: server)
        defer {
            a.close()
            b.close()
        }
        let groceries = try #require(try a.make(.add(title: "Groceries", isEnabled: true)))
        let chores = try #require(try a.make(.add(title: "Chores", isEnabled: true)))
        try a.sync()
        try b.sync()
        #expect(labels(b.optimistic) == ["Groceries", "Chores"])
        // Offline: A removes Groceries and renames Chores; B renames both and toggles Chores.
        let groceriesID = try #require(groceries.labelID)
        let choresID = try #require(chores.labelID)
        try a.make(.remove(id: groceriesID))
        try a.make(.rename(id: choresID, title: "Chores (A)"))
        try b.make(.rename(id: groceriesID, title: "Shopping"))
        try b.make(.rename(id: choresID, title: "Chores (B)"))
        try b.make(.toggle(id: choresID))
        #expect(labels(b.optimistic) == ["Shopping", "Chores (B) (off)"], "the device shows its own edits at once")
        let reportA = try a.sync()
        #expect(reportA.done.map(\.outcome) == [.applied(firstSeq: 3), .applied(firstSeq: 4)])
        let reportB = try b.sync()
        #expect(reportB.pulled == 2 + 3, "A's two records, then B's own three")
        #expect(
            reportB.done.map(\.outcome) == [
                .refused(SyncRefusal(.labelRemoved), seq: 5), .refused(SyncRefusal(.titleChanged), seq: 6), .applied(firstSeq: 7)
            ])
        try a.sync()
        for device in [a, b] {
            #expect(labels(device.optimistic) == ["Chores (A) (off)"])
            #expect(device.outbox.pending.isEmpty)
            let mirror = try LogReader.readAll(path: device.mirrorPath).records
            #expect(mirror == server.allRecords, "the mirror is the server's history, record for record")
        }
        let refusals = server.allRecords.compactMap { record -> String? in
            if case .rejected(_, _, let reason) = record.event { reason } else { nil }
        }
        #expect(refusals == ["Edit skipped: label was removed.", "Edit skipped: title was changed on another device."])
    }

    @Test func pendingEditsSurviveAReopenAndSyncOnce() throws {
        let dir = TemporaryDirectory()
        let server = InMemoryEventLog()
        let path = dir.file("d.labellog")
        do {
            let device = try SyncSession.open(mirrorPath: path, server: server)
            try device.make(.add(title: "one", isEnabled: true))
            try device.make(.add(title: "two", isEnabled: false))
            device.close()
        }
        let device = try SyncSession.open(mirrorPath: path, server: server)
        defer { device.close() }
        #expect(device.outbox.pending.count == 2)
        #expect(labels(device.optimistic) == ["one", "two (off)"])
        try device.sync()
        try device.sync()
        #expect(server.lastSeq == 2)
        #expect(labels(device.serverState) == ["one", "two (off)"])
    }

    /// The server commits an append, then the reply is lost (the call throws):
    /// the next round finds the push by its group id on the server's row and
    /// writes nothing twice. (Decided again, the rename would be refused — its
    /// title's version is now its own record's — and recorded a second time.)
    @Test func anAppendWhoseReplyWasLostIsSettledByItsBatchIDAndNotAppliedTwice() throws {
        let dir = TemporaryDirectory()
        let server = FaultyServer()
        let device = try SyncSession.open(mirrorPath: dir.file("d.labellog"), server: server)
        defer { device.close() }
        let id = try #require(try device.make(.add(title: "first", isEnabled: true))?.labelID)
        try device.sync()
        try device.make(.rename(id: id, title: "renamed once"))
        server.loseNextReply = true
        #expect(throws: StoreError.self) { try device.sync() }
        #expect(server.log.lastSeq == 2, "the append committed")
        #expect(device.outbox.pending.count == 1, "the device does not know it yet")
        let report = try device.sync()
        #expect(report.done.map(\.outcome) == [.applied(firstSeq: 2)])
        #expect(server.log.lastSeq == 2, "nothing doubled, no refusal recorded")
        #expect(labels(device.serverState) == ["renamed once"])
    }

    @Test func aServerThatRewroteTheMirrorsLastRecordIsNamedAndNothingIsPushed() throws {
        let dir = TemporaryDirectory()
        let first = InMemoryEventLog()
        let path = dir.file("d.labellog")
        do {
            let device = try SyncSession.open(mirrorPath: path, server: first)
            try device.make(.add(title: "seen", isEnabled: true))
            try device.sync()
            device.close()
        }
        let rewritten = InMemoryEventLog()
        try rewritten.append([LogEntry(.added(id: LabelID(), title: "other", isEnabled: true, index: 0))])
        let device = try SyncSession.open(mirrorPath: path, server: rewritten)
        defer { device.close() }
        try device.make(.add(title: "pending", isEnabled: true))
        let error = #expect(throws: StoreError.self) { try device.sync() }
        guard case .storage(let cause) = error?.code else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(cause.code == .historyDiverged)
        #expect(cause.description.contains("seq 1"))
        #expect(rewritten.lastSeq == 1, "nothing pushed")
        #expect(device.outbox.pending.count == 1)
    }
}
