#if Postgres
import EventLog
import Foundation
import LabelProjection
import LabelStorePostgres
import LabelStoreTestSupport
import Testing

/// Server-side checkpoints (issue 29, item 2): a store whose own append
/// crosses the interval writes the list to the `checkpoints` table; a host
/// that opens later, and time travel, start from the newest usable one; a
/// checkpoint whose record changed, or whose image does not decode, is
/// skipped and named; the table keeps a bounded number of them.
@Suite struct ServerCheckpointTests {
    let server = PostgresTestServer.shared

    /// The list at `location`, whose stores write a checkpoint every `interval` records, a full image one in `fullEvery`.
    func open(_ location: PostgresLocation, interval: UInt64 = 64, kept: Int = 16, fullEvery: Int = 4) throws -> PostgresEventLog {
        try PostgresEventLog(
            location: location,
            options: .init(
                createIfMissing: true, pollInterval: .milliseconds(50), checkpointInterval: interval, checkpointsKept: kept,
                checkpointFullEvery: fullEvery))
    }

    /// Writes `count` random commands through `store` (adds, renames, toggles, removes, moves), seeded.
    func write(_ count: Int, to store: LabelStore, seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        for i in 0..<count {
            let ids = store.snapshot.ids
            let choice = ids.count < 4 ? 0 : Int.random(in: 0..<10, using: &rng)
            let id = ids.isEmpty ? nil : ids[Int.random(in: 0..<ids.count, using: &rng)]
            switch (choice, id) {
            case (0...2, _), (_, nil): try store.add("label \(seed)-\(i)")
            case (3...4, let id?): try store.rename(id, to: "renamed \(i)")
            case (5...6, let id?): try store.toggle(id)
            case (7, let id?): try store.remove(id)
            case (_, let id?): try store.move(id, to: Int.random(in: 0..<ids.count, using: &rng))
            }
        }
    }

    /// The list after `seq`, folded from seq 1 straight from the records.
    func reference(_ log: PostgresEventLog, through seq: UInt64) throws -> LabelList {
        var list = LabelList()
        try log.forEachRecord(from: 1, through: seq) { record in
            try list.replay(record)
            return true
        }
        return list
    }

    func checkpointSeqs(_ location: PostgresLocation) throws -> [UInt64] {
        try server.psql("SELECT seq FROM labelstore.checkpoints WHERE list = '\(location.list)' ORDER BY seq")
            .split(separator: "\n").compactMap { UInt64($0) }
    }

    typealias Run = (status: Int32, output: String, errors: String)

    /// Runs each of `commands` over `list` through its checkpoints (each must
    /// say it started from one; `check` sees each run), then with the list's
    /// checkpoints deleted: each must print the same output from seq 1 (the
    /// commands' own way, without the test hook: `trace`'s full replay).
    func expectSameOutputWithoutCheckpoints(
        _ commands: [[String]], list: String, between: () throws -> Void = {}, check: ([String], Run) -> Void = { _, _ in }
    ) throws {
        var environment = ProcessInfo.processInfo.environment
        environment["LABELREPLAY_TEST_INDEX"] = "always"
        var throughCheckpoints: [Run] = []
        for arguments in commands {
            let run = try runCommand(try CLIOverServerTests.executable(), arguments, environment: environment)
            #expect(run.status == 0 && !run.output.isEmpty, "\(arguments): \(run)")
            #expect(run.errors.contains("(from the checkpoint at seq"), "\(arguments) starts from a checkpoint: \(run.errors)")
            check(arguments, run)
            throughCheckpoints.append(run)
        }
        try between()
        try server.psql("DELETE FROM labelstore.checkpoints WHERE list = '\(list)'")
        for (arguments, before) in zip(commands, throughCheckpoints) {
            // Without the test hook: the commands' own way from seq 1 (trace: the full replay).
            let run = try runCommand(try CLIOverServerTests.executable(), arguments)
            #expect(run.status == 0 && !run.errors.contains("(from the checkpoint"), "\(arguments): \(run)")
            #expect(run.output == before.output, "\(arguments): the same output with and without checkpoints")
        }
    }

