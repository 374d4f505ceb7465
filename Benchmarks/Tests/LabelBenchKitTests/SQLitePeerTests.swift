import EventLog
import Foundation
import Testing

@testable import LabelBenchKit

/// The peer stores and returns exactly the records the log does.
@Suite struct SQLitePeerTests {
    /// One of every kind and envelope variant.
    static let everyKind: [LogEntry] = {
        let a = LabelID(), b = LabelID()
        let t = { (ms: Int64) in EventTimestamp(millisecondsSince1970: ms) }
        return [
            LogEntry(.added(id: a, title: "Büro 東京 🏷️", isEnabled: true, index: 0), timestamp: t(1), actor: "chloé"),
            LogEntry(.added(id: b, title: "", isEnabled: false, index: 1), timestamp: t(2), note: "empty title"),
            LogEntry(.renamed(id: a, oldTitle: "Büro 東京 🏷️", newTitle: "Work"), timestamp: t(-5), actor: "", note: ""),
            LogEntry(.toggled(id: b, isEnabled: true), timestamp: t(Int64(Int32.max) * 4)),
            LogEntry(.moved(id: a, from: 0, to: 1), timestamp: t(5)),
            LogEntry(.reordered(order: [a, b]), timestamp: t(6)),
            LogEntry(.reordered(order: []), timestamp: t(7)),
            LogEntry(.rejected(id: nil, command: "add ''", reason: "empty"), timestamp: t(8)),
            LogEntry(.rejected(id: a, command: "remove", reason: "nope"), timestamp: t(9), actor: "bob"),
            LogEntry(.removed(id: b, index: 0, title: "", isEnabled: true), timestamp: t(10))
        ]
    }()

    @Test func everyKindRoundTrips() throws {
        try withScratch { scratch in
            let directory = try scratch.freshDirectory("kinds")
            let log = try Fixtures.createLog(in: directory, durability: .noSync)
            let expected = try log.append(Self.everyKind)
            log.close()
            let db = try Fixtures.createDatabase(in: directory, synchronous: .off)
            let writer = try SQLiteEventWriter(connection: db)
            for entry in Self.everyKind.prefix(3) { try writer.insert(entry) }
            try writer.insertTransaction(Self.everyKind.dropFirst(3), immediate: true)
            db.close()
            let fromSQLite = try SQLiteEventReader.readAll(path: "\(directory)/\(Fixtures.databaseName)")
            #expect(fromSQLite == expected)
            let fromLog = try LogReader.readAll(path: "\(directory)/\(Fixtures.logName)").records
            #expect(fromLog == expected)
        }
    }

    @Test func fixturesHoldTheSameRecords() throws {
        try withScratch { scratch in
            let directory = try scratch.freshDirectory("fixture")
            let log = "\(directory)/\(Fixtures.logName)", database = "\(directory)/\(Fixtures.databaseName)"
            try Fixtures.writeBoth(count: 5_000, seed: 9, logPath: log, databasePath: database, chunk: 700)
            let ours = try LogReader.readAll(path: log).records
            let theirs = try SQLiteEventReader.readAll(path: database)
            #expect(ours.count == 5_000)
            #expect(ours == theirs)
            var a = DecodeOnlyConsumer(), b = DecodeOnlyConsumer()
            ours.forEach { a.consume($0) }
            theirs.forEach { b.consume($0) }
            #expect(a.digest == b.digest)
            #expect(ScratchSpace.fileSize(database + "-wal") == 0)
        }
    }

    /// The decode workload reads both sides borrowed; the digests must be
    /// those of the decoded records, for every kind and envelope.
    @Test func borrowedViewsAndRowsGiveTheDigestOfTheRecords() throws {
        try withScratch { scratch in
            let directory = try scratch.freshDirectory("borrowed")
            let logPath = "\(directory)/\(Fixtures.logName)", databasePath = "\(directory)/\(Fixtures.databaseName)"
            try Fixtures.writeBoth(count: 3_000, seed: 11, logPath: logPath, databasePath: databasePath, chunk: 1_000)
            let log = try Fixtures.createLog(in: try scratch.freshDirectory("kinds"), durability: .noSync)
            let kinds = try log.append(Self.everyKind)
            log.close()
            var fromRecords = DecodeOnlyConsumer(), fromViews = DecodeOnlyConsumer(), fromRows = DecodeOnlyConsumer()
            (try LogReader.readAll(path: logPath).records + kinds).forEach { fromRecords.consume($0) }
            try LogWriter.openWithViews(path: logPath) { fromViews.consume(view: $0) }.close()
            try LogReader(path: log.path).forEachView { fromViews.consume(view: $0) }
            let db = try SQLiteConnection(path: databasePath)
            try SQLiteEventReader.forEachRow(in: db) { try fromRows.consume(row: $0) }
            db.close()
            let writer = try SQLiteEventWriter(
                connection: try Fixtures.createDatabase(in: try scratch.freshDirectory("rows"), synchronous: .off))
            try writer.insertTransaction(Self.everyKind, immediate: true)
            try SQLiteEventReader.forEachRow(in: writer.connection) { try fromRows.consume(row: $0) }
            #expect(fromViews.digest == fromRecords.digest)
            #expect(fromRows.digest == fromRecords.digest)
        }
    }

    @Test func replayDigestsCatchADifference() {
        let records = EventStream.entries(count: 50).enumerated().map { $1.record(seq: UInt64($0 + 1), now: .now()) }
        var a = DecodeOnlyConsumer(), b = DecodeOnlyConsumer()
        records.forEach { a.consume($0) }
        records.dropLast().forEach { b.consume($0) }
        #expect(a.digest != b.digest)
    }

    @Test func walModeAndSynchronousAreSet() throws {
        try withScratch { scratch in
            let db = try Fixtures.createDatabase(in: try scratch.freshDirectory("pragmas"), synchronous: .full)
            defer { db.close() }
            #expect(try db.scalarText("PRAGMA journal_mode") == "wal")
            #expect(try db.scalarText("PRAGMA synchronous") == "2")
        }
    }
}

/// Runs `body` with a scratch space under the temporary directory, removed afterwards.
func withScratch(_ body: (ScratchSpace) throws -> Void) throws {
    let scratch = try ScratchSpace(base: FileManager.default.temporaryDirectory.path)
    defer { scratch.removeAll() }
    try body(scratch)
}
