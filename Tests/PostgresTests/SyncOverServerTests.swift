#if Postgres
import EventLog
import Foundation
import LabelProjection
import LabelStorePostgres
import LabelStoreTestSupport
import Testing

/// Devices syncing through a list on a real server: each a `SyncSession`
/// with its own mirror file, outbox and connection.
@Suite struct SyncOverServerTests {
    let server = PostgresTestServer.shared

    func titles(_ state: SyncState) -> [String] { state.list.labels.map(\.title) }

    @Test func anAppendCarriesTheCallersBatchIDOnItsFirstRow() throws {
        let log = try server.open(server.location())
        defer { log.close() }
        let batch = UUID()
        try log.append([LogEntry(.added(id: LabelID(), title: "x", isEnabled: true, index: 0))])
        try log.append(
            [
                LogEntry(.added(id: LabelID(), title: "y", isEnabled: true, index: 1)),
                LogEntry(.added(id: LabelID(), title: "z", isEnabled: true, index: 2))
            ], expectedLastSeq: 1, batchID: batch)
        #expect(try log.batchID(atSeq: 2) == batch)
        #expect(try log.batchID(atSeq: 3) == nil, "only the first row names the batch")
        #expect(try log.batchID(atSeq: 1) != batch)
        #expect(try log.batchID(atSeq: 4) == nil)
    }

    /// A host of the list at `location` that keeps a head every 16 records,
    /// with a store over it that added `count` labels and finished writing
    /// their checkpoints.
    func checkpointingWriter(_ location: PostgresLocation, adding count: Int) throws -> (PostgresEventLog, LabelStore) {
        let log = try PostgresEventLog(location: location, options: .init(createIfMissing: true, checkpointInterval: 16))
        let store = try LabelStore(storage: log)
        for i in 0..<count { try store.add("label \(i)") }
        store.waitForHistoryFiles()
        return (log, store)
    }

    /// What a push of `command` does up to the commit, the crash coming before
    /// the outbox hears back: the attempt noted, the append committed after
    /// seq `after` with its group id, the device closed.
    func pushThenCrash(_ command: SyncCommand, from device: SyncSession, to log: PostgresEventLog, after: UInt64) throws {
        let decision = SyncRebase.decide(command, on: device.serverState)
        guard case .apply(let events) = decision else {
            Issue.record("not applied: \(decision)")
            return
        }
        let attempt = SyncOutbox.Attempt(
            group: UUID(), afterSeq: after,
            plan: [SyncLedger.entry(for: command, decision, firstSeq: after + 1, state: device.serverState)])
        try device.outbox.noteAttempt(attempt)
        try log.append(events.map { LogEntry($0, timestamp: command.madeAt) }, expectedLastSeq: after, batchID: attempt.group)
        device.close()
    }

    /// A device proves each head the list keeps with a checkpoint against
    /// the records it pulled (docs/SYNC.md, "Proving the server's history"),
    /// and a head forged on the server stops its next sync, named, before
    /// anything is pushed.
    @Test func aDeviceProvesTheListsCheckpointHeadsAndNamesAForgedOne() throws {
        let dir = TemporaryDirectory()
        let location = server.location()
        let (writerLog, store) = try checkpointingWriter(location, adding: 40)
        defer {
            store.close()
            writerLog.close()
        }
        // A crossing while the checkpoint before is still being written waits for the next append: 16, then 32 or later.
        let heads = try writerLog.checkpointHeads(in: 1...40)
        let newest = try #require(heads.last)
        #expect(heads.first?.seq == 16)
        let deviceLog = try server.open(location)
        defer { deviceLog.close() }
        let path = dir.file("d.labellog")
        do {
            let device = try SyncSession.open(mirrorPath: path, server: deviceLog)
            defer { device.close() }
            #expect(try device.sync().provenHead == heads.last?.head)
        }
        let url = CLIOverServerTests.url(list: location.list)
        let cli = try CLIOverServerTests.cli(["sync", dir.file("cli.labellog"), url, "--json"])
        #expect(cli.status == 0 && cli.output.contains(#""provenHead":{"#) && cli.output.contains(newest.head.hash.hex), "\(cli)")
        try server.psql(
            "UPDATE labelstore.checkpoints SET frontier = set_byte(frontier, 0, 255 - get_byte(frontier, 0)) WHERE list = '\(location.list)' AND seq = \(newest.seq)"
        )
        let device = try SyncSession.open(mirrorPath: path, server: deviceLog)
        defer { device.close() }
        try device.make(.add(title: "pending", isEnabled: true))
        let error = #expect(throws: StoreError.self) { try device.sync() }
        #expect(error?.message.contains("head at seq \(newest.seq)") == true, "\(String(describing: error))")
        #expect(try deviceLog.refreshLastSeq() == 40, "nothing pushed")
        #expect(device.outbox.pending.count == 1)
        let refused = try CLIOverServerTests.cli(["sync", dir.file("cli.labellog"), url])
        #expect(refused.status == 1 && refused.errors.contains("head at seq \(newest.seq)"), "\(refused)")
    }