    /// Each checkpoint keeps the history tree's frontier at its seq (schema
    /// version 6), continued from the one before it; `verify` checks each
    /// against the records and names a forged one by its seq.
    @Test func everyCheckpointKeepsTheHistoryTreesHeadAtItsSeqAndVerifyChecksIt() throws {
        let location = server.location()
        let log = try open(location)
        defer { log.close() }
        let store = try LabelStore(storage: log)
        try write(300, to: store, seed: 11)
        store.waitForHistoryFiles()
        #expect(store.snapshotReport.lastWriteError == nil)
        let heads = try log.checkpointHeads(in: 1...log.refreshLastSeq())
        #expect(heads.count >= 4, "\(heads.map(\.seq))")
        for head in heads {
            let hashed = try HistoryProver.head(of: HistoryRecords(storage: log, name: location.list), atSeq: head.seq)
            #expect(head.head == hashed, "the checkpoint at seq \(head.seq)")
        }
        let url = CLIOverServerTests.url(list: location.list)
        let verified = try CLIOverServerTests.cli(["verify", url, "--json"])
        #expect(verified.status == 0 && verified.output.contains("checkpoint heads"), "\(verified)")
        let verifiedText = try CLIOverServerTests.cli(["verify", url])
        #expect(verifiedText.output.contains("every history tree head its checkpoints keep is the head of its records"), "\(verifiedText)")
        let forged = heads[1].seq
        try server.psql(
            "UPDATE labelstore.checkpoints SET frontier = set_byte(frontier, 0, 255 - get_byte(frontier, 0)) WHERE list = '\(location.list)' AND seq = \(forged)"
        )
        let caught = try CLIOverServerTests.cli(["verify", url, "--json"])
        #expect(
            caught.status == 1 && caught.output.contains(#""seq":\#(forged)"#) && caught.output.contains("historyDiverged"),
            "\(caught)")
        let text = try CLIOverServerTests.cli(["verify", url])
        #expect(text.status == 1 && text.errors.contains("the checkpoint at seq \(forged) keeps the history tree head"), "\(text)")
    }

