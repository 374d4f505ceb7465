import Foundation
import LabelStoreTestSupport
import Testing

@testable import EventLog

/// `LOG.tree`: built, extended by the records appended since, written again
/// when it no longer matches the log, and ignored when damaged or foreign.
@Suite struct HistoryTreeFileTests {
    static func entries(_ count: Int, from start: Int = 0) -> [LogEntry] {
        (start..<start + count).map { LogEntry(.added(id: LabelID(), title: "Label \($0)", isEnabled: true, index: 0)) }
    }

    /// Appends `entries` to the log at `path` in one unsynced append.
    static func append(_ entries: [LogEntry], to path: String) throws {
        let writer = try LogWriter.open(path: path, options: .init(durability: .noSync))
        defer { writer.close() }
        _ = try writer.append(entries)
    }

    /// The leaves of the log at `path`, hashed straight from its frames.
    static func leaves(_ path: String) throws -> [HistoryHash] {
        var leaves: [HistoryHash] = []
        try LogReader(path: path).forEachView { leaves.append(.leaf(payload: $0.payload)) }
        return leaves
    }

    @Test func anUpdateBuildsThenAppendsOnlyTheNewRecords() throws {
        let dir = TemporaryDirectory()
        let log = dir.file()
        try writeLog(log, Self.entries(300))
        let built = try HistoryTreeFile.update(logPath: log)
        #expect(built == .init(leaves: 300, added: 300, rebuilt: true))
        let header = try LogReader(path: log).header
        #expect(HistoryTreeFile.read(logPath: log, logID: header.logID)?.leaves == (try Self.leaves(log)))
        try Self.append(Self.entries(5, from: 300), to: log)
        let extended = try HistoryTreeFile.update(logPath: log)
        #expect(extended == .init(leaves: 305, added: 5, rebuilt: false))
        #expect(HistoryTreeFile.read(logPath: log, logID: header.logID)?.leaves == (try Self.leaves(log)))
        #expect(try HistoryTreeFile.update(logPath: log) == .init(leaves: 305, added: 0, rebuilt: false))
        // Another log's id: not read.
        #expect(HistoryTreeFile.read(logPath: log, logID: LabelID()) == nil)
    }

    /// The chunks are written a batch at a time as the leaves come: with one
    /// chunk per batch, the build and each extension (ending inside a chunk,
    /// on a chunk's end, past it) give the file's bytes a single batch gives.
    @Test func chunksWrittenABatchAtATimeGiveTheSameFile() throws {
        let dir = TemporaryDirectory()
        let log = dir.file()
        try writeLog(log, Self.entries(300))
        let tree = HistoryTreeFile.path(for: log)
        let header = try LogReader(path: log).header
        var written = 300
        for more in [0, 84, 1, 130] {
            if more > 0 {
                try Self.append(Self.entries(more, from: written), to: log)
                written += more
            }
            let batched = try HistoryTreeFile.update(logPath: log, progress: nil, batchChunks: 1)
            #expect(batched.leaves == UInt64(written) && batched.added == UInt64(more == 0 ? 300 : more))
            let bytes = readBytes(tree)
            #expect(HistoryTreeFile.read(logPath: log, logID: header.logID)?.leaves == (try Self.leaves(log)), "\(written) leaves")
            // The same history written whole, in one batch, from a fresh file.
            try FileManager.default.removeItem(atPath: tree)
            #expect(try HistoryTreeFile.update(logPath: log).rebuilt)
            let whole = readBytes(tree)
            let same = whole == bytes  // compared apart: a failure prints the sizes, not every byte
            #expect(same, "\(written) leaves: \(bytes.count) bytes written in batches of one chunk, \(whole.count) in one")
        }
        // Another log's longer file in its place: written over from the first leaf and cut after
        // the last chunk, also when that chunk is full and was written with the batch before it.
        let other = dir.file("other.labellog")
        try writeLog(other, Self.entries(256))
        writeBytes(HistoryTreeFile.path(for: other), readBytes(tree))
        #expect(try HistoryTreeFile.update(logPath: other, progress: nil, batchChunks: 1).rebuilt)
        let overwritten = readBytes(HistoryTreeFile.path(for: other))
        try FileManager.default.removeItem(atPath: HistoryTreeFile.path(for: other))
        _ = try HistoryTreeFile.update(logPath: other)
        let fresh = readBytes(HistoryTreeFile.path(for: other))
        let same = overwritten == fresh
        #expect(same, "written over a longer file: \(overwritten.count) bytes, from nothing: \(fresh.count)")
    }

