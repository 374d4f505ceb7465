#if Postgres
import EventLog
import Foundation
import LabelStorePostgres
import LabelStoreTestSupport
import Testing

/// A handle whose list's history changed under it (records lost in a
/// failover, rows rewritten) names the last seq the two histories share and
/// the first that differs, not the server's head or the row it tripped on.
@Suite(.serialized) struct HistorySplitTests {
    let server = PostgresTestServer.shared

    func add(_ log: PostgresEventLog, _ range: ClosedRange<Int>, tag: String) throws {
        for i in range {
            try log.append([LogEntry(.added(id: testID(1000 * tag.count + i), title: "\(tag) \(i)", isEnabled: true, index: 0))])
        }
    }

    /// The list's rows after seq `kept` are deleted and its head row set back
    /// to seq `kept` (what a promoted standby that had received only them holds).
    func cutBack(_ location: PostgresLocation, to kept: Int) throws {
        try server.psql(
            """
            DELETE FROM labelstore.records WHERE list = '\(location.list)' AND seq > \(kept);
            UPDATE labelstore.lists SET last_seq = \(kept),
              last_crc = (SELECT crc FROM labelstore.records WHERE list = '\(location.list)' AND seq = \(kept))
            WHERE list = '\(location.list)'
            """)
    }

    func expectSplit(after good: UInt64, _ read: () throws(EventLogError) -> Void, _ what: String) {
        do {
            try read()
            Issue.record("\(what): the read succeeded on a changed history")
        } catch {
            #expect(error.code == .listReplaced, "\(what): \(error)")
            #expect(error.lastGoodSeq == good, "\(what): \(error)")
            #expect(error.message.contains("agree through seq \(good) and differ from seq \(good + 1)"), "\(what): \(error.message)")
        }
    }

    @Test func aShorterDivergentHistoryNamesTheLastSharedSeqNotTheServersHead() throws {
        let location = server.location()
        let writer = try server.open(location)
        try add(writer, 1...5, tag: "shared")
        try add(writer, 6...11, tag: "lost")
        try cutBack(location, to: 5)
        let other = try server.open(location, create: false)
        try add(other, 6...8, tag: "other")
        other.close()
        // The writer saw seqs 1…11; the server now ends at 8, and its 6…8 are other records.
        expectSplit(after: 5, { () throws(EventLogError) in _ = try writer.read(from: 1, maxCount: 100) }, "a read from seq 1")
        writer.close()
    }

    @Test func aLongerDivergentHistoryIsCaughtAtEveryRowTheHandleSaw() throws {
        let location = server.location()
        let writer = try server.open(location)
        try add(writer, 1...5, tag: "shared")
        try add(writer, 6...11, tag: "lost")
        let follower = try server.open(location, create: false)
        #expect(try follower.read(from: 1, maxCount: 100).count == 11)
        let tail = try server.open(location, create: false)
        #expect(try tail.read(from: 1, maxCount: 100).count == 11)
        try cutBack(location, to: 5)
        let other = try server.open(location, create: false)
        try add(other, 6...14, tag: "other")
        other.close()
        // The head (14) is past what they saw: the rows they saw, read again, or the one before a read, tell.
        expectSplit(after: 5, { () throws(EventLogError) in _ = try follower.read(from: 1, maxCount: 100) }, "a read from seq 1")
        expectSplit(after: 5, { () throws(EventLogError) in _ = try tail.read(from: 12, maxCount: 100) }, "a read after seq 11")
        follower.close()
        tail.close()
        writer.close()
    }
}
#endif