    /// A new device of a list that was cut starts its mirror from the base:
    /// it proves the heads kept after the cut from the base's frontier and the
    /// records it pulled, as a device that saw the whole history does.
    @Test func aDeviceOfACutListProvesTheHeadsAfterTheCutFromTheBase() throws {
        let dir = TemporaryDirectory()
        let location = server.location()
        let (writerLog, store) = try checkpointingWriter(location, adding: 24)
        defer {
            store.close()
            writerLog.close()
        }
        let whole = dir.file("whole.labellog")
        do {
            let device = try SyncSession.open(mirrorPath: whole, server: writerLog)
            defer { device.close() }
            try device.sync()
        }
        _ = try writerLog.cutHistory(through: 18, archiveTo: nil)
        for i in 24..<40 { try store.add("label \(i)") }
        store.waitForHistoryFiles()
        let heads = try writerLog.checkpointHeads(in: 19...40)
        let newest = try #require(heads.last, "a checkpoint after the cut")
        let deviceLog = try server.open(location)
        defer { deviceLog.close() }
        let device = try SyncSession.open(mirrorPath: dir.file("based.labellog"), server: deviceLog)
        defer { device.close() }
        #expect(try device.sync().provenHead == newest.head)
        #expect(try LogReader(path: device.mirrorPath).header.base?.lastCutSeq == 18, "the mirror starts from the base")
        // The device that saw the whole history proves the same head from its own records.
        let old = try SyncSession.open(mirrorPath: whole, server: deviceLog)
        defer { old.close() }
        #expect(try old.sync().provenHead == newest.head)
    }

    @Test func twoDevicesSyncThroughTheServerToOneListWithTheRefusalsAudited() throws {
        let dir = TemporaryDirectory()
        let location = server.location()
        let logA = try server.open(location)
        let logB = try server.open(location)
        let a = try SyncSession.open(mirrorPath: dir.file("a.labellog"), server: logA)
        let b = try SyncSession.open(mirrorPath: dir.file("b.labellog"), server: logB)
        defer {
            a.close()
            b.close()
            logA.close()
            logB.close()
        }
        let shared = try #require(try a.make(.add(title: "Shared", isEnabled: true))?.labelID)
        try a.sync()
        try b.sync()
        try a.make(.rename(id: shared, title: "Shared by A"))
        try b.make(.rename(id: shared, title: "Shared by B"))
        try b.make(.toggle(id: shared))
        try b.make(.add(title: "B's own", isEnabled: true))
        try a.sync()
        let report = try b.sync()
        #expect(report.done.map(\.outcome) == [.refused(SyncRefusal(.titleChanged), seq: 3), .applied(firstSeq: 4), .applied(firstSeq: 5)])
        try a.sync()
        let records = try logA.read(from: 1, maxCount: 100)
        for device in [a, b] {
            #expect(titles(device.serverState) == ["Shared by A", "B's own"])
            #expect(try LogReader.readAll(path: device.mirrorPath).records == records)
        }
        guard case .rejected(let id, let command, let reason) = records[2].event else {
            Issue.record("seq 3 is \(records[2].event)")
            return
        }
        #expect(id == shared)
        #expect(reason == "Edit skipped: title was changed on another device.")
        #expect(command.contains("Shared by B"))
    }

