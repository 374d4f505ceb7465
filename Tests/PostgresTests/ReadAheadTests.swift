#if Postgres
import EventLog
import Foundation
import LabelStorePostgres
import LabelStoreTestSupport
import Synchronization
import Testing

/// Read-ahead (docs/POSTGRES.md, "Reading and following"): a read of a page
/// after one that filled its page sends the next page's read behind it, and
/// the next call takes its rows only when they answer it as a read sent then
/// would.
@Suite struct ReadAheadTests {
    let server = PostgresTestServer.shared

    func entry(_ n: Int) -> LogEntry {
        LogEntry(.added(id: testID(n), title: "ahead \(n)", isEnabled: n % 2 == 0, index: 0), actor: "reader \(n % 3)")
    }

    /// A list of `count` records, appended in batches.
    func list(_ count: Int, at location: PostgresLocation) throws -> PostgresEventLog {
        let log = try server.open(location)
        var n = 0
        while n < count {
            let batch = (n..<min(count, n + 500)).map { entry($0 + 1) }
            try log.append(batch)
            n += batch.count
        }
        return log
    }

    /// Reads `log` in pages of `size` from seq 1 to its end.
    func pages(of log: PostgresEventLog, size: Int) throws -> [EventRecord] {
        var records: [EventRecord] = []
        while true {
            let page = try log.read(from: UInt64(records.count + 1), maxCount: size)
            if page.isEmpty { return records }
            records += page
        }
    }

    @Test func pagesReadInTurnAreTakenFromAheadAndEqualOneRead() throws {
        let location = server.location()
        let writer = try list(2_000, at: location)
        defer { writer.close() }
        let reader = try server.open(location, create: false)
        defer { reader.close() }
        let all = try reader.read(from: 1, maxCount: .max)
        #expect(all.count == 2_000)
        let paged = try pages(of: reader, size: 300)
        #expect(paged == all)
        // The first page sends nothing ahead (no page before it filled), the second sends the third: pages
        // 3…6 came from ahead; the 7th (1,801…2,000) had reached the end when sent, so it was read again.
        #expect(reader.statistics.pagesTakenAhead.load(ordering: .relaxed) == 4)
        #expect(reader.statistics.pagesReadAgain.load(ordering: .relaxed) == 1)
    }

    @Test func aPageSentAheadThatReachedTheEndIsReadAgainAndSeesLaterAppends() throws {
        let location = server.location()
        let writer = try list(600, at: location)
        defer { writer.close() }
        let reader = try server.open(location, create: false)
        defer { reader.close() }
        #expect(try reader.read(from: 1, maxCount: 256).count == 256)
        #expect(try reader.read(from: 257, maxCount: 256).count == 256)
        // Sent ahead: seqs 513…768, of which 88 existed. Then 100 more are appended elsewhere.
        try writer.append((601...700).map(entry))
        let next = try reader.read(from: 513, maxCount: 256)
        #expect(next.map(\.seq) == Array(513...700))
        #expect(next.map(\.event) == (513...700).map { entry($0).event })
        #expect(reader.statistics.pagesReadAgain.load(ordering: .relaxed) == 1)
        #expect(reader.statistics.pagesTakenAhead.load(ordering: .relaxed) == 0)
    }

    @Test func aReadOfAnotherPageOrAnotherSizeIsNotAnsweredFromAhead() throws {
        let location = server.location()
        let log = try list(1_500, at: location)
        defer { log.close() }
        let all = try log.read(from: 1, maxCount: .max)
        #expect(try log.read(from: 1, maxCount: 256) == Array(all[0..<256]))
        // Ahead: 257…512. Asked: 300…; then 556… (ahead was 556…811) with a larger page; then a smaller one.
        #expect(try log.read(from: 300, maxCount: 256) == Array(all[299..<555]))
        #expect(try log.read(from: 556, maxCount: 400) == Array(all[555..<955]))
        #expect(log.statistics.pagesTakenAhead.load(ordering: .relaxed) == 0)
        #expect(try log.read(from: 956, maxCount: 300) == Array(all[955..<1255]))
        #expect(log.statistics.pagesTakenAhead.load(ordering: .relaxed) == 1)
    }

