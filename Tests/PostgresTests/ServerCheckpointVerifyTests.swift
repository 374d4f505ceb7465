#if Postgres
import EventLog
import Foundation
import LabelProjection
import LabelStorePostgres
import LabelStoreTestSupport
import Testing

/// `verify URL` compares every list a server list's checkpoints hold (full
/// images and deltas, each image read once) with the fold of the records at
/// its seq: a checkpoint that decodes to another list — a forged one, its
/// checksums right, which every host opening the list would start from — and
/// one that does not decode are named by seq, with the remedy; the records
/// stay sound, and once the rows it names are deleted, verify passes.
@Suite struct ServerCheckpointVerifyTests {
    let server = PostgresTestServer.shared
    let helpers = ServerCheckpointTests()
    let chains = ServerCheckpointChainTests()

    /// A list with chains of checkpoints (a full image, then deltas), its URL and rows.
    func makeList() throws -> (location: PostgresLocation, log: PostgresEventLog, url: String) {
        let location = server.location(list: "verify-\(UUID().uuidString.prefix(8))")
        let log = try helpers.open(location, interval: 16, fullEvery: 4)
        try chains.warmUp(log, count: 60)
        let store = try LabelStore(storage: log)
        try helpers.write(150, to: store, seed: 71)
        store.waitForHistoryFiles()
        #expect(store.snapshotReport.lastWriteError == nil)
        store.close()
        return (location, log, CLIOverServerTests.url(list: location.list))
    }

    func verify(_ url: String) throws -> (status: Int32, json: [String: Any], text: String) {
        let json = try CLIOverServerTests.cli(["verify", url, "--json"])
        let text = try CLIOverServerTests.cli(["verify", url])
        let object = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any] ?? [:]
        #expect(json.status == text.status, "\(json) \(text)")
        return (json.status, object, text.output + text.errors)
    }

    /// Two hosts writing in turn (each writes its deltas on the checkpoint it
    /// wrote or opened from, so some are on an earlier row than the one
    /// before them): every list is the fold, and verify says it checked them.
    @Test func verifyComparesEveryCheckpointsListWithTheFold() throws {
        let location = server.location(list: "verify-\(UUID().uuidString.prefix(8))")
        let first = try helpers.open(location, interval: 16, fullEvery: 4)
        defer { first.close() }
        let second = try helpers.open(location, interval: 16, fullEvery: 4)
        defer { second.close() }
        try chains.warmUp(first, count: 60)
        let a = try LabelStore(storage: first)
        try helpers.write(40, to: a, seed: 200)
        a.waitForHistoryFiles()
        // The second host opens from the first's newest checkpoint, and writes its deltas on it.
        let b = try LabelStore(storage: second)
        try chains.writeInTurn([a, b], rounds: 1..<9, seed: 200)
        let url = CLIOverServerTests.url(list: location.list)
        let rows = try chains.rows(location)
        #expect(rows.contains { $0.deltaOn != nil } && rows.contains { $0.deltaOn == nil }, "\(rows)")
        #expect(
            zip(rows.dropFirst(), rows).contains { row, before in row.deltaOn != nil && row.deltaOn != before.seq },
            "a delta on an earlier row than the one before it: \(rows)")
        let sound = try verify(url)
        #expect(sound.status == 0, "\(sound.text)")
        #expect((sound.json["serverChecks"] as? [String])?.contains("checkpoint lists") == true, "\(sound.json)")
        #expect(sound.text.contains("every list its checkpoints hold is the fold of its records"), "\(sound.text)")
    }

    /// A full image replaced by the list at its seq with one label's title
    /// changed, encoded and sealed as a writer would: readers use it (`show
    /// --at` prints the forged title); `verify` names it, the label and both
    /// titles, and says which rows to delete.
    @Test func aForgedCheckpointThatDecodesIsNamedByVerify() throws {
        let (location, log, url) = try makeList()
        defer { log.close() }
        let rows = try chains.rows(location)
        let target = try #require(rows.dropFirst().first { $0.deltaOn == nil }, "a second full image: \(rows)")
        let records = try log.read(from: 1, maxCount: Int(target.seq))
        let truth = try helpers.reference(log, through: target.seq)
        // A label with no record but its addition before the checkpoint: forging its addition changes the list there.
        let victim = try #require(
            truth.labels.first { label in
                let own = records.filter { $0.event.labelID == label.id }
                return own.count == 1 && own[0].event.kind == .added
            })
        var forged = LabelList()
        for record in records {
            var record = record
            if case .added(victim.id, _, let isEnabled, let index) = record.event {
                record.event = .added(id: victim.id, title: "forged title", isEnabled: isEnabled, index: index)
            }
            try forged.replay(record)
        }
        let image = forged.snapshotBytes(logID: log.checkpointHistoryID, fingerprint: 0)
        let hex = image.map { String(format: "%02x", $0) }.joined()
        try server.psql(
            "UPDATE labelstore.checkpoints SET image = decode('\(hex)', 'hex') WHERE list = '\(location.list)' AND seq = \(target.seq)")

        let shown = try CLIOverServerTests.cli(["show", url, "--at", String(target.seq), "--json"])
        #expect(shown.output.contains("forged title"), "a reader starts from the forged list: \(shown)")
        let found = try verify(url)
        #expect(found.status == 1, "\(found.text)")
        let problem = found.json["problem"] as? [String: Any]
        #expect(problem?["kind"] as? String == "checkpoint" && problem?["seq"] as? Int == Int(target.seq), "\(found.json)")
        #expect(problem?["code"] as? String == "historyDiverged", "\(found.json)")
        let message = problem?["message"] as? String ?? ""
        #expect(message.contains("label \(victim.id)") && message.contains("forged title") && message.contains(victim.title), "\(message)")
        #expect(
            found.text.contains("DELETE FROM \"labelstore\".checkpoints WHERE list = '\(location.list)' AND seq >= \(target.seq)"),
            "\(found.text)")

        // The remedy: the rows it names deleted, the records and the checkpoints left are sound.
        try server.psql("DELETE FROM labelstore.checkpoints WHERE list = '\(location.list)' AND seq >= \(target.seq)")
        let mended = try verify(url)
        #expect(mended.status == 0, "\(mended.text)")
    }

    /// A delta whose bytes were damaged (readers skip it, and the deltas on
    /// it) is named by verify as a checkpoint that does not decode.
    @Test func aCheckpointThatDoesNotDecodeIsNamedByVerify() throws {
        let (location, log, url) = try makeList()
        defer { log.close() }
        let rows = try chains.rows(location)
        let target = try #require(rows.first { $0.deltaOn != nil }, "\(rows)")
        try server.psql(
            "UPDATE labelstore.checkpoints SET image = overlay(image placing '\\xdeadbeef'::bytea from 30) WHERE list = '\(location.list)' AND seq = \(target.seq)"
        )
        let found = try verify(url)
        #expect(found.status == 1, "\(found.text)")
        let problem = found.json["problem"] as? [String: Any]
        #expect(problem?["kind"] as? String == "checkpoint" && problem?["seq"] as? Int == Int(target.seq), "\(found.json)")
        #expect(problem?["code"] as? String == "corruptRecord", "\(found.json)")
        #expect((problem?["message"] as? String)?.contains("does not decode") == true, "\(found.json)")
        // The records are read on past it, all of them checked.
        #expect(found.json["lastSeq"] as? Int == Int(try log.refreshLastSeq()), "\(found.json)")
        #expect(found.text.contains("bad checkpoint at seq \(target.seq)"), "\(found.text)")
    }
}
#endif
