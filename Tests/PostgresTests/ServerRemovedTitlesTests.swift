#if Postgres
import EventLog
import Foundation
import LabelProjection
import LabelStorePostgres
import LabelStoreTestSupport
import Testing

/// A server checkpoint keeps no removed label's title: `diff` (and `trace`)
/// read the titles of the labels a checkpoint has removed from their removal
/// records, found by the seq the checkpoint names for each (a probe of the
/// records' key, `records(atSeqs:)`), on a second thread while the diff is
/// computed. Each answer is the one a fold from seq 1 gives.
@Suite struct ServerRemovedTitlesTests {
    let server = PostgresTestServer.shared
    let checkpoints = ServerCheckpointTests()

    @Test func recordsAreReadBySeqInSeqOrderAndAnAlteredOneIsNamed() throws {
        let location = server.location()
        let log = try checkpoints.open(location, interval: 0)
        defer { log.close() }
        let store = try LabelStore(storage: log)
        try checkpoints.write(150, to: store, seed: 61)
        let all = try log.read(from: 1, maxCount: 1_000)
        let asked: [UInt64] = [140, 3, 77, 3, 1, 150, 0, 151, 9_999, 64]
        let expected = all.filter { [1, 3, 64, 77, 140, 150].contains($0.seq) }
        #expect(try log.records(atSeqs: asked) == expected, "repeats once, in seq order, seqs without a row left out")
        #expect(try log.records(atSeqs: []) == [])
        #expect(try log.records(atSeqs: [0, 500]) == [])
        // A payload swapped for another record's (checksums left): named by its seq.
        try server.psql(
            "UPDATE labelstore.records SET payload = (SELECT payload FROM labelstore.records WHERE list = '\(location.list)' AND seq = 2) WHERE list = '\(location.list)' AND seq = 77"
        )
        let error = #expect(throws: EventLogError.self) { try log.records(atSeqs: [3, 77, 140]) }
        #expect(error?.code == .corruptRecord && error?.message.contains("seq 77") == true, "\(String(describing: error))")
        #expect(try log.records(atSeqs: [3, 140]) == all.filter { [3, 140].contains($0.seq) }, "the rows around it still read")
    }

    /// Labels live at FROM, renamed and toggled, then removed before a later
    /// checkpoint: `diff` prints each with the title and state of its
    /// removal, as the fold from seq 1 does — also a label removed, added
    /// again and removed again (its last removal), and one removed after the
    /// checkpoint (from the records folded after it).
    @Test func diffPrintsEachRemovedLabelAsItsLastRemovalStatesIt() throws {
        let list = "removed-\(UUID().uuidString.prefix(8))"
        let location = server.location(list: list)
        let log = try checkpoints.open(location, interval: 16)
        defer { log.close() }
        let store = try LabelStore(storage: log)
        var ids: [LabelID] = []
        for i in 0..<30 { ids.append(try store.add("first \(i)")) }
        let from = store.lastSeq
        for (i, id) in ids.prefix(12).enumerated() {
            try store.rename(id, to: "last title \(i)")
            if i.isMultiple(of: 3) { try store.toggle(id) }
            try store.remove(id)
        }
        // Added again with its id and removed again: its second removal is its last.
        let again = ids[0]
        try log.append([LogEntry(.added(id: again, title: "back again", isEnabled: true, index: 0))])
        try store.refresh()
        try store.rename(again, to: "gone twice")
        try store.remove(again)
        for i in 0..<40 { try store.add("filler \(i)") }
        store.waitForHistoryFiles()
        // One removed after the newest checkpoint: its title comes from the fold after it.
        try store.rename(ids[20], to: "removed at the end")
        try store.remove(ids[20])
        let to = store.lastSeq
        let seqs = try checkpoints.checkpointSeqs(location)
        try #require(seqs.contains { $0 > from + 30 && $0 < to - 2 }, "a checkpoint after the removals: \(seqs)")

        let url = CLIOverServerTests.url(list: list)
        let diff = try CLIOverServerTests.cli(["diff", url, String(from), String(to), "--json"])
        #expect(diff.status == 0, "\(diff)")
        for i in 1..<12 { #expect(diff.output.contains("\"title\":\"last title \(i)\""), "label \(i): \(diff.output)") }
        #expect(diff.output.contains("\"title\":\"gone twice\"") && !diff.output.contains("back again"), "\(diff.output)")
        #expect(diff.output.contains("\"title\":\"removed at the end\""), "\(diff.output)")
        try checkpoints.expectSameOutputWithoutCheckpoints(
            [["diff", url, String(from), String(to), "--json"], ["diff", url, String(from + 5), String(to - 1)]], list: list)
    }
}
#endif