    /// An update killed after writing some chunks but before its header:
    /// the old header does not describe the chunk it rewrote, a read drops
    /// the leaves from there (its checksum does not match), and the next
    /// update writes the file again — the same bytes as a fresh build.
    @Test func anUpdateCutBeforeItsHeaderIsWrittenAgain() throws {
        let dir = TemporaryDirectory()
        let log = dir.file()
        try writeLog(log, Self.entries(300))
        _ = try HistoryTreeFile.update(logPath: log)
        let tree = HistoryTreeFile.path(for: log)
        let oldHeader = Array(readBytes(tree).prefix(HistoryTreeFile.headerLength))
        try Self.append(Self.entries(300, from: 300), to: log)
        _ = try HistoryTreeFile.update(logPath: log, progress: nil, batchChunks: 1)
        // The new chunks are there, the header still the old one's.
        var cut = readBytes(tree)
        cut.replaceSubrange(0..<HistoryTreeFile.headerLength, with: oldHeader)
        writeBytes(tree, cut)
        let header = try LogReader(path: log).header
        let read = HistoryTreeFile.read(logPath: log, logID: header.logID)
        #expect(read?.leaves.count == 256 && read?.covered == nil, "the leaves up to the rewritten chunk, no covered record")
        let update = try HistoryTreeFile.update(logPath: log)
        #expect(update.rebuilt && update.leaves == 600)
        #expect(HistoryTreeFile.read(logPath: log, logID: header.logID)?.leaves == (try Self.leaves(log)))
    }

    @Test func aDamagedOrStaleCacheIsWrittenAgainFromSeqOne() throws {
        let dir = TemporaryDirectory()
        let log = dir.file()
        try writeLog(log, Self.entries(300))
        _ = try HistoryTreeFile.update(logPath: log)
        let tree = HistoryTreeFile.path(for: log)

        // A flipped byte in the second chunk: the leaves after it are dropped, and the update rebuilds.
        var bytes = readBytes(tree)
        bytes[HistoryTreeFile.headerLength + HistoryTreeFile.chunkBytes + 40] ^= 1
        writeBytes(tree, bytes)
        let header = try LogReader(path: log).header
        #expect(HistoryTreeFile.read(logPath: log, logID: header.logID)?.leaves.count == 128)
        #expect(try HistoryTreeFile.update(logPath: log).rebuilt)
        #expect(HistoryTreeFile.read(logPath: log, logID: header.logID)?.leaves == (try Self.leaves(log)))

        // The log written again differently under the cache (same id, another history): rebuilt.
        let rewritten = Array(readBytes(log)[0..<LogFormat.headerLength])
        var forged = rewritten
        for n in 0..<310 {
            let record = EventRecord(
                seq: UInt64(n + 1), timestamp: EventTimestamp(millisecondsSince1970: Int64(n)),
                event: .added(id: LabelID(), title: "Other \(n)", isEnabled: false, index: 0))
            forged += try nextFrame(record, after: forged)
        }
        writeBytes(log, forged)
        let update = try HistoryTreeFile.update(logPath: log)
        #expect(update.rebuilt && update.leaves == 310)
        #expect(HistoryTreeFile.read(logPath: log, logID: header.logID)?.leaves == (try Self.leaves(log)))

        // A torn header: nothing is read, and the update rebuilds.
        bytes = readBytes(tree)
        bytes[33] ^= 0xFF
        writeBytes(tree, bytes)
        #expect(HistoryTreeFile.read(logPath: log, logID: header.logID) == nil)
        #expect(try HistoryTreeFile.update(logPath: log).rebuilt)
    }
}
