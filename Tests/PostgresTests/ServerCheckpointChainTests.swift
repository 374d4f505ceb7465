#if Postgres
import EventLog
import Foundation
import LabelProjection
import LabelStorePostgres
import LabelStoreTestSupport
import Testing

/// Chains of server checkpoints (schema version 8, docs/POSTGRES.md,
/// "Checkpoints"): a store writes a full image one checkpoint in
/// `checkpointFullEvery` and storage deltas on the one before it between;
/// every checkpoint, written by one host or several in turn, gives the fold
/// from seq 1; a damaged link makes only the checkpoints built on it fall
/// back; a chain whose full image is gone is skipped and dropped; thinning
/// and cuts drop chains whole.
@Suite struct ServerCheckpointChainTests {
    let server = PostgresTestServer.shared
    let helpers = ServerCheckpointTests()

    /// The list's checkpoint rows: seq, the seq each is a delta on, and its image's size.
    func rows(_ location: PostgresLocation) throws -> [(seq: UInt64, deltaOn: UInt64?, bytes: Int)] {
        try server.psql(
            "SELECT seq || ':' || coalesce(delta_on::text, '') || ':' || octet_length(image) FROM labelstore.checkpoints WHERE list = '\(location.list)' ORDER BY seq"
        )
        .split(separator: "\n").map { line in
            let parts = line.split(separator: ":", omittingEmptySubsequences: false)
            return (UInt64(parts[0])!, UInt64(parts[1]), Int(parts[2])!)
        }
    }

    /// Appends `count` labels straight to the log (no checkpoint follows them),
    /// so the list is large enough beside the writes that follow for most
    /// checkpoints to be deltas.
    func warmUp(_ log: PostgresEventLog, count: Int = 200) throws {
        try log.append((0..<count).map { LogEntry(.added(id: LabelID(), title: "warm-up \($0)", isEnabled: $0 % 2 == 0, index: $0)) })
    }

    /// Writes 23 random commands a round through `stores[round % 2]`, each
    /// store catching up first and waiting for the checkpoints it writes.
    func writeInTurn(_ stores: [LabelStore], rounds: Range<Int>, seed: UInt64) throws {
        for round in rounds {
            let store = stores[round % 2]
            try store.refresh()
            try helpers.write(23, to: store, seed: seed + UInt64(round))
            store.waitForHistoryFiles()
            #expect(store.snapshotReport.lastWriteError == nil)
        }
    }

    /// Every checkpoint row, looked up by its own seq, gives the fold from seq 1 there.
    func expectEveryCheckpointIsTheFold(_ log: PostgresEventLog, _ location: PostgresLocation) throws {
        for row in try rows(location) {
            let found = try LabelStore.storageCheckpoint(of: log, atOrBefore: row.seq)
            #expect(found.skipped.isEmpty, "\(found.skipped)")
            #expect(found.list?.lastSeq == row.seq, "the checkpoint at seq \(row.seq) itself is used")
            #expect(try found.list == helpers.reference(log, through: row.seq), "the checkpoint at seq \(row.seq)")
        }
    }

    @Test func chainsWrittenByTwoHostsInTurnGiveTheFoldAtEveryCheckpoint() throws {
        let location = server.location()
        let first = try helpers.open(location, interval: 16, fullEvery: 4)
        defer { first.close() }
        let second = try helpers.open(location, interval: 16, fullEvery: 4)
        defer { second.close() }
        try warmUp(first)
        let a = try LabelStore(storage: first)
        try helpers.write(30, to: a, seed: 31)
        let b = try LabelStore(storage: second)
        try writeInTurn([a, b], rounds: 0..<8, seed: 100)
        let rows = try rows(location)
        let deltas = rows.filter { $0.deltaOn != nil }, fulls = rows.filter { $0.deltaOn == nil }
        #expect(deltas.count >= 4 && fulls.count >= 2, "\(rows)")
        #expect(deltas.allSatisfy { delta in rows.contains { $0.seq == delta.deltaOn } }, "every delta is on a row the list has: \(rows)")
        try expectEveryCheckpointIsTheFold(first, location)
        // A host that joins opens from the newest chain, and time travel folds from the nearest link.
        let joining = try helpers.open(location, interval: 16)
        defer { joining.close() }
        let joined = try LabelStore(storage: joining)
        #expect(joined.snapshot == b.snapshot || joined.snapshot == a.snapshot)
        var rng = SeededGenerator(seed: 5)
        for seq in (0..<12).map({ _ in UInt64.random(in: 1...joined.lastSeq, using: &rng) }) {
            #expect(try joined.state(atSeq: seq) == helpers.reference(first, through: seq), "seq \(seq)")
        }
    }

