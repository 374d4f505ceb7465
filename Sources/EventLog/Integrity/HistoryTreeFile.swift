import Foundation

/// The history tree's leaves kept beside a log, `LOG.tree` (docs/AUDIT.md,
/// "The tree cache"): every record's leaf hash, in seq order, so that a
/// failed check against a kept head can name the first record that differs.
///
/// A cache, never trusted over the log: it is used only where a head the
/// caller trusts authenticates it (the root of its first `head.seq` leaves
/// must be that head, and then, by SHA-256's collision resistance, every one
/// of those leaves is the history's). A missing, damaged or short file is
/// simply not used. ``update(logPath:progress:)`` builds it or appends the
/// records written since, rewriting only its last chunk and its header.
///
/// Layout: a 64-byte header (magic `LABELTRE`, version 1, flags (bit 0: a
/// based log's leaves, from its first seq), header
/// length 64, the log id, the number of leaves, the covered record's
/// ``LogPosition``, a CRC-32C of bytes 0..<60; docs/AUDIT.md), then chunks of up to 128
/// leaves (32 bytes each) each followed by the CRC-32C of its leaves; every
/// chunk but the last is full.
public enum HistoryTreeFile {
    /// Where the tree cache of the log at `logPath` lives.
    public static func path(for logPath: String) -> String { logPath + ".tree" }

    static let magic = Array("LABELTRE".utf8)
    static let version: UInt16 = 1
    static let headerLength = 64
    /// Flag bit 0: the leaves are a based log's, from its first seq (not seq 1).
    static let basedFlag: UInt16 = 1
    /// Leaves per chunk.
    static let chunkLeaves = 128
    /// A full chunk's bytes: its leaves and their checksum.
    static let chunkBytes = chunkLeaves * 32 + 4

    /// What a cache file holds: the log it belongs to, its leaves, and the
    /// position of the record of its last leaf.
    package struct Contents {
        package var logID: LabelID
        package var leaves: [HistoryHash]
        package var covered: LogPosition?
    }

