import Foundation
import LabelStoreTestSupport
import Testing

@testable import EventLog

/// ``LogHistory``: a cut log's archives and its live records read as one
/// history, every archive checked against the base naming it before any of
/// its records is served (including by its SHA-256 frontier, which an edit
/// that keeps the frames' CRCs cannot match), and seqs it cannot serve named,
/// never substituted.
@Suite struct LogHistoryTests {
    /// A log of `sampleEntries()` twice (20 records) cut through seq 6 to `a.1-6.labellog`, then through 13 to `a.7-13.labellog`.
    static func twiceCut(in dir: TemporaryDirectory) throws -> (path: String, records: [EventRecord]) {
        let path = dir.file("a.labellog")
        let records = try writeLog(
            path,
            sampleEntries()
                + sampleEntries().map { entry in
                    // The second pass renames and toggles only, so every event applies.
                    LogEntry(.toggled(id: fixedID(1), isEnabled: entry.note == nil), actor: entry.actor)
                })
        try LogCut.cut(logPath: path, through: 6, archiveTo: dir.file("a.1-6.labellog"), now: .now(), image: { _ in [1] })
        try LogCut.cut(logPath: path, through: 13, archiveTo: dir.file("a.7-13.labellog"), now: .now(), image: { _ in [2] })
        return (path, records)
    }

