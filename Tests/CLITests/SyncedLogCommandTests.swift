import Foundation
import LabelProjection
import LabelStoreTestSupport
import Testing

/// A synced log (a device's mirror of a server list, `LOG.outbox` beside it)
/// under the commands: the write commands keep their edits in the outbox and
/// leave the file as the server's; every other writer is refused; `status`
/// lists the edits; `show` notes them. (Syncing itself, against a real
/// server: PostgresTests' `SyncDevicesTests` and `SyncOverServerTests`.)
@Suite struct SyncedLogCommandTests {
    /// A synced log holding two labels pulled from a shared list (in memory here).
    func syncedLog(_ dir: TemporaryDirectory) throws -> String {
        let path = dir.file("phone.labellog")
        let shared = InMemoryEventLog()
        try shared.append([
            LogEntry(.added(id: LabelID(), title: "Groceries", isEnabled: true, index: 0)),
            LogEntry(.added(id: LabelID(), title: "Chores", isEnabled: false, index: 1))
        ])
        let session = try SyncSession.open(mirrorPath: path, server: shared)
        defer { session.close() }
        try session.sync()
        return path
    }

    @Test func writeCommandsKeepTheirEditsInTheOutboxAndLeaveTheFileAsTheServers() async throws {
        let dir = TemporaryDirectory()
        let path = try syncedLog(dir)
        let before = try await CLI.run(["export", path]).stdout
        let added = try await CLI.run(["add", path, "Laundry", "--actor", "ana"])
        #expect(added.status == 0, "\(added)")
        #expect(added.stderr.contains("saved on this device"), "\(added)")
        let shown = try await CLI.run(["show", path, "--json"])
        let groceries = try #require(try shown.jsonLines().first?["labels"] as? [[String: Any]]).first?["id"] as? String
        let renamed = try await CLI.run(["rename", path, String(try #require(groceries).prefix(8)), "Shopping"])
        #expect(renamed.status == 0, "\(renamed)")
        // Nothing to change: said as on any log, in JSON too.
        let same = try await CLI.run(["rename", path, String(try #require(groceries).prefix(8)), "Shopping", "--json"])
        #expect(same.status == 0 && same.stdout.contains("\"changed\":false"), "\(same)")
        #expect(try await CLI.run(["export", path]).stdout == before, "the file holds the server's records only")
        let status = try await CLI.run(["status", path, "--json"])
        let pending = try #require(try status.jsonLines().first?["pending"] as? [[String: Any]])
        #expect(pending.compactMap { $0["command"] as? String }.map { $0.prefix(7) } == ["add \"La", "rename "])
        #expect(pending.first?["actor"] as? String == "ana")
        let text = try await CLI.run(["status", path])
        #expect(text.stdout.hasPrefix("\(path): synced through seq 2; 2 edits pending"), "\(text)")
        let show = try await CLI.run(["show", path])
        #expect(show.stdout.contains("with 2 edits made on this device and not yet synced"), "\(show)")
        #expect(show.stdout.contains("Shopping") && show.stdout.contains("Laundry"), "the device's list: \(show)")
        #expect(try await CLI.run(["show", path, "--at", "2"]).stdout.contains("Groceries"), "the file's list at a seq")
        // A refusal on the device's own list (the label it just renamed, by a title it no longer has) is no edit.
        let unknown = try await CLI.run(["remove", path, "ffffffff"])
        #expect(unknown.status != 0)
        #expect(try await CLI.run(["status", path, "--json"]).jsonLines().first?["pending"] as? [[String: Any]] != nil)
    }

    /// A synced log is the history it mirrors: every read command answers on
    /// it as on the log it was pulled from (its records, byte for byte), and
    /// the store's history reads agree.
    @Test func everyReadCommandAnswersOnASyncedLogAsOnTheHistoryItMirrors() async throws {
        let scratch = try Scratch()
        let (reference, ids) = try CutHistoryTests.reference(in: scratch, seed: 46, writes: CutHistoryTests.writes)
        let records = try LogReader.readAll(path: reference).records
        let last = records.last!.seq
        let head = try await CLI.run(["head", reference, "--at", String(last / 4)]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let expected = try await CutHistoryTests.answers(reference, ids: ids, last: last, extending: head)
        try FileManager.default.createDirectory(atPath: scratch.path("device"), withIntermediateDirectories: true)
        let path = scratch.path("device/h.labellog")
        let session = try SyncSession.open(mirrorPath: path, server: InMemoryEventLog(records: records))
        #expect(try session.sync().pulled == records.count)
        session.close()
        let got = try await CutHistoryTests.answers(path, ids: ids, last: last, extending: head)
        for (want, answer) in zip(expected, got) { #expect(answer == want) }
        #expect(try await CLI.run(["verify", path, "--head", head]).status == 0)
        let plain = try await LabelStore.open(path: reference, options: .init(createIfMissing: false))
        defer { plain.close() }
        let synced = try SyncedStore.open(mirrorPath: path, server: nil)
        defer { synced.close() }
        #expect(synced.session.serverState.list.labels == plain.labels)
        // The app's store numbers its own seqs (a local history of what it showed): the same labels, in order.
        #expect(
            synced.store.labels.map { "\($0.id) \($0.title) \($0.isEnabled)" }
                == plain.labels.map { "\($0.id) \($0.title) \($0.isEnabled)" })
    }

    /// An app holds its synced store open (the mirror's and the outbox's
    /// locks with it): `show` and `status` still read the device's state.
    @Test func showAndStatusReadASyncedLogWhileItsAppHoldsIt() async throws {
        let dir = TemporaryDirectory()
        let path = try syncedLog(dir)
        let app = try SyncedStore.open(mirrorPath: path, server: nil)
        defer { app.close() }
        try await app.store.add("made in the app")
        let show = try await CLI.run(["show", path])
        #expect(show.status == 0 && show.stdout.contains("made in the app"), "\(show)")
        #expect(show.stdout.contains("with 1 edit made on this device and not yet synced"), "\(show)")
        let status = try await CLI.run(["status", path])
        #expect(status.status == 0 && status.stdout.contains("synced through seq 2; 1 edit pending"), "\(status)")
        let write = try await CLI.run(["add", path, "from the shell"])
        #expect(write.status == 1 && write.stderr.contains("in use"), "one writer at a time: \(write)")
    }

    @Test func everyOtherWriterIsRefusedNamingTheOutbox() async throws {
        let dir = TemporaryDirectory()
        let path = try syncedLog(dir)
        let exported = dir.file("in.jsonl")
        try Data(try await CLI.run(["export", path]).stdout.utf8).write(to: URL(fileURLWithPath: exported))
        for arguments in [["import", path, exported], ["archive", path, "--before", "2"]] {
            let refused = try await CLI.run(arguments)
            #expect(refused.status == 1, "\(arguments): \(refused)")
            #expect(refused.stderr.contains("phone.labellog.outbox"), "\(arguments): \(refused)")
        }
        let error = #expect(throws: StoreError.self) { try LabelStore.open(path: path) }
        guard case .storage(let cause) = error?.code else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(cause.code == .logInUse)
    }

    @Test func statusOfALogThatIsNotSyncedSaysHowToSyncIt() async throws {
        let dir = TemporaryDirectory()
        let path = dir.file("plain.labellog")
        #expect(try await CLI.run(["add", path, "x"]).status == 0)
        let status = try await CLI.run(["status", path])
        #expect(status.status == 1)
        #expect(status.stderr.contains("not a synced log") && status.stderr.contains("labelreplay sync"), "\(status)")
        let sync = try await CLI.run(["sync", path, dir.file("other.labellog")])
        #expect(sync.status == 64, "\(sync)")
        #expect(sync.stderr.contains("must name a server list"), "\(sync)")
    }
}