    /// The leaves of the cache of the log at `logPath`, when the file is there
    /// and whole (header and chunk checksums), of the log with id `logID`;
    /// `nil` otherwise. Leaves past a damaged chunk are dropped.
    ///
    /// A based log's cache (flag bit 0) holds the leaves of its own records,
    /// from `firstSeq` (its first seq) on: it is read only for a log whose
    /// first seq is above 1, and a cache from seq 1 only for one that starts there.
    package static func read(logPath: String, logID: LabelID?, firstSeq: UInt64 = 1) -> Contents? {
        guard let file = try? SystemFile.open(path(for: logPath), .readOnly), let size = try? file.size() else { return nil }
        defer { file.close() }
        var bytes = [UInt8](repeating: 0, count: Int(size))
        let read = bytes.withUnsafeMutableBytes { (try? file.read(at: 0, into: $0)) ?? 0 }
        guard read == bytes.count, bytes.count >= headerLength, Array(bytes[0..<8]) == magic else { return nil }
        return bytes.withUnsafeBytes { raw -> Contents? in
            guard
                raw.loadUnaligned(fromByteOffset: 60, as: UInt32.self).littleEndian
                    == CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[0..<60])),
                raw.loadUnaligned(fromByteOffset: 8, as: UInt16.self).littleEndian == version,
                raw.loadUnaligned(fromByteOffset: 10, as: UInt16.self).littleEndian == (firstSeq > 1 ? basedFlag : 0),
                raw.loadUnaligned(fromByteOffset: 12, as: UInt32.self).littleEndian == UInt32(headerLength),
                logID == nil || LabelID(UUID(uuid: raw.loadUnaligned(fromByteOffset: 16, as: uuid_t.self))) == logID
            else { return nil }
            let count = Int(raw.loadUnaligned(fromByteOffset: 32, as: UInt64.self).littleEndian)
            var leaves: [HistoryHash] = []
            leaves.reserveCapacity(min(count, (raw.count - headerLength) / 32))
            var offset = headerLength
            while leaves.count < count {
                let inChunk = min(chunkLeaves, count - leaves.count)
                guard offset + inChunk * 32 + 4 <= raw.count else { break }
                let chunk = UnsafeRawBufferPointer(rebasing: raw[offset..<offset + inChunk * 32])
                guard raw.loadUnaligned(fromByteOffset: offset + inChunk * 32, as: UInt32.self).littleEndian == CRC32C.checksum(chunk)
                else { break }
                for i in 0..<inChunk {
                    leaves.append(HistoryHash(bytes: UnsafeRawBufferPointer(rebasing: chunk[i * 32..<i * 32 + 32]))!)
                }
                offset += inChunk * 32 + 4
            }
            let covered =
                leaves.count == count && count > 0
                ? LogPosition(
                    seq: firstSeq - 1 + UInt64(count), offset: Int64(raw.loadUnaligned(fromByteOffset: 40, as: UInt64.self).littleEndian),
                    length: Int64(raw.loadUnaligned(fromByteOffset: 48, as: UInt32.self).littleEndian),
                    checksum: raw[56] == 1 ? raw.loadUnaligned(fromByteOffset: 52, as: UInt32.self).littleEndian : nil) : nil
            let fileLogID = LabelID(UUID(uuid: raw.loadUnaligned(fromByteOffset: 16, as: uuid_t.self)))
            return Contents(logID: logID ?? fileLogID, leaves: leaves, covered: covered)
        }
    }

    /// What an update did.
    public struct Update: Sendable, Hashable {
        /// Leaves in the file now (the log's last seq).
        public var leaves: UInt64
        /// Leaves appended by this update.
        public var added: UInt64
        /// Whether the file was written from the log's first seq (missing, damaged, of
        /// another log, or not the log's history any more).
        public var rebuilt: Bool
    }

    /// Builds the cache of the log at `logPath`, or appends the leaves of the
    /// records written since it was last updated. A cache that does not
    /// check out (the log does not keep its last covered record, a damaged
    /// chunk, another log's) is written again from the log's first seq. Not durable (a
    /// cache): a crash leaves a file that the next update checks and
    /// repairs. Call it from one process at a time (`labelreplay index` holds
    /// no lock on it; two at once may each rebuild it).
    ///
    /// - Throws: ``EventLogError`` when the log cannot be read or the file written.
    public static func update(logPath: String, progress: ((UInt64) -> Void)? = nil) throws(EventLogError) -> Update {
        try update(logPath: logPath, progress: progress, batchChunks: ChunkWriter.batchChunks)
    }

    /// ``update(logPath:progress:)``, its chunks written `batchChunks` at a time (tests take 1).
    static func update(logPath: String, progress: ((UInt64) -> Void)?, batchChunks: Int) throws(EventLogError) -> Update {
        let reader = try LogReader(path: logPath)
        // A based log's leaves before its first record are gone: its cache holds its own records' (flag bit 0).
        let firstSeq = reader.header.firstSeq
        // What an import killed while it wrote the file aside left (``StagedIndexAndTree``).
        SystemFile.removeStaleTemporaries(of: path(for: logPath))
        let (file, _) = try SystemFile.openCreating(path(for: logPath))
        defer { file.close() }
        var writer = ChunkWriter(file: file, batchChunks: batchChunks)
        var rebuilt = true
        if let cached = read(logPath: logPath, logID: reader.header.logID, firstSeq: firstSeq), let covered = cached.covered,
            try reader.keeps(covered) == .kept
        {
            // The chunk holding the last cached leaves is written again with the new ones after them.
            writer = ChunkWriter(file: file, batchChunks: batchChunks, keeping: cached.leaves)
            rebuilt = false
            _ = try reader.resume(after: covered)
        }
        let before = writer.count
        var last: LogPosition? = reader.lastPosition
        while let (view, position) = try reader.nextPositionedView() {
            try writer.append(.leaf(payload: view.payload))
            last = position
            if view.seq % 65_536 == 0 { progress?(view.seq) }
        }
        try writer.finish(logID: reader.header.logID, based: firstSeq > 1, covered: last)
        return Update(leaves: UInt64(writer.count), added: UInt64(writer.count - before), rebuilt: rebuilt)
    }

    /// Writes a tree file's chunks as their leaves come, a batch of full
    /// chunks at a time, so an update holds a few megabytes of leaves however
    /// long the history (not every leaf and then the whole file's bytes).
    /// A crash leaves chunks the old header does not describe: a read then
    /// finds a checksum that does not match, and the next update writes the
    /// file again.
    struct ChunkWriter {
        /// Full chunks written per batch by default (1,024 chunks: 4 MiB of leaves).
        static let batchChunks = 1_024

        let file: SystemFile
        let batchChunks: Int
        /// The leaves from chunk ``firstPending`` on, not yet written.
        private var pending: [HistoryHash] = []
        private var firstPending = 0
        /// Where the chunks written so far end (the kept ones, for a writer that goes on after them).
        private var end = Int64(HistoryTreeFile.headerLength)
        /// Leaves in the file once everything is written.
        private(set) var count = 0

        /// A writer of a new file, from the first leaf.
        init(file: SystemFile, batchChunks: Int) {
            self.file = file
            self.batchChunks = max(1, batchChunks)
        }

        /// A writer that keeps the file's first `leaves` (their chunks but
        /// the last, partial one, already there) and goes on after them.
        init(file: SystemFile, batchChunks: Int, keeping leaves: [HistoryHash]) {
            self.file = file
            self.batchChunks = max(1, batchChunks)
            firstPending = leaves.count / HistoryTreeFile.chunkLeaves
            end = Int64(HistoryTreeFile.headerLength + firstPending * HistoryTreeFile.chunkBytes)
            pending = Array(leaves[(firstPending * HistoryTreeFile.chunkLeaves)...])
            count = leaves.count
        }

        mutating func append(_ leaf: HistoryHash) throws(EventLogError) {
            pending.append(leaf)
            count += 1
            if pending.count >= batchChunks * HistoryTreeFile.chunkLeaves { try flush(all: false) }
        }

        /// Writes the pending full chunks (and with `all`, the last partial one).
        private mutating func flush(all: Bool) throws(EventLogError) {
            let chunks =
                all
                ? (pending.count + HistoryTreeFile.chunkLeaves - 1) / HistoryTreeFile.chunkLeaves
                : pending.count / HistoryTreeFile.chunkLeaves
            guard chunks > 0 else { return }
            var body: [UInt8] = []
            body.reserveCapacity(chunks * HistoryTreeFile.chunkBytes)
            for chunk in 0..<chunks {
                let range = chunk * HistoryTreeFile.chunkLeaves..<min(pending.count, (chunk + 1) * HistoryTreeFile.chunkLeaves)
                let start = body.count
                body.append(contentsOf: repeatElement(0, count: range.count * 32))
                body.withUnsafeMutableBytes { raw in
                    for (i, leaf) in pending[range].enumerated() { leaf.store(to: raw.baseAddress! + start + i * 32) }
                }
                let checksum = body.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[start...])) }
                withUnsafeBytes(of: checksum.littleEndian) { body += $0 }
            }
            let offset = Int64(HistoryTreeFile.headerLength + firstPending * HistoryTreeFile.chunkBytes)
            try body.withUnsafeBytes { raw in Result { () throws(EventLogError) in try file.write(raw, at: offset) } }.get()
            let written = min(pending.count, chunks * HistoryTreeFile.chunkLeaves)
            pending.removeFirst(written)
            firstPending += chunks
            end = offset + Int64(body.count)
        }

        /// Writes the last chunks, cuts the file after them, then writes the header.
        mutating func finish(logID: LabelID, based: Bool, covered: LogPosition?) throws(EventLogError) {
            try flush(all: true)
            // What a longer file had after the last chunk is cut.
            try file.truncate(to: end)
            var header = [UInt8](repeating: 0, count: HistoryTreeFile.headerLength)
            header.withUnsafeMutableBytes { raw in
                raw.copyBytes(from: magic)
                raw.storeBytes(of: version.littleEndian, toByteOffset: 8, as: UInt16.self)
                raw.storeBytes(of: (based ? basedFlag : 0).littleEndian, toByteOffset: 10, as: UInt16.self)
                raw.storeBytes(of: UInt32(headerLength).littleEndian, toByteOffset: 12, as: UInt32.self)
                raw.storeBytes(of: logID.uuid.uuid, toByteOffset: 16, as: uuid_t.self)
                raw.storeBytes(of: UInt64(count).littleEndian, toByteOffset: 32, as: UInt64.self)
                if let covered {
                    raw.storeBytes(of: UInt64(covered.offset).littleEndian, toByteOffset: 40, as: UInt64.self)
                    raw.storeBytes(of: UInt32(covered.length).littleEndian, toByteOffset: 48, as: UInt32.self)
                    if let checksum = covered.checksum {
                        raw.storeBytes(of: checksum.littleEndian, toByteOffset: 52, as: UInt32.self)
                        raw[56] = 1
                    }
                }
                raw.storeBytes(
                    of: CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[0..<60])).littleEndian, toByteOffset: 60, as: UInt32.self)
            }
            try header.withUnsafeBytes { raw in Result { () throws(EventLogError) in try file.write(raw, at: 0) } }.get()
        }
    }

    /// The first seq at which the history `records` differs from the leaves
    /// cached beside it, when those leaves are authenticated by `head` (the
    /// root of the first `head.seq` of them is `head`); `nil` when there is no
    /// such cache or it is not of that head. The cache may be another log's
    /// (a copy's, an import's: another log id): leaves are over the records'
    /// payloads, and the head authenticates them whatever file they came
    /// from. Reads the records again; a log that ends before the first
    /// difference gives the seq after its last.
    ///
    /// - Throws: what reading throws.
    public static func firstDifference(
        logPath: String, from head: HistoryHead
    ) throws(EventLogError) -> UInt64? {
        let reader = try LogReader(path: logPath)
        let firstSeq = reader.header.firstSeq
        // A based log's tree continues from its base's frontier; a head before its first seq is the archive's to check.
        var builder =
            reader.header.base.flatMap { HistoryTreeBuilder(count: $0.lastCutSeq, frontier: $0.frontier) } ?? HistoryTreeBuilder()
        guard head.seq >= builder.count,
            let cached = read(logPath: logPath, logID: nil, firstSeq: firstSeq),
            UInt64(cached.leaves.count) >= head.seq - builder.count
        else { return nil }
        for leaf in cached.leaves.prefix(Int(head.seq - builder.count)) { builder.append(leaf: leaf) }
        guard builder.root == head.hash else { return nil }
        var difference: UInt64?
        struct Found: Error {}
        do {
            try reader.forEachView { view in
                guard view.seq <= head.seq else { throw Found() }
                if HistoryHash.leaf(payload: view.payload) != cached.leaves[Int(view.seq - firstSeq)] {
                    difference = view.seq
                    throw Found()
                }
            }
        } catch is Found {
        } catch let error as EventLogError {
            throw error
        } catch {
            throw EventLogError(.ioError, "\(error)")
        }
        return difference ?? (reader.nextSeq <= head.seq ? reader.nextSeq : nil)
    }
}
