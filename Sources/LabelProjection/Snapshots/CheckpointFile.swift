import EventLog

/// A log's checkpoint file, `LOG.checkpoints` (docs/SNAPSHOTS.md,
/// "Checkpoints"): the list every ``interval`` records, so the list at any seq
/// folds only the records after the nearest checkpoint at or before it.
///
/// A cache, never trusted over the log: the header and every block's entry
/// are checksummed; each checkpoint is an image of the list's live slots —
/// a full image, or a delta: what changed since the checkpoint before it —
/// (its own checksum, bound to its record's position and chained frame
/// checksum) plus the history tree's frontier at its seq; a full image comes
/// every few checkpoints, so the list at a checkpoint is its nearest full
/// image and the deltas after it. The removed labels are written once, in
/// removal blocks appended as labels are removed, and a checkpoint takes
/// those before it (and, in a based log, the base's). A checkpoint is used
/// only once the log holds that record with that checksum. Anything else is
/// reported and the caller folds from an earlier checkpoint or from the first
/// seq, with the same answer. The file is append-only (format version 5): an
/// update appends the blocks of the records written since
/// (``update(logPath:rebuild:interval:fullEvery:progress:)``).
package enum CheckpointFile {
    /// Where the checkpoints of the log at `logPath` live.
    package static func path(for logPath: String) -> String { logPath + ".checkpoints" }

    static let magic = Array("LABELCKP".utf8)
    static let formatVersion: UInt16 = 5
    static let headerLength = 56
    /// The flag of a checkpoint's entry whose image is a delta (else a full image).
    static let deltaFlag: UInt32 = 1
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
    /// At most this many checkpoints in a row, a full image and the deltas after it.
    package static let defaultFullEvery = 16

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
        /// Whether its image is a delta on the checkpoint before it (else a full image).
        var isDelta: Bool
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
        /// The log's first seq the file was written for (1, or a based log's first).
        package var firstSeq: UInt64
        /// The checkpoints whose entries check out, seqs ascending.
        package var entries: [Entry]
        /// The removal blocks before the last of ``entries``, in file order.
        var removals: [RemovalBlock]
        /// Why the bytes after the last entry are not checkpoints, when they
        /// look damaged (`nil`: the file ends there, or an append has not
        /// finished: its entry is still zero).
        package var tail: HistoryIndexFile.Problem?
        /// A based log's base list (its removed slots are the tombstones before
        /// the first seq), or `nil` for a log that starts at seq 1.
        var origin: LabelList?

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
    /// A based log's base list (`origin`, ``LabelList/origin(of:path:)``)
    /// is decoded from the log's header unless the caller passes it.
    package static func load(for reader: LogReader, origin: LabelList? = nil) -> Lookup {
        let path = path(for: reader.path)
        let file: SystemFile
        do throws(EventLogError) { file = try SystemFile.open(path, .readOnly) } catch {
            if error.code == .fileNotFound { return .missing }
            return .ignored(.init(path: path, reason: "cannot be read: \(error.message)"))
        }
        defer { file.close() }
        return lookup(file, path: path, header: reader.header, logPath: reader.path, origin: origin)
    }

    /// ``load(for:origin:)`` of the open file `file`, for the log at `logPath` whose header is `header`.
    static func lookup(_ file: SystemFile, path: String, header: LogHeader, logPath: String, origin: LabelList? = nil) -> Lookup {
        let logID = header.logID
        do throws(HistoryIndexFile.Problem) {
            var directory = try readDirectory(file, path: path)
            guard directory.logID == logID else {
                return .ignored(
                    .init(path: path, reason: "it holds checkpoints of another log (\(directory.logID), not \(logID))", offset: 16))
            }
            guard directory.firstSeq == header.firstSeq else {
                return .ignored(
                    .init(
                        path: path,
                        reason:
                            "it holds checkpoints of the log from seq \(directory.firstSeq), but the log starts at seq \(header.firstSeq)",
                        offset: 40))
            }
            if let base = header.base {
                if let origin, origin.lastSeq == base.lastCutSeq {
                    directory.origin = origin
                    return .usable(directory)
                }
                do throws(StoreError) { directory.origin = try LabelList.origin(of: header, path: logPath) } catch {
                    return .ignored(.init(path: path, reason: "cannot be used: \(error.message)"))
                }
            }
            return .usable(directory)
        } catch {
            return .ignored(error)
        }
    }
}
