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
