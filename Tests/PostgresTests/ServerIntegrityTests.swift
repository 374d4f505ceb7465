#if Postgres
import EventLog
import Foundation
import LabelProjection
import LabelStorePostgres
import LabelStoreTestSupport
import Synchronization
import Testing

/// A server list's rows carry keyed, chained checksums and its head row is a
/// promise (schema version 2): a row changed, removed, swapped or put back by
/// hand is named by list and seq, by every read, a store's open and `verify`.
@Suite(.serialized) struct ServerIntegrityTests {
    let server = PostgresTestServer.shared

    /// A list of `count` added labels, appended one record at a time; returns its location.
    func list(_ count: Int) throws -> PostgresLocation {
        let location = server.location()
        let log = try server.open(location)
        defer { log.close() }
        for i in 1...count {
            try log.append([LogEntry(.added(id: testID(i), title: "Label \(i)", isEnabled: true, index: i - 1), actor: "a\(i)")])
        }
        return location
    }

    func readAll(_ location: PostgresLocation) throws -> [EventRecord] {
        let log = try server.open(location, create: false)
        defer { log.close() }
        return try log.read(from: 1, maxCount: 1000)
    }

    /// Every read from `seq` fails with `code` naming `text`, so does `verify`;
    /// with `firstBad`, `verify --json` names that seq and counts the records before it.
    func expectDamage(
        _ location: PostgresLocation, _ code: EventLogError.Code, naming text: String, from seq: UInt64 = 1, firstBad: UInt64? = nil
    ) throws {
        let log = try server.open(location, create: false)
        defer { log.close() }
        do {
            let records = try log.read(from: seq, maxCount: 1000)
            Issue.record("the read from seq \(seq) returned \(records.count) records; wanted \(code) naming '\(text)'")
        } catch {
            #expect(error.code == code && error.message.contains(text) && error.message.contains(location.list), "\(error)")
        }
        let verify = try CLIOverServerTests.cli(["verify", CLIOverServerTests.url(list: location.list)])
        #expect(verify.status == 1 && verify.errors.contains(text), "\(verify)")
        guard let firstBad else { return }
        // `--json` names the same seq as the text, and counts the sound records before it (as for a file).
        let json = try CLIOverServerTests.cli(["verify", CLIOverServerTests.url(list: location.list), "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any]
        let problem = object?["problem"] as? [String: Any]
        #expect(json.status == 1)
        #expect(problem?["seq"] as? Int == Int(firstBad), "\(json.output)")
        #expect(object?["records"] as? Int == Int(firstBad) - 1, "\(json.output)")
        #expect((problem?["message"] as? String)?.contains(text) == true, "\(json.output)")
    }

    // MARK: The head row is a promise (issue 26, item 2)

    @Test func aMissingLastRowIsASeqGapNotAShorterList() throws {
        let location = try list(4)
        try server.psql("DELETE FROM labelstore.records WHERE list = '\(location.list)' AND seq = 4")
        try expectDamage(location, .seqGap, naming: "seq 4 is missing: the head row says the list reached seq 4", firstBad: 4)
        try expectDamage(location, .seqGap, naming: "seq 4 is missing", from: 5)
        #expect(throws: StoreError.self) { _ = try LabelStore(storage: try server.open(location, create: false)) }
    }

    @Test func anIdleFollowerOfAListMissingItsLastRowWaitsInsteadOfSpinning() throws {
        let location = try list(4)
        let log = try server.open(location, create: false)
        let counting = CountingStorage(log)
        let store = try LabelStore(storage: counting)
        try server.psql("DELETE FROM labelstore.records WHERE list = '\(location.list)' AND seq = 4")
        // Another host's append is refused (the list ends before the length its head row commits
        // to) and names the missing seq: nothing is written over the cut.
        let other = try server.open(location, create: false)
        let refused = #expect(throws: EventLogError.self) { try other.append([LogEntry(.toggled(id: testID(1), isEnabled: false))]) }
        #expect(refused?.code == .seqGap && refused?.message.contains("seq 4 is missing") == true, "\(String(describing: refused))")
        other.close()
        #expect(try server.psql("SELECT max(seq) FROM labelstore.records WHERE list = '\(location.list)'") == "3")
        let errors = Mutex<[StoreError]>([])
        store.startFollowing(wait: .milliseconds(200)) { error in errors.withLock { $0.append(error) } }
        // Until the follower has reported the gap a few times (each report is followed by a growing pause).
        while errors.withLock({ $0.count }) < 3 { Thread.sleep(forTimeInterval: 0.02) }
        store.close()
        let reported = errors.withLock { $0 }
        #expect(reported.allSatisfy { $0.kind == .logDamaged && $0.message.contains("seq 4 is missing") }, "\(reported)")
        // Three reports: with pauses of 50, 100, 200 ms between them, a handful of waits, not thousands.
        #expect(counting.waits.load(ordering: .relaxed) < 20, "\(counting.waits.load(ordering: .relaxed)) waits")
        log.close()
    }

    // MARK: Chained checksums (issue 26, item 3)

    @Test func aChangedByteOfARowsPayloadIsNamedBySeq() throws {
        let location = try list(6)
        // One byte of record 3's timestamp.
        try server.psql(
            "UPDATE labelstore.records SET payload = set_byte(payload, 2, get_byte(payload, 2) # 1) WHERE list = '\(location.list)' AND seq = 3"
        )
        try expectDamage(location, .corruptRecord, naming: "the row of seq 3 was altered", firstBad: 3)
        try expectDamage(location, .corruptRecord, naming: "the row of seq 3 was altered", from: 3)
    }

    @Test func aChangedLabelIDInTheLastRowIsNamedBySeq() throws {
        let location = try list(5)
        try server.psql(
            "UPDATE labelstore.records SET payload = set_byte(payload, 12, get_byte(payload, 12) # 128) WHERE list = '\(location.list)' AND seq = 5"
        )
        try expectDamage(location, .corruptRecord, naming: "the row of seq 5 was altered", firstBad: 5)
    }

    @Test func swappedRowsAreNamedBySeq() throws {
        let location = try list(6)
        try server.psql(
            """
            UPDATE labelstore.records r SET payload = o.payload, crc = o.crc
            FROM labelstore.records o
            WHERE r.list = '\(location.list)' AND o.list = r.list AND ((r.seq = 2 AND o.seq = 3) OR (r.seq = 3 AND o.seq = 2))
            """)
        try expectDamage(location, .corruptRecord, naming: "seq 2", firstBad: 2)
    }

    @Test func aRemovedRowInTheMiddleIsASeqGap() throws {
        let location = try list(6)
        try server.psql("DELETE FROM labelstore.records WHERE list = '\(location.list)' AND seq = 4")
        try expectDamage(location, .seqGap, naming: "seq 4 is missing", firstBad: 4)
    }

    @Test func aRowPutBackWithOtherContentIsNamed() throws {
        let location = try list(6)
        // Row 4 removed, and row 4 of another list of the same shape put in its place.
        let other = try list(6)
        try server.psql(
            """
            DELETE FROM labelstore.records WHERE list = '\(location.list)' AND seq = 4;
            INSERT INTO labelstore.records (list, seq, time_ms, kind, label_id, actor, crc, payload)
            SELECT '\(location.list)', seq, time_ms, kind, label_id, actor, crc, payload
            FROM labelstore.records WHERE list = '\(other.list)' AND seq = 4
            """)
        try expectDamage(location, .corruptRecord, naming: "the row of seq 4 was altered", firstBad: 4)
    }

    @Test func aHeadRowWhoseChainValueWasChangedIsNamed() throws {
        // Four single appends: the head row commits to seq 4 (a mark), the list's end.
        let location = try list(4)
        try server.psql("UPDATE labelstore.lists SET last_crc = (last_crc + 1) % 4294967296 WHERE list = '\(location.list)'")
        try expectDamage(location, .corruptRecord, naming: "the head row's chain value", firstBad: 4)
    }

    @Test func aHeadRowWhoseChainValueWasChangedBeforeTheListsEndIsNamedAtThatSeq() throws {
        // Six single appends: the head row commits to seq 4, two records before the end.
        let location = try list(6)
        #expect(try server.psql("SELECT last_seq FROM labelstore.lists WHERE list = '\(location.list)'") == "4")
        try server.psql("UPDATE labelstore.lists SET last_crc = (last_crc + 1) % 4294967296 WHERE list = '\(location.list)'")
        try expectDamage(location, .corruptRecord, naming: "is not seq 4's checksum", firstBad: 4)
    }

    @Test func rowsDeletedFromTheEndPastTheCommittedLengthAreNamedByAHandleThatReadThem() throws {
        // Six single appends: the head row commits to seq 4; rows 5 and 6 are deleted by hand.
        let location = try list(6)
        let reader = try server.open(location, create: false)
        defer { reader.close() }
        #expect(try reader.read(from: 1, maxCount: 100).count == 6)
        try server.psql("DELETE FROM labelstore.records WHERE list = '\(location.list)' AND seq > 4")
        // The server alone cannot tell this list from one that ended at seq 4 (docs/POSTGRES.md,
        // "Integrity"); a handle that read seqs 5 and 6 can, and says so.
        let error = #expect(throws: EventLogError.self) { _ = try reader.refreshLastSeq() }
        #expect(error?.message.contains("seq 6") == true, "\(String(describing: error))")
    }

    @Test func verifySaysWhatItCheckedOfASoundList() throws {
        let location = try list(3)
        let url = CLIOverServerTests.url(list: location.list)
        let text = try CLIOverServerTests.cli(["verify", url])
        #expect(text.status == 0 && text.output.contains("every row's chained checksum, the head row's chain value"), "\(text)")
        let json = try CLIOverServerTests.cli(["verify", url, "--json"])
        #expect(json.status == 0 && json.output.contains(#""serverChecks":["payloads","seqs","head","checksums"]"#), "\(json)")
    }

    @Test func appendsFromSeveralHandlesKeepOneChain() throws {
        let location = server.location()
        let a = try server.open(location)
        let b = try server.open(location, create: false)
        defer {
            a.close()
            b.close()
        }
        // b's knowledge of the chain is stale after each of a's appends: it learns the head row's value.
        for i in 1...6 {
            let log = i % 2 == 0 ? a : b
            try log.append([LogEntry(.added(id: testID(i), title: "T\(i)", isEnabled: true, index: 0))])
        }
        try b.append(
            [LogEntry(.toggled(id: testID(1), isEnabled: false)), LogEntry(.toggled(id: testID(2), isEnabled: false))],
            expectedLastSeq: 6)
        #expect(try a.read(from: 1, maxCount: 100).count == 8)
        #expect(try a.read(from: 5, maxCount: 100).map(\.seq) == [5, 6, 7, 8])
        // A read from seq n > 1 asks for one row more (the row before starts the chain): no overflow at Int.max.
        #expect(try a.read(from: 5, maxCount: .max).map(\.seq) == [5, 6, 7, 8])
    }
}

/// An `EventStorage` that counts the waits of a follower on the storage it forwards to.
final class CountingStorage: EventStorage, Sendable {
    let base: PostgresEventLog
    let waits = Atomic<Int>(0)

    init(_ base: PostgresEventLog) { self.base = base }

    var lastSeq: UInt64 { base.lastSeq }
    func append(_ entries: [LogEntry], expectedLastSeq: UInt64?) throws(EventLogError) -> [EventRecord] {
        try base.append(entries, expectedLastSeq: expectedLastSeq)
    }
    func read(from seq: UInt64, maxCount: Int) throws(EventLogError) -> [EventRecord] { try base.read(from: seq, maxCount: maxCount) }
    func refreshLastSeq() throws(EventLogError) -> UInt64 { try base.refreshLastSeq() }
    func waitForAppends(after seq: UInt64, timeout: Duration) throws(EventLogError) -> Bool {
        waits.add(1, ordering: .relaxed)
        return try base.waitForAppends(after: seq, timeout: timeout)
    }
}
#endif
