import Foundation
import LabelProjection
import LabelStoreTestSupport
import Testing

@testable import EventLog

/// `verify --head` names the first record that differs when `LOG.tree`,
/// written by `index` before the change, is authenticated by the head.
@Suite struct HistoryHeadLocalizationTests {
    /// Rewrites the log at `path` in place with record `seq`'s actor changed,
    /// every frame after it chained and checksummed again with the log's own
    /// key: a forgery that every checksum accepts.
    static func forgeInPlace(_ path: String, changing seq: UInt64) throws {
        try forgeInPlace(path, changing: [seq], keeping: nil)
    }

    /// ``forgeInPlace(_:changing:)`` for each seq of `changed`, keeping only the
    /// first `keeping` records (all when `nil`): a log cut back and written again.
    static func forgeInPlace(_ path: String, changing changed: Set<UInt64>, keeping: Int?) throws {
        let reader = try LogReader(path: path)
        let format = FrameFormat(header: reader.header)
        var records: [EventRecord] = []
        while let record = try reader.next() { records.append(record) }
        if let keeping { records = Array(records.prefix(keeping)) }
        var out = ByteWriter()
        var previous: UInt32 = 0
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path))[0..<LogFormat.headerLength])
        for var record in records {
            if changed.contains(record.seq) { record.actor = "mallory" }
            out = ByteWriter()
            Frame.encode(record, into: &out, format: format, previous: previous, continues: false)
            previous = out.bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 4, as: UInt32.self).littleEndian }
            bytes += out.bytes
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    @Test func verifyHeadNamesTheFirstChangedRecordThroughTheTreeCache() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try HistoryHeadCommandTests.history(at: log)
        let head = try await CLI.run(["head", log, "--at", "15"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let indexed = try await CLI.run(["index", log, "--json"]).json()
        #expect((indexed["tree"] as? [String: Any])?["leaves"] as? Int == 18)

        try Self.forgeInPlace(log, changing: 11)
        #expect(try await CLI.run(["verify", log]).status == 0)
        let caught = try await CLI.run(["verify", log, "--head", head, "--json"]).json()
        let problem = try #require(caught["problem"] as? [String: Any])
        #expect(problem["kind"] as? String == "head" && problem["seq"] as? Int == 11, "\(caught)")
        #expect((problem["message"] as? String)?.contains("the first record that differs is seq 11") == true, "\(caught)")
        let text = try await CLI.run(["verify", log, "--head", head])
        #expect(text.status == 1 && text.stderr.contains("the first record that differs is seq 11"), "\(text)")

        // A cache rebuilt after the change gives another head: not used, nothing named.
        _ = try await CLI.run(["index", log])
        let unnamed = try await CLI.run(["verify", log, "--head", head, "--json"]).json()
        #expect((unnamed["problem"] as? [String: Any])?["seq"] == nil, "\(unnamed)")
        let said = (unnamed["problem"] as? [String: Any])?["message"] as? String
        #expect(said?.contains("no tree of that head's history is at hand") == true, "\(unnamed)")
    }

    /// A log cut back before the head's seq and written again differs from the
    /// head's history at the first rewritten record, not only where it ends.
    @Test func aLogCutBackAndWrittenAgainIsNamedAtItsFirstRewrittenRecord() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try HistoryHeadCommandTests.history(at: log)
        let head = try await CLI.run(["head", log, "--at", "15"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try await CLI.run(["index", log])
        try Self.forgeInPlace(log, changing: [13, 14], keeping: 14)
        let caught = try await CLI.run(["verify", log, "--head", head, "--json"]).json()
        let problem = try #require(caught["problem"] as? [String: Any])
        #expect(problem["seq"] as? Int == 13, "\(caught)")
        #expect((problem["message"] as? String)?.contains("the first record that differs is seq 13") == true, "\(caught)")

        // Without the tree the end is named, and the message says the rest is not known.
        try FileManager.default.removeItem(atPath: HistoryTreeFile.path(for: log))
        let unnamed = try await CLI.run(["verify", log, "--head", head, "--json"]).json()
        let said = try #require(unnamed["problem"] as? [String: Any])
        #expect(said["seq"] as? Int == 15, "\(unnamed)")
        #expect((said["message"] as? String)?.contains("whether records up to seq 14 differ as well is not known") == true, "\(unnamed)")
    }

    /// A copy of the log (another log id: an export imported again) with the
    /// original's tree beside it: the head authenticates the leaves, so the tree
    /// names the record that differs.
    @Test func aCopysTreeNamesTheFirstChangedRecordOfAnotherFileOfTheSameHistory() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog"), copy = scratch.path("copy.labellog")
        try HistoryHeadCommandTests.history(at: log)
        let head = try await CLI.run(["head", log, "--at", "15"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try await CLI.run(["index", log])
        let exported = try await CLI.run(["export", log])
        #expect(try await CLI.run(["import", copy], stdin: Data(exported.stdout.utf8)).status == 0)
        #expect(try LogReader(path: copy).header.logID != LogReader(path: log).header.logID)
        try FileManager.default.copyItem(atPath: HistoryTreeFile.path(for: log), toPath: HistoryTreeFile.path(for: copy))
        try Self.forgeInPlace(copy, changing: 11)
        let caught = try await CLI.run(["verify", copy, "--head", head, "--json"]).json()
        let problem = try #require(caught["problem"] as? [String: Any])
        #expect(problem["seq"] as? Int == 11, "\(caught)")
    }
}

/// A file written before the string rule (a record holding U+0000): read as
/// it is, and `copy` stops at that record, naming it and saying how to move
/// the history (issue 26, item 9).
@Suite struct LegacyNULCopyTests {
    @Test func aCopyStopsAtARecordHoldingNULAndSaysHowToMoveTheHistory() async throws {
        let scratch = try Scratch()
        let log = scratch.path("legacy.labellog")
        try makeLog(at: log) { store in _ = try store.add("first") }
        let reader = try LogReader(path: log)
        let first = try #require(try reader.next())
        let format = FrameFormat(header: reader.header)
        var bytes = try bytes(log)
        bytes = Array(bytes[0..<Int(reader.offset)])
        let legacy = EventRecord(
            seq: 2, timestamp: EventTimestamp(millisecondsSince1970: first.timestamp.millisecondsSince1970 + 1),
            event: .added(id: LabelID(), title: "nul\u{0}title", isEnabled: true, index: 1))
        var out = ByteWriter()
        let previous = try #require(reader.lastPosition?.checksum)
        Frame.encode(legacy, into: &out, format: format, previous: previous, continues: false)
        try write(bytes + out.bytes, to: log)

        let shown = try await CLI.run(["show", log, "--json"])
        #expect(shown.status == 0, "a file written before the rule is read: \(shown)")
        let copied = try await CLI.run(["copy", log, scratch.path("copy.labellog")])
        #expect(copied.status == 1 && copied.stderr.contains("U+0000") && copied.stderr.contains("seq 2"), "\(copied)")
        #expect(copied.stderr.contains("export") && copied.stderr.contains("import"), "\(copied)")
    }
}