    @Test func aReadAtTheListsEndSendsNothingAhead() throws {
        let location = server.location()
        let log = try list(300, at: location)
        defer { log.close() }
        // A follower's reads: each one short of a page, so none is followed by another read.
        #expect(try log.read(from: 1, maxCount: 4_096).count == 300)
        #expect(try log.read(from: 301, maxCount: 4_096).isEmpty)
        try log.append([entry(301)])
        #expect(try log.read(from: 301, maxCount: 4_096).map(\.seq) == [301])
        #expect(log.statistics.pagesTakenAhead.load(ordering: .relaxed) == 0)
        #expect(log.statistics.pagesReadAgain.load(ordering: .relaxed) == 0)
    }

    @Test func anAppendOnTheSameConnectionBetweenPagesDropsThePageAhead() throws {
        let location = server.location()
        let log = try list(700, at: location)
        defer { log.close() }
        #expect(try log.read(from: 1, maxCount: 256).count == 256)
        #expect(try log.read(from: 257, maxCount: 256).count == 256)
        // The append runs on the connection the page ahead waits on: it is read and dropped first.
        let appended = try log.append([entry(701)])
        #expect(appended.map(\.seq) == [701])
        #expect(try log.refreshLastSeq() == 701)
        let rest = try pages(of: log, size: 256)
        #expect(rest.map(\.seq) == Array(1...701))
        #expect(rest.last?.event == entry(701).event)
    }

    @Test func aReaderPagingWhileAWriterAppendsReadsEveryRecordOnceInOrder() throws {
        let location = server.location()
        let writer = try list(1_000, at: location)
        defer { writer.close() }
        let reader = try server.open(location, create: false)
        defer { reader.close() }
        // The writer appends batches of 37 while the reader pages through in pages of 256, catching up again and again
        // (its third page, 513…768, is sent ahead full whatever the writer has done by then).
        let failure = Mutex<String?>(nil)
        let finished = Atomic<Bool>(false)
        let thread = Thread {
            defer { finished.store(true, ordering: .releasing) }
            do {
                for batch in 0..<40 {
                    let first = 1_001 + batch * 37
                    try writer.append((first..<(first + 37)).map(entry))
                }
            } catch {
                failure.withLock { $0 = "\(error)" }
            }
        }
        thread.start()
        var read: [EventRecord] = []
        while true {
            let done = finished.load(ordering: .acquiring)
            let page = try reader.read(from: UInt64(read.count + 1), maxCount: 256)
            read += page
            if page.isEmpty {
                if done { break }
                Thread.sleep(forTimeInterval: 0.002)
            }
        }
        #expect(failure.withLock { $0 } == nil)
        #expect(read.map(\.seq) == Array(1...UInt64(1_000 + 40 * 37)))
        #expect(read == (try writer.read(from: 1, maxCount: .max)))
        #expect(reader.statistics.pagesTakenAhead.load(ordering: .relaxed) > 0)
    }

    @Test func aConnectionLostWhileAPageIsAheadIsReconnectedAndTheReadAnswered() throws {
        let name = "read-ahead-\(UUID().uuidString.prefix(8))"
        let plain = server.location()
        let location = try PostgresLocation(
            connection: server.conninfo + " application_name=\(name)", list: plain.list, schema: plain.schema)
        let writer = try list(1_000, at: plain)
        defer { writer.close() }
        let reader = try server.open(location, create: false)
        defer { reader.close() }
        let all = try writer.read(from: 1, maxCount: .max)
        #expect(try reader.read(from: 1, maxCount: 400) == Array(all[0..<400]))
        #expect(try reader.read(from: 401, maxCount: 400) == Array(all[400..<800]))
        // The page 801… is ahead when the backend is ended.
        _ = try server.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '\(name)'")
        #expect(try reader.read(from: 801, maxCount: 400) == Array(all[800..<1000]))
        #expect(try reader.read(from: 1001, maxCount: 400).isEmpty)
        #expect(reader.statistics.reconnects.load(ordering: .relaxed) >= 1)
    }
}
#endif