    /// A list that was cut: a new device's mirror starts from the list's base
    /// (a based log of its history, the same head), syncs and pushes; a
    /// device whose mirror the cut overtook sets it aside and starts again from
    /// the base, its outbox kept and pushed.
    @Test func aNewDeviceJoinsACutListFromItsBaseAndAnOvertakenOneStartsAgainFromIt() throws {
        let dir = TemporaryDirectory()
        let location = server.location()
        let log = try server.open(location)
        defer { log.close() }
        let a = try SyncSession.open(mirrorPath: dir.file("a.labellog"), server: log)
        defer { a.close() }
        var ids: [LabelID] = []
        for i in 0..<10 { ids.append(try #require(try a.make(.add(title: "label \(i)", isEnabled: i % 2 == 0))?.labelID)) }
        try a.make(.rename(id: ids[2], title: "renamed before the cut"))
        try a.sync()
        #expect(try log.refreshLastSeq() == 11)
        try log.cutHistory(through: 6, archiveTo: nil)

        let cutLog = try server.open(location)
        defer { cutLog.close() }
        var b = try SyncSession.open(mirrorPath: dir.file("b.labellog"), server: cutLog)
        defer { b.close() }
        try b.sync()
        #expect(b.serverState.list.labels == a.serverState.list.labels)
        #expect(try LogReader(path: b.mirrorPath).header.base?.lastCutSeq == 6)
        // B's mirror is the cut list's history, as a based copy of the list is: every read answers alike
        // (on the closed file: an open log's file is longer, its preallocated room not yet given back).
        b.close()
        let url = CLIOverServerTests.url(list: location.list, schema: location.schema)
        let copy = dir.file("copy.labellog")
        #expect(try CLIOverServerTests.cli(["copy", url, copy]).status == 0)
        for arguments in [
            ["show", "--json"], ["show", "--at", "8", "--json"], ["log", "--json"],
            ["log", "--label", String(ids[3].description.prefix(8))],
            ["export"], ["head"], ["head", "--at", "9"], ["trace", "--json"], ["diff", "7", "11", "--json"], ["verify"]
        ] {
            let mirrored = try CLIOverServerTests.cli([arguments[0], b.mirrorPath] + arguments.dropFirst())
            let copied = try CLIOverServerTests.cli([arguments[0], copy] + arguments.dropFirst())
            // The same answer, or the same refusal (a label's records before the cut were dropped).
            #expect(mirrored.status == copied.status, "\(arguments): \(mirrored) \(copied)")
            #expect(
                mirrored.output.replacingOccurrences(of: b.mirrorPath, with: "LOG")
                    == copied.output.replacingOccurrences(of: copy, with: "LOG"),
                "\(arguments)")
            #expect(
                mirrored.errors.replacingOccurrences(of: b.mirrorPath, with: "LOG")
                    == copied.errors.replacingOccurrences(of: copy, with: "LOG"),
                "\(arguments)")
        }
        b = try SyncSession.open(mirrorPath: dir.file("b.labellog"), server: cutLog)
        // B renames a label it knows only from the base, and toggles one; A hears both.
        try b.make(.rename(id: ids[1], title: "renamed on B"))
        try b.make(.toggle(id: ids[8]))
        let report = try b.sync()
        #expect(report.done.map(\.outcome) == [.applied(firstSeq: 12), .applied(firstSeq: 13)])
        try a.sync()
        #expect(a.serverState.list.label(ids[1])?.title == "renamed on B")
        #expect(a.serverState.list.labels == b.serverState.list.labels)

        // Cut past where a third device's mirror stopped: it cannot catch up, so the next sync sets it aside
        // (with its history files) and starts a new one from the base; the edit made offline reaches the list.
        let c = try SyncSession.open(mirrorPath: dir.file("c.labellog"), server: cutLog)
        try c.sync()
        try c.make(.add(title: "made on C", isEnabled: true))
        c.close()
        #expect(try CLIOverServerTests.cli(["index", dir.file("c.labellog")]).status == 0)
        let sideFiles = SyncSession.mirrorSideFiles.filter { FileManager.default.fileExists(atPath: dir.file("c.labellog") + $0) }
        #expect(sideFiles.contains(".index"), "\(sideFiles)")
        try a.make(.add(title: "more", isEnabled: true))
        try a.sync()
        try log.cutHistory(through: 14, archiveTo: nil)
        let synced = try CLIOverServerTests.cli(["sync", dir.file("c.labellog"), url, "--json"])
        #expect(synced.status == 0, "\(synced)")
        let round = try #require(try JSONSerialization.jsonObject(with: Data(synced.output.utf8)) as? [String: Any])
        let aside = try #require(round["setAside"] as? String, "\(synced)")
        #expect(aside.hasPrefix(dir.file("c.labellog.overtaken-")), "\(aside)")
        for suffix in sideFiles {
            #expect(FileManager.default.fileExists(atPath: aside + suffix), "\(suffix) moved with the old mirror")
        }
        let text = try CLIOverServerTests.cli(["sync", dir.file("c.labellog"), url])
        #expect(text.status == 0 && !text.output.contains("set aside"), "nothing to set aside the second time: \(text)")
        #expect(try CLIOverServerTests.cli(["verify", aside]).status == 0, "the old mirror is kept whole")
        #expect(try LogReader(path: dir.file("c.labellog")).header.base?.lastCutSeq == 14, "the new mirror starts from the base")
        #expect(try SyncOutbox.read(path: SyncOutbox.path(forLogAt: dir.file("c.labellog"))).pending.isEmpty)
        try a.sync()
        // Placed after the label it followed on C, so before the one A added at the end meanwhile.
        #expect(a.serverState.list.labels.suffix(2).map(\.title) == ["made on C", "more"])
    }

