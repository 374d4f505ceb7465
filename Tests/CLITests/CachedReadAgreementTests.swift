import EventLog
import Foundation
import LabelProjection
import LabelStoreTestSupport
import Testing

/// A read through the history caches (`LOG.index`, `LOG.checkpoints`) never
/// answers what the log does not hold: when a record of the last unsynced
/// write is damaged, the log ends before it (a torn tail, which the next
/// writer's open cuts), and so does every answer that jumps past it through
/// a cache.
@Suite struct CachedReadAgreementTests {
    /// Writes the records of the log at `source` to a new log at `path` in one
    /// unsynced append, as an import or a large batch does: every frame after
    /// the first is a continuation, so damage in any of them is a torn tail.
    static func rewriteAsOneWrite(_ source: String, to path: String) throws {
        let reader = try LogReader(path: source)
        var entries: [LogEntry] = []
        while let record = try reader.next() {
            entries.append(LogEntry(record.event, timestamp: record.timestamp, actor: record.actor, note: record.note))
        }
        let writer = try LogWriter.open(path: path, options: .init(durability: .noSync, createIfMissing: true))
        defer { writer.close() }
        try writer.append(entries)
    }

    /// Flips one payload byte of record `seq`, in place.
    static func damage(_ path: String, record seq: UInt64) throws {
        let reader = try LogReader(path: path)
        while reader.nextSeq <= seq { _ = try reader.next() }
        let position = try #require(reader.lastPosition)
        var bytes = try bytes(path)
        bytes[Int(position.offset) + LogFormat.frameHeaderLength + 2] ^= 0x20
        let handle = try #require(FileHandle(forWritingAtPath: path))
        defer { try? handle.close() }
        try handle.write(contentsOf: Data(bytes))
    }

    /// `log` through the index: a label's records, and a window of time around record `seq`.
    static func logCommands(_ path: String, ids: [LabelID], around seq: UInt64) throws -> [[String]] {
        let reader = try LogReader(path: path)
        while reader.nextSeq < seq { _ = try reader.next() }
        let time = try #require(try reader.next()).timestamp.iso8601
        return ids.prefix(3).map { ["log", path, "--label", $0.description, "--no-pager"] } + [
            ["log", path, "--since", time, "--until", time, "--json"],
            ["log", path, "--actor", "alice", "--no-pager"]
        ]
    }

    @Test func noCachedReadServesRecordsAfterATornTail() async throws {
        let scratch = try Scratch()
        let source = scratch.path("source.labellog")
        let path = scratch.path("h.labellog")
        let ids = try CheckpointCommandTests.makeHistory(at: source, seed: 61, writes: 300)
        try Self.rewriteAsOneWrite(source, to: path)
        let last = try CheckpointCommandTests.lastSeq(path)
        #expect(try await CLI.run(["index", path], environment: CheckpointCommandTests.hook).status == 0)
        let damaged = last * 2 / 3
        let commands =
            try Self.logCommands(path, ids: ids, around: damaged + 20)
            + CheckpointCommandTests.commands(path, last: last, ids: ids, seed: 62, count: 6)
            + [["show", path, "--at", String(damaged + 20), "--no-pager"], ["trace", path, "--from", String(damaged + 5), "--no-pager"]]
        try Self.damage(path, record: damaged)

        // The reference: the same commands with the caches moved away.
        let caches = [HistoryIndexFile.path(for: path), CheckpointFile.path(for: path)]
        for file in caches { try FileManager.default.moveItem(atPath: file, toPath: file + ".away") }
        let scanned = try await CheckpointCommandTests.run(commands, hook: false)
        for file in caches { try FileManager.default.moveItem(atPath: file + ".away", toPath: file) }
        let checked = try await CheckpointCommandTests.run(commands, hook: true)
        for (command, (a, b)) in zip(commands, zip(scanned, checked)) {
            #expect(a.stdout == b.stdout && a.status == b.status, "\(command.joined(separator: " ")):\n\(a)\n---\n\(b)")
        }
        #expect(checked.contains { $0.stderr.contains("does not keep record") }, "the caches were not reported")
        #expect(scanned.contains { $0.stderr.contains("torn tail") }, "the scan saw no torn tail: the test damaged nothing")

        // `index` no longer extends the files over the cut: it rebuilds them from what the log keeps.
        let update = try await CLI.run(["index", path, "--json"], environment: CheckpointCommandTests.hook)
        #expect(update.status == 0, "\(update)")
        guard case .usable(let index) = HistoryIndexFile.load(for: try LogReader(path: path)) else {
            Issue.record("no usable index after the update: \(update)")
            return
        }
        #expect(index.coveredSeq == damaged - 1)
        let json = try JSONSerialization.jsonObject(with: Data(update.stdout.utf8)) as? [String: Any]
        let seqs = try #require((json?["checkpoints"] as? [String: Any])?["seqs"] as? [Int])
        #expect(!seqs.isEmpty && seqs.allSatisfy { $0 < damaged }, "\(seqs)")
    }
}