    @Test func aStoreWhoseAppendsCrossTheIntervalWritesCheckpointsAndAJoiningHostOpensFromThem() throws {
        let location = server.location()
        let log = try open(location)
        defer { log.close() }
        let store = try LabelStore(storage: log)
        try write(300, to: store, seed: 7)
        store.waitForHistoryFiles()
        let seqs = try checkpointSeqs(location)
        #expect(!seqs.isEmpty, "300 single writes cross the interval of 64 four times")
        #expect(seqs.first == 64, "the first write to cross is the one at seq 64: \(seqs)")
        #expect(store.snapshotReport.lastWriteError == nil)

        // A record before the newest checkpoint is made unreadable: a host that
        // opens from the checkpoint never reads it, one that folds from seq 1 would fail.
        try server.psql("UPDATE labelstore.records SET payload = '\\x00'::bytea WHERE list = '\(location.list)' AND seq = 5")
        let joining = try open(location)
        defer { joining.close() }
        let joined = try LabelStore(storage: joining)
        #expect(joined.snapshot == store.snapshot, "the joining host's list is the writer's")
        #expect(throws: StoreError.self, "a fold from seq 1 meets the damaged record") {
            try joined.state(atSeq: 6)
        }
    }

    @Test func timeTravelOverAServerListEqualsTheFoldFromSeqOneAtEverySeq() throws {
        let location = server.location()
        let log = try open(location, interval: 32)
        defer { log.close() }
        let store = try LabelStore(storage: log)
        try write(200, to: store, seed: 11)
        store.waitForHistoryFiles()
        #expect(try checkpointSeqs(location).count >= 3)
        let last = store.lastSeq
        var rng = SeededGenerator(seed: 3)
        for seq in [1, 31, 32, 33, 64, 65, last - 1] + (0..<20).map({ _ in UInt64.random(in: 1...last, using: &rng) }) {
            #expect(try store.state(atSeq: seq) == reference(log, through: seq), "seq \(seq)")
        }
    }

    @Test func aCheckpointWhoseRecordChangedOrWhoseImageIsDamagedIsSkippedAndNamed() throws {
        let location = server.location()
        let log = try open(location, interval: 16)
        defer { log.close() }
        let store = try LabelStore(storage: log)
        try write(100, to: store, seed: 5)
        store.waitForHistoryFiles()
        let seqs = try checkpointSeqs(location)
        try #require(seqs.count >= 3, "\(seqs)")
        let newest = seqs[seqs.count - 1], second = seqs[seqs.count - 2]
        // The newest was written for another chain value (as if its record had been replaced since).
        try server.psql(
            "UPDATE labelstore.checkpoints SET crc = (crc + 1) % 4294967296 WHERE list = '\(location.list)' AND seq = \(newest)")
        // The one before it holds bytes that are not an image.
        try server.psql("UPDATE labelstore.checkpoints SET image = '\\x0102'::bytea WHERE list = '\(location.list)' AND seq = \(second)")
        let found = try LabelStore.storageCheckpoint(of: log, atOrBefore: store.lastSeq)
        #expect(found.list?.lastSeq == seqs[seqs.count - 3], "the newest usable one is the third newest")
        #expect(found.skipped.count == 2, "\(found.skipped)")
        #expect(
            found.skipped.first?.contains("checkpoint at seq \(newest) was written for a record whose checksum") == true, "\(found.skipped)"
        )
        #expect(found.skipped.last?.contains("checkpoint at seq \(second) does not decode") == true, "\(found.skipped)")
        // The answers stay the fold's.
        let joining = try open(location)
        defer { joining.close() }
        #expect(try LabelStore(storage: joining).snapshot == store.snapshot)
        #expect(try store.state(atSeq: newest) == reference(log, through: newest))
    }

    @Test func aCheckpointOfAListDeletedAndCreatedAgainIsNotUsed() throws {
        let location = server.location()
        let first = try open(location, interval: 16)
        let store = try LabelStore(storage: first)
        try write(40, to: store, seed: 9)
        store.waitForHistoryFiles()
        first.close()
        try #require(try checkpointSeqs(location).count >= 1)
        try server.psql(
            """
            DELETE FROM labelstore.records WHERE list = '\(location.list)';
            DELETE FROM labelstore.lists WHERE list = '\(location.list)'
            """)
        let again = try open(location, interval: 0)
        defer { again.close() }
        let other = try LabelStore(storage: again)
        for i in 0..<40 { try other.add("other \(i)") }
        let found = try LabelStore.storageCheckpoint(of: again, atOrBefore: again.lastSeq)
        #expect(found.list == nil, "the old history's checkpoints do not bind to the new records")
        #expect(!found.skipped.isEmpty)
        let reopened = try open(location)
        defer { reopened.close() }
        #expect(try LabelStore(storage: reopened).snapshot == other.snapshot)
    }

    @Test func aListKeepsAtMostTheConfiguredCheckpointsSpreadOverItsHistory() throws {
        let location = server.location()
        let log = try open(location, interval: 8, kept: 4, fullEvery: 1)
        defer { log.close() }
        let store = try LabelStore(storage: log)
        for round in 0..<12 {
            try write(10, to: store, seed: UInt64(round))
            store.waitForHistoryFiles()
        }
        let seqs = try checkpointSeqs(location)
        #expect(seqs.count == 4, "\(seqs)")
        #expect(seqs.last.map { store.lastSeq - $0 < 10 } == true, "the newest is kept: \(seqs) at \(store.lastSeq)")
        #expect(seqs.first == 8, "the oldest is kept: \(seqs)")
    }

    @Test func showAndDiffOverAServerStartFromItsCheckpointsWithTheSameOutput() throws {
        let list = "ckpt-\(UUID().uuidString.prefix(8))"
        let location = server.location(list: list)
        let log = try open(location, interval: 16)
        defer { log.close() }
        let store = try LabelStore(storage: log)
        try write(120, to: store, seed: 13)
        store.waitForHistoryFiles()
        try #require(try checkpointSeqs(location).count >= 3)
        let url = CLIOverServerTests.url(list: list)
        let commands = [
            ["show", url, "--at", "100", "--json"], ["diff", url, "50", "110", "--json"], ["show", url, "--at", "37"],
            ["show", url, "--json"],
            ["show", url, "--query", "a"]
        ]
        try expectSameOutputWithoutCheckpoints(commands, list: list) {
            // stats shows what the server holds: the list's checkpoints and payloads, the schema's tables.
            let stats = try runCommand(try CLIOverServerTests.executable(), ["stats", url, "--json"])
            #expect(stats.status == 0, "\(stats)")
            let object = try JSONSerialization.jsonObject(with: Data(stats.output.utf8)) as? [String: Any]
            let sizes = object?["server"] as? [String: Any]
            #expect(sizes?["listCheckpoints"] as? Int == (try checkpointSeqs(location).count), "\(stats.output)")
            #expect((sizes?["listPayloads"] as? Int ?? 0) > 0 && (sizes?["recordsTable"] as? Int ?? 0) > 0, "\(stats.output)")
            #expect((sizes?["listCheckpointImages"] as? Int ?? 0) > 0, "\(stats.output)")
        } check: { arguments, run in
            if arguments[0] == "diff" {
                // Both lists: the second from a later checkpoint, its removed labels read by label.
                #expect(run.errors.components(separatedBy: "(from the checkpoint at seq").count == 3, "\(run.errors)")
            }
        }
    }

    /// An id prefix over a server list is resolved from the newest checkpoint's
    /// ids and the records after it: the same ids (and the same ambiguity) as
    /// the scan of every record, for labels named only before it, only after
    /// it, and removed.
    @Test func anIDPrefixIsResolvedThroughTheNewestCheckpointAsByEveryRecord() throws {
        let list = "prefix-\(UUID().uuidString.prefix(8))"
        let location = server.location(list: list)
        let log = try open(location, interval: 16)
        defer { log.close() }
        // Two ids that share their first four digits: one added first, one after the newest checkpoint.
        let twins = [LabelID("c0de0001-0000-4000-8000-000000000001")!, LabelID("c0de0002-0000-4000-8000-000000000002")!]
        try log.append([LogEntry(.added(id: twins[0], title: "first twin", isEnabled: true, index: 0))])
        let store = try LabelStore(storage: log)
        try write(100, to: store, seed: 23)
        store.waitForHistoryFiles()
        let newest = try #require(try checkpointSeqs(location).last)
        // A label added after the newest checkpoint, by the log itself (no checkpoint follows it).
        let fresh = LabelID(UUID())
        try log.append([
            LogEntry(.added(id: fresh, title: "after the checkpoint", isEnabled: true, index: 0)),
            LogEntry(.added(id: twins[1], title: "second twin", isEnabled: false, index: 0))
        ])
        let records = try log.read(from: 1, maxCount: 10_000)
        func named(_ records: some Sequence<EventRecord>) -> Set<LabelID> { Set(records.compactMap(\.event.labelID)) }
        let early = named(records.filter { $0.seq <= newest }).subtracting(named(records.filter { $0.seq > newest }))
        let onlyBefore = try #require(early.min { $0.description < $1.description })
        let removed = try #require(
            records.lazy.compactMap { record -> LabelID? in
                guard record.seq <= newest, case .removed(let id, _, _, _) = record.event else { return nil }
                return id
            }.first)
        let shared = "c0de"
        let url = CLIOverServerTests.url(list: list)
        var commands: [[String]] = []
        for id in [onlyBefore, fresh, removed] {
            let prefix = String(id.description.prefix(8))
            commands += [["log", url, "--label", prefix, "--json"], ["trace", url, "--label", prefix, "--json"]]
        }
        commands.append(["log", url, "--label", shared])
        let throughCheckpoints = try commands.map { try runCommand(try CLIOverServerTests.executable(), $0) }
        for (arguments, run) in zip(commands, throughCheckpoints) where arguments.last != shared {
            #expect(run.status == 0 && !run.output.isEmpty, "\(arguments): \(run)")
        }
        let ambiguous = try #require(throughCheckpoints.last)
        #expect(ambiguous.status != 0 && ambiguous.errors.contains("matches 2 labels"), "\(ambiguous)")
        #expect(twins.allSatisfy { ambiguous.errors.contains($0.description) }, "\(ambiguous)")
        try server.psql("DELETE FROM labelstore.checkpoints WHERE list = '\(list)'")
        for (arguments, before) in zip(commands, throughCheckpoints) {
            let run = try runCommand(try CLIOverServerTests.executable(), arguments)
            #expect(run.status == before.status && run.output == before.output, "\(arguments): \(run) vs \(before)")
            if arguments.last == shared { #expect(run.errors == before.errors) }
        }
    }

    @Test func traceOfALabelOverAServerReadsItsRecordsFromCheckpointsWithTheFullReplaysOutput() throws {
        let list = "trace-\(UUID().uuidString.prefix(8))"
        let location = server.location(list: list)
        let log = try open(location, interval: 16)
        defer { log.close() }
        let store = try LabelStore(storage: log)
        try write(90, to: store, seed: 41)
        try store.reorder(store.snapshot.ids.reversed())
        try write(90, to: store, seed: 42)
        var rng = SeededGenerator(seed: 7)
        try store.reorder(store.snapshot.ids.shuffled(using: &rng))
        try write(60, to: store, seed: 43)
        store.waitForHistoryFiles()
        try #require(try checkpointSeqs(location).count >= 3)
        // A label removed mid-history, one still live, and an edit refused for a removed label.
        let records = try log.read(from: 1, maxCount: 1_000)
        let removed = try #require(
            records.compactMap { record -> LabelID? in
                if case .removed(let id, _, _, _) = record.event, record.seq > 60 { return id }
                return nil
            }.first)
        _ = try? store.rename(removed, to: "too late")
        let live = try #require(store.snapshot.ids.last)
        let url = CLIOverServerTests.url(list: list)
        var commands: [[String]] = []
        for id in [removed, live] {
            commands.append(["trace", url, "--label", id.description, "--no-pager", "--color", "never"])
            commands.append(["trace", url, "--label", id.description, "--json", "--query", "e"])
        }
        commands.append([
            "trace", url, "--label", removed.description, "--label", live.description, "--from", "40", "--to", String(store.lastSeq - 3),
            "--json"
        ])
        commands.append(["trace", url, "--label", live.description, "--enabled-only", "--from", "150", "--no-pager", "--color", "never"])
        try expectSameOutputWithoutCheckpoints(commands, list: list)
        // The reorders are found through the unlabelled records' index, as the list holds them.
        let reorders = records.filter { $0.event.kind == .reordered }.map(\.seq)
        let found = try log.reorderSeqs(after: 0, through: store.lastSeq)
        #expect(reorders.count == 2 && found == reorders)
        #expect(try log.reorderSeqs(after: reorders[0], through: store.lastSeq) == [reorders[1]])
    }

    @Test func aLabelsRecordsAreReadThroughTheIndexAndAnAlteredOneIsNamed() throws {
        let location = server.location()
        let log = try open(location, interval: 0)
        defer { log.close() }
        let store = try LabelStore(storage: log)
        try write(150, to: store, seed: 21)
        let all = try log.read(from: 1, maxCount: 1_000)
        let id = try #require(all.compactMap(\.event.labelID).first)
        let expected = all.filter { $0.event.labelID == id }
        #expect(try log.records(ofLabels: [id], after: 0, through: store.lastSeq) == expected)
        let later = expected.dropFirst()
        #expect(try log.records(ofLabels: [id], after: expected[0].seq, through: store.lastSeq) == Array(later))
        #expect(
            try log.records(ofLabels: [id], after: 0, through: store.lastSeq, kinds: [.added])
                == expected.filter { $0.event.kind == .added })
        // A payload swapped for another record's (seq and all, checksums left): named by seq.
        let victim = expected[expected.count - 1].seq
        try server.psql(
            "UPDATE labelstore.records SET payload = (SELECT payload FROM labelstore.records WHERE list = '\(location.list)' AND seq = 1) WHERE list = '\(location.list)' AND seq = \(victim)"
        )
        let error = #expect(throws: EventLogError.self) { try log.records(ofLabels: [id], after: 0, through: store.lastSeq) }
        #expect(error?.code == .corruptRecord && error?.message.contains("seq \(victim)") == true, "\(String(describing: error))")
    }

    @Test func thinningDropsTheCheckpointWhoseNeighboursAreNearest() {
        #expect(PostgresEventLog.checkpointsToDrop([10, 20, 30, 40], keeping: 4) == [])
        #expect(PostgresEventLog.checkpointsToDrop([10, 20, 25, 40], keeping: 3) == [20])
        #expect(PostgresEventLog.checkpointsToDrop([8, 16, 24, 32, 40, 48], keeping: 4) == [16, 32])
        #expect(PostgresEventLog.checkpointsToDrop([1, 2, 3], keeping: 1) == [2], "the oldest and the newest always stay")
    }
}
#endif