    /// `sync --follow` from the shell: an edit made on the device while it runs
    /// reaches the list, another host's append reaches the device, and Ctrl-C
    /// ends it with status 0.
    @Test func syncFollowCarriesEditsBothWaysUntilInterrupted() throws {
        let dir = TemporaryDirectory()
        let location = server.location()
        let url = CLIOverServerTests.url(list: location.list, schema: location.schema)
        #expect(try CLIOverServerTests.cli(["init", url]).status == 0)
        let mirror = dir.file("phone.labellog")
        let following = try Background(try CLIOverServerTests.executable(), ["sync", mirror, url, "--follow"], directory: dir.path)
        defer { following.terminate() }
        #expect(try CLIOverServerTests.waitUntil { FileManager.default.fileExists(atPath: SyncOutbox.path(forLogAt: mirror)) })
        // The write waits for the round under way to let go of the outbox, at most 2 s.
        let added = try CLIOverServerTests.cli(["add", mirror, "made on the phone"])
        #expect(added.status == 0, "\(added)")
        let log = try server.open(location)
        defer { log.close() }
        #expect(try CLIOverServerTests.waitUntil { (try? log.refreshLastSeq()) == 1 }, "the edit reached the list")
        try log.append([LogEntry(.added(id: LabelID(), title: "from another host", isEnabled: true, index: 1))])
        #expect(
            try CLIOverServerTests.waitUntil { CLIOverServerTests.lastSeq(of: mirror) == 2 }, "the other host's record reached the phone")
        let ended = try following.interrupt()
        #expect(ended.status == 0, "\(ended)")
        #expect(ended.output.contains("pushed 1 edit (1 applied"), "\(ended)")
    }

    /// A device that crashed after the server committed its append but before
    /// its outbox said so: the next sync finds the push by its group id on the
    /// row and writes nothing twice (decided again, the rename would be refused
    /// and recorded a second time).
    @Test func aPushCommittedBeforeACrashIsFoundByItsBatchIDAndNotDoubled() throws {
        let dir = TemporaryDirectory()
        let log = try server.open(server.location())
        defer { log.close() }
        let path = dir.file("d.labellog")
        do {
            let device = try SyncSession.open(mirrorPath: path, server: log)
            let id = try #require(try device.make(.add(title: "first", isEnabled: true))?.labelID)
            try device.sync()
            try pushThenCrash(try #require(try device.make(.rename(id: id, title: "once"))), from: device, to: log, after: 1)
        }
        let device = try SyncSession.open(mirrorPath: path, server: log)
        defer { device.close() }
        let report = try device.sync()
        #expect(report.done.map(\.outcome) == [.applied(firstSeq: 2)])
        #expect(try log.refreshLastSeq() == 2)
        #expect(titles(device.serverState) == ["once"])
        #expect(device.outbox.pending.isEmpty)
    }

    /// A push that committed, was left open by a crash, and whose row a cut
    /// then removed (after another device changed the same property): the
    /// device, started over from the cut list as the error says, finds the
    /// push by the batch id the cut kept and does not apply it a second time
    /// over the newer edit.
    ///
    /// A cut that kept no batch ids (made before schema 7; here its rows
    /// deleted) cannot tell: the round fails with `archived`, saying so, the
    /// mirror where it was and the push pending, rather than deciding it again;
    /// told what the user found (`committed`, through the CLI; `not-committed`,
    /// through the library), the next round does that.
    @Test(arguments: ["kept", "none", "none, then committed", "none, then not committed"])
    func aPushWhoseRowWasCutIsSettledByTheBatchIDTheCutKept(cut: String) throws {
        let cutKeptBatchIDs = cut == "kept"
        let dir = TemporaryDirectory()
        let location = server.location()
        let log = try server.open(location)
        defer { log.close() }
        let path = dir.file("d.labellog")
        let id: LabelID
        do {
            let device = try SyncSession.open(mirrorPath: path, server: log)
            id = try #require(try device.make(.add(title: "x", isEnabled: true))?.labelID)
            try device.sync()
            try pushThenCrash(try #require(try device.make(.setEnabled(id: id, isEnabled: false))), from: device, to: log, after: 1)
        }
        // Another device turns the label back on; then the list is cut past both.
        let other = try SyncSession.open(mirrorPath: dir.file("o.labellog"), server: log)
        try other.sync()
        try other.make(.setEnabled(id: id, isEnabled: true))
        try other.sync()
        other.close()
        #expect(try log.refreshLastSeq() == 3)
        try log.cutHistory(through: 3, archiveTo: nil)
        let device = try SyncSession.open(mirrorPath: path, server: try server.open(location))
        defer { device.close() }
        if !cutKeptBatchIDs {
            try server.psql("DELETE FROM labelstore.cut_batches WHERE list = '\(location.list)'")
            let error = #expect(throws: StoreError.self) { try device.sync() }
            #expect(error?.message.contains("cannot be told") == true, "\(String(describing: error))")
            #expect(try LogReader(path: path).header.base == nil, "the mirror is where it was")
            #expect(device.outbox.pending.count == 1 && device.outbox.openAttempt != nil)
            #expect(try log.refreshLastSeq() == 3, "nothing written")
            if cut == "none, then committed" {
                device.close()
                let url = CLIOverServerTests.url(list: location.list)
                let asked = try CLIOverServerTests.cli(["sync", path, url])
                #expect(asked.status == 1 && asked.errors.contains("--open-push committed|not-committed"), "\(asked)")
                let settled = try CLIOverServerTests.cli(["sync", path, url, "--open-push", "committed", "--json"])
                #expect(settled.status == 0 && settled.output.contains(#""setAside":"#), "\(settled)")
                #expect(try log.refreshLastSeq() == 3, "nothing sent")
                #expect(try SyncOutbox.read(path: SyncOutbox.path(forLogAt: path)).pending.isEmpty)
                let bad = try CLIOverServerTests.cli(["sync", path, url, "--open-push", "maybe"])
                #expect(bad.status == 64, "\(bad)")
            } else if cut == "none, then not committed" {
                let report = try device.sync(resolvingOpenPush: .notCommitted)
                #expect(report.setAsideMirror != nil)
                #expect(report.done.map(\.outcome) == [.applied(firstSeq: 4)], "decided again and sent, as the user said")
                #expect(device.serverState.list.label(id)?.isEnabled == false)
            }
            return
        }
        // The overtaken mirror is set aside and started again from the base; the open push is settled first.
        let report = try device.sync()
        #expect(report.setAsideMirror != nil)
        #expect(report.done.map(\.outcome) == [.applied(firstSeq: 2)], "settled as committed, not decided again")
        #expect(try log.refreshLastSeq() == 3, "nothing written twice")
        #expect(device.serverState.list.label(id)?.isEnabled == true, "the newer edit stands")
        #expect(device.outbox.pending.isEmpty)
    }

    /// A session that read the list's base before the cut (`sync --follow`, a
    /// synced store) finds the cut on its next pull, and starts again from the
    /// new base in the same round.
    @Test func aSessionOpenedBeforeTheCutStartsItsMirrorAgainInTheSameRound() throws {
        let dir = TemporaryDirectory()
        let location = server.location()
        let writer = try server.open(location)
        defer { writer.close() }
        let deviceLog = try server.open(location)
        defer { deviceLog.close() }
        let device = try SyncSession.open(mirrorPath: dir.file("d.labellog"), server: deviceLog)
        defer { device.close() }
        try device.make(.add(title: "first", isEnabled: true))
        try device.sync()
        for i in 0..<6 { try writer.append([LogEntry(.added(id: testID(100 + i), title: "w \(i)", isEnabled: true, index: 0))]) }
        try writer.cutHistory(through: 5, archiveTo: nil)
        try device.make(.add(title: "offline", isEnabled: true))
        let report = try device.sync()
        #expect(report.setAsideMirror != nil)
        #expect(report.done.count == 1 && report.lastSeq == 8, "\(report)")
        #expect(titles(device.serverState).contains("offline"))
        #expect(try LogReader(path: dir.file("d.labellog")).header.base?.lastCutSeq == 5)
    }
}
#endif