    @Test func aDeltaIsASmallPartOfAFullImageOfAListThatChangesLittle() throws {
        let location = server.location()
        let log = try helpers.open(location, interval: 64, fullEvery: 8)
        defer { log.close() }
        try log.append((0..<2_000).map { LogEntry(.added(id: testID($0 + 1), title: "label number \($0)", isEnabled: true, index: $0)) })
        let store = try LabelStore(storage: log)
        for i in 0..<600 { try store.toggle(testID(i * 3 + 1)) }
        store.waitForHistoryFiles()
        let rows = try rows(location)
        let full = try #require(rows.first { $0.deltaOn == nil })
        let deltas = rows.filter { $0.deltaOn != nil }
        #expect(deltas.count >= 3, "\(rows)")
        #expect(deltas.allSatisfy { $0.bytes * 20 < full.bytes }, "\(rows)")
        try expectEveryCheckpointIsTheFold(log, location)
    }

    @Test func aDamagedDeltaMakesOnlyTheCheckpointsBuiltOnItFallBack() throws {
        let location = server.location()
        let log = try helpers.open(location, interval: 16, fullEvery: 8)
        defer { log.close() }
        try warmUp(log)
        let store = try LabelStore(storage: log)
        try helpers.write(140, to: store, seed: 17)
        store.waitForHistoryFiles()
        let rows = try rows(location)
        // A delta on a delta, and the links built on it.
        let k = try #require(
            rows.indices.first { $0 >= 2 && rows[$0].deltaOn == rows[$0 - 1].seq && rows[$0 - 1].deltaOn != nil }, "\(rows)")
        var last = k
        while last + 1 < rows.count, rows[last + 1].deltaOn == rows[last].seq { last += 1 }
        let damaged = rows[k].seq, before = rows[k - 1].seq
        try server.psql(
            "UPDATE labelstore.checkpoints SET image = set_byte(image, 90, 255 - get_byte(image, 90)) WHERE list = '\(location.list)' AND seq = \(damaged)"
        )
        for seq in [damaged, rows[last].seq] {
            let found = try LabelStore.storageCheckpoint(of: log, atOrBefore: seq)
            #expect(found.list?.lastSeq == before, "the link before the damaged one: \(found.skipped)")
            #expect(found.skipped.count == 1, "\(found.skipped)")
            #expect(
                found.skipped.first?.hasPrefix("the checkpoint at seq \(damaged) does not decode (a delta)") == true
                    && found.skipped.first?.contains("checksum") == true, "\(found.skipped)")
            #expect(try found.list == helpers.reference(log, through: before))
        }
        let newest = rows[rows.count - 1].seq
        // The answers stay the fold's, at every seq.
        for seq in [before, damaged, damaged + 1, rows[last].seq, newest, store.lastSeq] {
            #expect(try store.state(atSeq: seq) == helpers.reference(log, through: seq), "seq \(seq)")
        }
    }

    @Test func aChainWhoseFullImageIsGoneIsSkippedAndTheNextWriteDropsIt() throws {
        let location = server.location()
        let log = try helpers.open(location, interval: 16, fullEvery: 4)
        defer { log.close() }
        try warmUp(log)
        let store = try LabelStore(storage: log)
        try helpers.write(150, to: store, seed: 19)
        store.waitForHistoryFiles()
        let rows = try rows(location)
        let newestFull = try #require(rows.last { full in full.deltaOn == nil && rows.contains { $0.deltaOn == full.seq } })
        let onIt = rows.filter { $0.seq > newestFull.seq && $0.deltaOn != nil }
        try #require(!onIt.isEmpty)
        try server.psql("DELETE FROM labelstore.checkpoints WHERE list = '\(location.list)' AND seq = \(newestFull.seq)")
        let found = try LabelStore.storageCheckpoint(of: log, atOrBefore: onIt.last!.seq)
        #expect(found.list.map { $0.lastSeq < newestFull.seq } == true, "an older chain: \(found.skipped)")
        #expect(
            found.skipped.first?.contains("is a delta on the checkpoint at seq \(newestFull.seq), which is gone") == true,
            "\(found.skipped)")
        #expect(found.skipped.count == 1, "the chain is named once: \(found.skipped)")
        #expect(try found.list == helpers.reference(log, through: found.list?.lastSeq ?? 0))
        // The store's next checkpoint is a full image (its base is gone), and thinning drops the broken chain.
        try helpers.write(40, to: store, seed: 20)
        store.waitForHistoryFiles()
        let after = try self.rows(location)
        #expect(after.allSatisfy { $0.seq <= newestFull.seq || $0.seq > onIt.last!.seq }, "\(after)")
        #expect(after.allSatisfy { row in row.deltaOn.map { base in after.contains { $0.seq == base } } ?? true }, "\(after)")
        try expectEveryCheckpointIsTheFold(log, location)
    }

    /// A row edited (past the schema's CHECK) to be a delta on itself is
    /// named and skipped: the walk of a chain never loops.
    @Test func aDeltaEditedToNameItselfIsSkippedAndTheWalkEnds() throws {
        let schema = "chain_\(UUID().uuidString.prefix(8).lowercased())"
        let location = server.location(list: "a", schema: schema)
        let log = try PostgresEventLog(
            location: location, options: .init(createIfMissing: true, checkpointInterval: 16, checkpointFullEvery: 4))
        defer { log.close() }
        try warmUp(log)
        let store = try LabelStore(storage: log)
        try helpers.write(80, to: store, seed: 37)
        store.waitForHistoryFiles()
        let rows = try server.psql(
            "SELECT string_agg(seq || ':' || coalesce(delta_on::text, ''), ',' ORDER BY seq) FROM \(schema).checkpoints"
        ).split(separator: ",").map { $0.split(separator: ":", omittingEmptySubsequences: false) }
        let newest = try #require(rows.last { !$0[1].isEmpty }.flatMap { UInt64($0[0]) }, "a delta: \(rows)")
        try server.psql(
            """
            ALTER TABLE \(schema).checkpoints DROP CONSTRAINT checkpoints_check;
            UPDATE \(schema).checkpoints SET delta_on = seq WHERE list = 'a' AND seq = \(newest)
            """)
        let found = try LabelStore.storageCheckpoint(of: log, atOrBefore: newest)
        #expect(found.skipped.count == 1 && found.skipped[0].contains("which is not before it"), "\(found.skipped)")
        #expect(found.list.map { $0.lastSeq < newest } == true)
        #expect(try found.list == helpers.reference(log, through: found.list?.lastSeq ?? 0))
    }

    @Test func aCutThroughAChainDropsTheDeltasOnWhatItRemoved() throws {
        let location = server.location()
        let log = try helpers.open(location, interval: 16, fullEvery: 4)
        defer { log.close() }
        try warmUp(log)
        let store = try LabelStore(storage: log)
        try helpers.write(200, to: store, seed: 29)
        store.waitForHistoryFiles()
        let rows = try rows(location)
        // Cut right after the second full image: the deltas on it lose their chain.
        let fulls = rows.filter { $0.deltaOn == nil }
        try #require(fulls.count >= 3, "\(rows)")
        let cut = fulls[1].seq + 3
        try log.cutHistory(through: cut, archiveTo: nil)
        let after = try self.rows(location)
        #expect(after.allSatisfy { $0.seq >= fulls[2].seq }, "only chains whose full image is after the cut stay: \(after)")
        #expect(!after.isEmpty)
        let reopened = try helpers.open(location, interval: 16)
        defer { reopened.close() }
        let joined = try LabelStore(storage: reopened)
        #expect(joined.snapshot == store.snapshot)
        for row in after {
            let found = try LabelStore.storageCheckpoint(of: reopened, atOrBefore: row.seq)
            #expect(found.list?.lastSeq == row.seq && found.skipped.isEmpty, "\(row.seq): \(found.skipped)")
            #expect(try found.list == joined.state(atSeq: row.seq))
        }
    }

    @Test func thinningDropsChainsWholeAndDeltasWithoutAChain() {
        typealias Row = (seq: UInt64, deltaOn: UInt64?)
        let rows: [Row] = [(8, nil), (16, 8), (24, 16), (32, nil), (40, 32), (48, nil), (56, 48), (64, 60)]
        #expect(PostgresEventLog.checkpointsToDrop(rows, keeping: 3) == [64], "the orphan only")
        #expect(PostgresEventLog.checkpointsToDrop(rows, keeping: 2) == [32, 40, 64], "the middle chain, whole")
        let interleaved: [Row] = [(8, nil), (16, nil), (24, 8), (32, 16), (40, 24), (48, nil)]
        #expect(PostgresEventLog.checkpointsToDrop(interleaved, keeping: 2) == [16, 32], "a chain is its links, not its seqs")
    }
}
#endif
