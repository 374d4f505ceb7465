import EventLog

/// A log's checkpoint file, `LOG.checkpoints` (docs/SNAPSHOTS.md,
/// "Checkpoints"): the list every ``interval`` records, so the list at any seq
/// folds only the records after the nearest checkpoint at or before it.
///
/// A cache, never trusted over the log: the header and every block's entry
/// are checksummed; each checkpoint is a live-slots-only image of the list
/// (its own checksum, bound to its record's position and chained frame
/// checksum) plus the history tree's frontier at its seq; the removed labels
/// are written once, in removal blocks appended as labels are removed, and a
/// checkpoint takes those before it. A checkpoint is used only once the log
/// holds that record with that checksum. Anything else is reported and the
/// caller folds from an earlier checkpoint or from seq 1, with the same
/// answer. The file is append-only (format version 3): an update appends the
/// blocks of the records written since (``update(logPath:rebuild:interval:progress:)``).
package enum CheckpointFile {
    /// Where the checkpoints of the log at `logPath` live.
    package static func path(for logPath: String) -> String { logPath + ".checkpoints" }

    static let magic = Array("LABELCKP".utf8)
    static let formatVersion: UInt16 = 3
    static let headerLength = 48
    /// The magic of a checkpoint's entry.
    static let checkpointMagic = Array("CKPT".utf8)
    /// The magic of a removal block's entry.
    static let removalsMagic = Array("RMVD".utf8)
    /// An entry: magic, flags, seq, body length, a count, the body's checksum, its own checksum.
    static let entryLength = 40
    /// The bytes of one hash of the history tree's frontier.
    static let hashLength = 32
    /// Records between checkpoints when `labelreplay index` writes them.
    package static let defaultInterval: UInt64 = 65_536

    /// One checkpoint's place in the file.
    package struct Entry: Sendable, Hashable {
        package var seq: UInt64
        /// Where its bytes (the image, then the tree's frontier) start: right after its entry.
        var offset: Int
        /// Its bytes' length.
        var length: Int
        /// The removals at or before ``seq``: the entries of the removal blocks before it.
        var removalCount: UInt64
        /// CRC-32C of its bytes.
        var checksum: UInt32
        /// How many removal blocks come before it in the file.
        var blocksBefore: Int
        /// Where its entry starts.
        var start: Int { offset - entryLength }
        var end: Int { offset + length }
        /// The image's length: what the frontier (one hash per set bit of the seq) leaves.
        var imageLength: Int { length - hashLength * seq.nonzeroBitCount }
    }

    /// One removal block's place in the file: the labels removed after the
    /// checkpoint before it, up to and including record ``seq``.
    struct RemovalBlock: Sendable, Hashable {
        var seq: UInt64
        var offset: Int
        var length: Int
        /// Its removal entries.
        var count: UInt64
        var checksum: UInt32
        var start: Int { offset - entryLength }
        var end: Int { offset + length }
    }

    /// The checked header and the entries of a checkpoint file.
    package struct Directory: Sendable {
        package var path: String
        package var logID: LabelID
        package var interval: UInt64
        /// The checkpoints whose entries check out, seqs ascending.
        package var entries: [Entry]
        /// The removal blocks before the last of ``entries``, in file order.
        var removals: [RemovalBlock]
        /// Why the bytes after the last entry are not checkpoints, when they
        /// look damaged (`nil`: the file ends there, or an append has not
        /// finished: its entry is still zero).
        package var tail: HistoryIndexFile.Problem?

        /// The bytes from `offset` on, `count` of them, of the block that `what` names.
        func bytes(at offset: Int, count: Int, of what: @autoclosure () -> String) throws(EventLogError) -> [UInt8] {
            let file = try SystemFile.open(path, .readOnly)
            defer { file.close() }
            let bytes = try file.read(at: Int64(offset), count: count)
            guard bytes.count == count else {
                throw EventLogError(.ioError, "the file ends inside \(what())", path: path, offset: Int64(offset))
            }
            return bytes
        }
    }

    /// What looking for a log's checkpoint file found.
    package enum Lookup: Sendable {
        case missing
        case ignored(HistoryIndexFile.Problem)
        case usable(Directory)

        package var directory: Directory? {
            if case .usable(let directory) = self { return directory }
            return nil
        }
    }

    /// Reads the checkpoint file of the log `reader` reads and checks its
    /// header (magic, version, the checksum, the log id) and its entries. The
    /// checkpoints themselves are checked when one is taken. Never throws;
    /// needs no lock (an append writes its entries only once its blocks are
    /// durable).
    package static func load(for reader: LogReader) -> Lookup {
        let path = path(for: reader.path)
        if reader.header.base != nil { return .missing }  // a based log folds from its base, not from checkpoints
        let file: SystemFile
        do throws(EventLogError) { file = try SystemFile.open(path, .readOnly) } catch {
            if error.code == .fileNotFound { return .missing }
            return .ignored(.init(path: path, reason: "cannot be read: \(error.message)"))
        }
        defer { file.close() }
        return lookup(file, path: path, logID: reader.header.logID)
    }

    /// ``load(for:)`` of the open file `file`, for the log `logID`.
    static func lookup(_ file: SystemFile, path: String, logID: LabelID) -> Lookup {
        do throws(HistoryIndexFile.Problem) {
            let directory = try readDirectory(file, path: path)
            guard directory.logID == logID else {
                return .ignored(
                    .init(path: path, reason: "it holds checkpoints of another log (\(directory.logID), not \(logID))", offset: 16))
            }
            return .usable(directory)
        } catch {
            return .ignored(error)
        }
    }

    /// The newest checkpoint at or before `seq` that belongs to the log
    /// `reader` reads (its bytes match its entry's checksum, its image and the
    /// removal blocks before it decode, it names this log and its seq, and the
    /// log keeps its record at the recorded position with the recorded chained
    /// checksum), with the problems of the newer ones that did not.
    ///
    /// Without `decodingRemoved`, the removed labels' titles are skipped and
    /// ``ListCheckpoint/removed`` is empty: only `diff` and `trace` print
    /// removed labels; with `removedAmong`, it holds only those labels.
    ///
    /// - Complexity: O(size of the checkpoints tried and of the removal blocks
    ///   before them) plus one frame read of the log each.
    package static func checkpoint(
        atOrBefore seq: UInt64, in directory: Directory, reader: LogReader, decodingRemoved: Bool = true, removedAmong: Set<LabelID>? = nil
    ) -> (checkpoint: ListCheckpoint?, problems: [HistoryIndexFile.Problem]) {
        var problems: [HistoryIndexFile.Problem] = []
        for entry in directory.entries.reversed() where entry.seq <= seq {
            do throws(HistoryIndexFile.Problem) {
                let removals = RemovedLabels(keepingTitles: decodingRemoved, wanted: removedAmong)
                return (try checkpoint(entry, in: directory, reader: reader, removals: removals), problems)
            } catch {
                problems.append(error)
            }
        }
        return (nil, problems)
    }

    /// Decodes and checks one checkpoint.
    private static func checkpoint(_ entry: Entry, in directory: Directory, reader: LogReader, removals: RemovedLabels)
        throws(HistoryIndexFile.Problem) -> ListCheckpoint
    {
        var removals = removals
        func fail(_ reason: String, at offset: Int? = entry.offset) -> HistoryIndexFile.Problem {
            .init(path: directory.path, reason: "the checkpoint at seq \(entry.seq) " + reason, offset: offset)
        }
        let bytes: [UInt8]
        do throws(EventLogError) {
            bytes = try directory.bytes(at: entry.offset, count: entry.length, of: "the checkpoint at seq \(entry.seq)")
        } catch {
            throw fail("cannot be read: \(error.message)")
        }
        guard bytes.withUnsafeBytes({ CRC32C.checksum($0) }) == entry.checksum else {
            throw fail("does not match its entry's checksum (damaged, or an append that did not reach the disk)")
        }
        let decoded = bytes.withUnsafeBytes { raw in
            Result { () throws(SnapshotError) in
                try LabelList.decodeCheckpointImage(UnsafeRawBufferPointer(rebasing: raw[0..<entry.imageLength])) {
                    (slotCount, liveCount) throws(SnapshotError) in
                    try removals.read(
                        directory.removals[0..<entry.blocksBefore], of: directory, count: entry.removalCount,
                        slotCount: slotCount, liveCount: liveCount)
                }
            }
        }
        let list: LabelList
        let header: SnapshotHeader
        switch decoded {
        case .success(let value): (list, header) = value
        case .failure(let error): throw fail("does not decode: \(error.message)")
        }
        guard header.logID == directory.logID, header.seq == entry.seq, let position = header.logPosition, position.checksum != nil else {
            throw fail("is not the checkpoint its entry names (seq \(header.seq), log \(header.logID))")
        }
        let hashes = (0..<entry.seq.nonzeroBitCount).compactMap { k in
            HistoryHash(bytes: bytes[(entry.imageLength + k * hashLength)..<(entry.imageLength + (k + 1) * hashLength)])
        }
        guard let tree = HistoryTreeBuilder(count: entry.seq, frontier: hashes) else {
            throw fail("has a damaged history tree frontier", at: entry.offset + entry.imageLength)
        }
        let keeping: RecordKeeping
        do throws(EventLogError) { keeping = try reader.keeps(position) } catch {
            throw fail("could not be checked against the log: \(error.message)", at: nil)
        }
        switch keeping {
        case .kept:
            break
        case .notHeld:
            throw fail(
                "is of a history the log does not hold: record \(position.seq) is not at byte offset \(position.offset) with its checksum (the log was cut or rewritten)",
                at: nil)
        case .notKept:
            throw fail("is not usable: " + RecordKeeping.notKeptReason(position.seq), at: nil)
        }
        return ListCheckpoint(list: list, position: position, removed: removals.labels(of: list), tree: tree)
    }
}
