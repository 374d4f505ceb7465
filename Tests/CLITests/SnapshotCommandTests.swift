import Foundation
import Testing

/// `snapshot LOG`: writes a checkpoint; the next open uses it; a damaged one is ignored and said so.
@Suite struct SnapshotCommandTests {
    @Test func snapshotWritesACheckpointThatTheNextOpenUsesAndADamagedOneIsIgnored() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try makeGridTileRing(at: log)
        let first = try await CLI.run(["snapshot", log, "--json"]).json()
        let path = try #require(first["path"] as? String)
        #expect(first["seq"] as? Int == 3)
        #expect((first["bytes"] as? Int ?? 0) > 0)
        #expect(first["opened"] as? String == "replayed 3 records from seq 1")
        #expect(FileManager.default.fileExists(atPath: path))

        #expect(try await CLI.run(["rename", log, "00000000-0000-4000-8000-000000000001", "Grid Two"]).status == 0)
        let second = try await CLI.run(["snapshot", log])
        #expect(
            second.status == 0 && second.stdout.contains("opened from snapshot at seq 3 (+1 records; covered records not re-read)"),
            "\(second)")

        // Damage every snapshot: opening must ignore them, say so, and replay the log.
        for name in scratch.files where name.contains(".snapshot-") {
            var bytes = try Data(contentsOf: URL(fileURLWithPath: scratch.path(name)))
            bytes[bytes.count / 2] ^= 0xFF
            try bytes.write(to: URL(fileURLWithPath: scratch.path(name)))
        }
        let third = try await CLI.run(["snapshot", log])
        #expect(third.status == 0 && third.stdout.contains("replayed 4 records from seq 1") && third.stdout.contains("ignored"), "\(third)")
        let show = try await CLI.run(["show", log, "--json"]).json()
        #expect(show["seq"] as? Int == 4)
    }

    @Test func snapshotOfAMissingLogFails() async throws {
        let scratch = try Scratch()
        let result = try await CLI.run(["snapshot", scratch.path("none.labellog")])
        #expect(result.status == 1 && result.stderr.contains("no such log"), "\(result)")
        #expect(scratch.files.isEmpty)
    }
}