    @Test func everySeqIsServedFromThePartThatHoldsIt() throws {
        let dir = TemporaryDirectory()
        let (path, records) = try Self.twiceCut(in: dir)
        let history = try LogHistory(logPath: path)
        #expect(history.liveFirstSeq == 14)
        #expect(try history.firstHeldSeq() == 1)
        for record in records { #expect(try history.record(at: record.seq) == record, "seq \(record.seq)") }
        #expect(try history.record(at: UInt64(records.count) + 1) == nil)
        var read: [EventRecord] = []
        try history.forEachRecord(from: 5, through: 15) { record in
            read.append(record)
            return true
        }
        #expect(read == Array(records[4..<15]))
        #expect(try history.archives(from: 3).map(\.seqs) == [1...6, 7...13])
        #expect(try history.archives(from: 7).map(\.seqs) == [7...13])
        #expect(try history.archives(from: 14).isEmpty)
    }

    @Test func aMissingOrDroppedPartIsNamedAndNoOtherSeqIsServed() throws {
        let dir = TemporaryDirectory()
        let (path, _) = try Self.twiceCut(in: dir)
        try FileManager.default.removeItem(atPath: dir.file("a.1-6.labellog"))
        let history = try LogHistory(logPath: path)
        #expect(try history.firstHeldSeq() == 7)
        #expect(try history.record(at: 8)?.seq == 8)
        let error = try #require(throws: EventLogError.self) { try history.record(at: 3) }
        #expect(error.code == .archived && error.message.contains("seq 3 is archived in \(dir.file("a.1-6.labellog"))"), "\(error)")

        let dropped = dir.file("b.labellog")
        try writeLog(dropped)
        try LogCut.cut(logPath: dropped, through: 4, archiveTo: nil, now: .now(), image: { _ in [1] })
        let error2 = try #require(throws: EventLogError.self) { try LogHistory(logPath: dropped).record(at: 2) }
        #expect(error2.code == .archived && error2.message.contains("seq 2 was dropped"), "\(error2)")
    }

    /// The frontier check: an archive whose records are whole and chain to the log, but do not
    /// hash to the frontier the base keeps, is refused (as an edit with forged CRCs would be).
    @Test func anArchiveThatDoesNotHashToTheBaseFrontierIsRefused() throws {
        let dir = TemporaryDirectory()
        let (path, _) = try Self.twiceCut(in: dir)
        let history = try LogHistory(logPath: path)
        let archive = try #require(try history.archives(from: 8).first)
        var forged = archive
        var frontier = forged.base.frontier
        var bytes = frontier[0].bytes
        bytes[0] ^= 1
        frontier[0] = try #require(HistoryHash(bytes: bytes))
        forged.base.frontier = frontier
        ArchiveJoin.forgetChecks()
        let error = try #require(throws: EventLogError.self) { try history.open(forged) }
        #expect(error.code == .archiveMismatch && error.message.contains("frontier"), "\(error)")
        #expect(throws: Never.self) { try history.open(archive) }
    }

    /// A check is remembered by the file's identity: an archive changed in place after it
    /// passed is checked again, and refused.
    @Test func anArchiveChangedAfterItsCheckIsCheckedAgain() throws {
        let dir = TemporaryDirectory()
        let (path, _) = try Self.twiceCut(in: dir)
        #expect(try LogHistory(logPath: path).archives(from: 1).count == 2)
        let archive = dir.file("a.7-13.labellog")
        var bytes = readBytes(archive)
        bytes[bytes.count - 10] ^= 0x01  // in the last record
        try overwriteInPlace(archive, bytes)
        let error = try #require(throws: EventLogError.self) { try LogHistory(logPath: path).archives(from: 1) }
        #expect(error.code == .archiveMismatch && error.path == archive, "\(error)")
    }

    /// A passed check is remembered for later processes in `ARCHIVE.checked`, by the file's
    /// identity and the base it was checked against: a later process (here: the in-process
    /// memory forgotten) trusts it while the file is unchanged, checks again after an edit in
    /// place, and trusts a record naming the file as it is now without reading it — which is
    /// why the record is a cache like the log's others, and `verify` never reads it.
    @Test func aPassedCheckIsRememberedBesideTheArchiveByItsIdentity() throws {
        let dir = TemporaryDirectory()
        let (path, _) = try Self.twiceCut(in: dir)
        ArchiveJoin.forgetChecks()
        #expect(try LogHistory(logPath: path).archives(from: 1).count == 2)
        let archive = dir.file("a.7-13.labellog")
        let record = ArchiveJoin.rememberedPath(of: archive)
        #expect(FileManager.default.fileExists(atPath: record))
        ArchiveJoin.forgetChecks()
        #expect(try LogHistory(logPath: path).archives(from: 1).count == 2, "trusted from the record")

        var bytes = readBytes(archive)
        bytes[bytes.count - 10] ^= 0x01  // in the last record
        try overwriteInPlace(archive, bytes)
        ArchiveJoin.forgetChecks()
        let error = try #require(throws: EventLogError.self) { try LogHistory(logPath: path).archives(from: 1) }
        #expect(error.code == .archiveMismatch, "an edit in place changes the identity: checked again, refused: \(error)")

        // A record rewritten to name the edited file (which takes write access to the directory) is trusted.
        let text = try String(contentsOfFile: record, encoding: .utf8)
        let identity = try #require(SystemFile.identity(of: archive))
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines[1] = "\(identity.device) \(identity.inode) \(identity.size) \(identity.modified) \(identity.changed)"
        let body = lines[0..<4].joined(separator: "\n") + "\n"
        lines[4] = String(CRC32C.checksum(body))
        try lines.joined(separator: "\n").write(toFile: record, atomically: true, encoding: .utf8)
        ArchiveJoin.forgetChecks()
        #expect(try LogHistory(logPath: path).archives(from: 1).count == 2)
    }

    /// The cut writes the record for the archive it makes (its bytes are the records the base's
    /// frontier was hashed from), the same record a check of it writes, so the first read after
    /// a cut trusts it; and an archive changed after the cut is still checked and refused.
    @Test func theCutRemembersItsArchiveAsTheCheckWould() throws {
        let dir = TemporaryDirectory()
        let (path, _) = try Self.twiceCut(in: dir)
        for archive in [dir.file("a.1-6.labellog"), dir.file("a.7-13.labellog")] {
            let record = ArchiveJoin.rememberedPath(of: archive)
            let written = try String(contentsOfFile: record, encoding: .utf8)
            try FileManager.default.removeItem(atPath: record)
            ArchiveJoin.forgetChecks()
            #expect(try LogHistory(logPath: path).archives(from: 1).count == 2)
            #expect(try String(contentsOfFile: record, encoding: .utf8) == written, "\(archive): the cut's record is the check's")
        }
        let archive = dir.file("a.7-13.labellog")
        var bytes = readBytes(archive)
        bytes[bytes.count - 10] ^= 0x01
        try overwriteInPlace(archive, bytes)
        ArchiveJoin.forgetChecks()
        #expect(throws: EventLogError.self) { try LogHistory(logPath: path).archives(from: 1) }
    }
}
