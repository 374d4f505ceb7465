import EventLog

/// A log's checkpoint file, `LOG.checkpoints` (docs/SNAPSHOTS.md,
/// "Checkpoints"): the list every ``interval`` records, so the list at any seq
/// folds only the records after the nearest checkpoint at or before it.
///
/// A cache, never trusted over the log: the header and directory are
/// checksummed, each checkpoint is a snapshot image (its own checksum, bound
/// to its record's position and chained frame checksum) plus a checksummed
/// section of removed labels, and a checkpoint is used only once the log
/// holds that record with that checksum. Anything else is reported and the
/// caller folds from an earlier checkpoint or from seq 1, with the same answer.
package enum CheckpointFile {
    /// Where the checkpoints of the log at `logPath` live.
    package static func path(for logPath: String) -> String { logPath + ".checkpoints" }

    static let magic = Array("LABELCKP".utf8)
    static let formatVersion: UInt16 = 1
    static let headerLength = 48
    /// A directory entry: seq, offset, snapshot length, removed-section length (`u64` each).
    static let entryLength = 32
    /// Records between checkpoints when `labelreplay index` writes them.
    package static let defaultInterval: UInt64 = 65_536

    /// One checkpoint's place in the file.
    package struct Entry: Sendable, Hashable {
        package var seq: UInt64
        var offset: Int
        var snapshotLength: Int
        var removedLength: Int
        var end: Int { offset + snapshotLength + removedLength }
    }

    /// The checked header and directory of a checkpoint file.
    package struct Directory: Sendable {
        package var path: String
        package var logID: LabelID
        package var interval: UInt64
        package var entries: [Entry]

        /// The bytes of checkpoint `entry` (its snapshot image and removed-labels section).
        func bytes(of entry: Entry) throws(EventLogError) -> [UInt8] {
            let file = try SystemFile.open(path, .readOnly)
            defer { file.close() }
            let bytes = try file.read(at: Int64(entry.offset), count: entry.end - entry.offset)
            guard bytes.count == entry.end - entry.offset else {
                throw EventLogError(.ioError, "the file ends inside the checkpoint at seq \(entry.seq)", path: path)
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

    /// Reads the checkpoint file of the log `reader` reads and checks its header
    /// and directory (magic, version, lengths, the checksum, the log id). The
    /// checkpoints themselves are checked when one is taken. Never throws.
    package static func load(for reader: LogReader) -> Lookup {
        let path = path(for: reader.path)
        // The header and the directory only: a checkpoint is read when it is taken.
        let bytes: [UInt8]
        let size: Int
        do throws(EventLogError) {
            let file = try SystemFile.open(path, .readOnly)
            defer { file.close() }
            size = Int(try file.size())
            let header = try file.read(at: 0, count: min(size, headerLength))
            let count =
                header.count == headerLength ? Int(header[40]) | Int(header[41]) << 8 | Int(header[42]) << 16 | Int(header[43]) << 24 : 0
            bytes = header + (try file.read(at: Int64(header.count), count: min(size - header.count, count * entryLength)))
        } catch {
            if error.code == .fileNotFound { return .missing }
            return .ignored(.init(path: path, reason: "cannot be read: \(error.message)"))
        }
        do throws(HistoryIndexFile.Problem) {
            let directory = try decodeDirectory(bytes, fileSize: size, path: path)
            guard directory.logID == reader.header.logID else {
                return .ignored(
                    .init(
                        path: path, reason: "it holds checkpoints of another log (\(directory.logID), not \(reader.header.logID))",
                        offset: 16))
            }
            return .usable(directory)
        } catch {
            return .ignored(error)
        }
    }

    /// Checks the header and directory of a checkpoint file's `bytes`.
    /// `bytes` holds the header and directory (or what there is of them) of a file of `fileSize` bytes.
    static func decodeDirectory(_ bytes: [UInt8], fileSize: Int, path: String) throws(HistoryIndexFile.Problem) -> Directory {
        func fail(_ reason: String, at offset: Int) -> HistoryIndexFile.Problem { .init(path: path, reason: reason, offset: offset) }
        guard bytes.count >= headerLength else { throw fail("shorter than the \(headerLength)-byte header (\(bytes.count) bytes)", at: 0) }
        guard Array(bytes[0..<8]) == magic else { throw fail("not a checkpoint file (no LABELCKP magic)", at: 0) }
        do {
            return try bytes.withUnsafeBytes { (raw) throws -> Directory in
                var r = ByteReader(raw, position: 8)
                let version = try r.u16()
                guard version == formatVersion else { throw fail("format version \(version) is not one this build reads (1)", at: 8) }
                guard try r.u16() == 0 else { throw fail("unknown flags", at: 10) }
                guard try r.u32() == UInt32(headerLength) else { throw fail("header length is not \(headerLength)", at: 12) }
                let logID = try r.id()
                let interval = try r.u64()
                let count = Int(try r.u32())
                let checksum = try r.u32()
                guard interval >= 1 else { throw fail("an interval of 0 records", at: 32) }
                let directoryEnd = headerLength + count * entryLength
                guard count <= (raw.count - headerLength) / entryLength else { throw fail("\(count) checkpoints run past the end", at: 40) }
                let size = UInt64(fileSize)
                guard CRC32C.checksum(Array(raw[0..<44]) + Array(raw[headerLength..<directoryEnd])) == checksum else {
                    throw fail("the header's and directory's checksum does not match", at: 44)
                }
                var entries: [Entry] = []
                var end = directoryEnd
                var previous: UInt64 = 0
                for k in 0..<count {
                    let at = headerLength + k * entryLength
                    let seq = try r.u64()
                    let offset = try r.u64()
                    let snapshot = try r.u64()
                    let removed = try r.u64()
                    guard seq > previous, offset == UInt64(end), snapshot >= 76, removed >= 5,
                        snapshot <= size, removed <= size, snapshot + removed <= size - UInt64(end)
                    else { throw fail("checkpoint \(k) (seq \(seq)) is out of order or out of place", at: at) }
                    let entry = Entry(seq: seq, offset: end, snapshotLength: Int(snapshot), removedLength: Int(removed))
                    entries.append(entry)
                    end = entry.end
                    previous = seq
                }
                guard end == fileSize else {
                    throw fail("the file is \(fileSize) bytes, the directory accounts for \(end)", at: min(end, fileSize))
                }
                return Directory(path: path, logID: logID, interval: interval, entries: entries)
            }
        } catch let problem as HistoryIndexFile.Problem {
            throw problem
        } catch {
            throw fail("the header or directory ends early", at: 0)
        }
    }

    /// The newest checkpoint at or before `seq` that belongs to the log
    /// `reader` reads (its snapshot decodes, names this log and its seq, and
    /// the log holds its record at the recorded position with the recorded
    /// chained checksum), with the problems of the newer ones that did not.
    ///
    /// - Complexity: O(size of the checkpoints tried) plus one frame read of the log each.
    package static func checkpoint(atOrBefore seq: UInt64, in directory: Directory, reader: LogReader) -> (
        checkpoint: ListCheckpoint?, problems: [HistoryIndexFile.Problem]
    ) {
        var problems: [HistoryIndexFile.Problem] = []
        for entry in directory.entries.reversed() where entry.seq <= seq {
            do throws(HistoryIndexFile.Problem) {
                return (try checkpoint(entry, in: directory, reader: reader), problems)
            } catch {
                problems.append(error)
            }
        }
        return (nil, problems)
    }

    /// Decodes and checks one checkpoint.
    static func checkpoint(_ entry: Entry, in directory: Directory, reader: LogReader) throws(HistoryIndexFile.Problem) -> ListCheckpoint {
        func fail(_ reason: String, at offset: Int? = entry.offset) -> HistoryIndexFile.Problem {
            .init(path: directory.path, reason: "the checkpoint at seq \(entry.seq) " + reason, offset: offset)
        }
        let bytes: [UInt8]
        do throws(EventLogError) { bytes = try directory.bytes(of: entry) } catch {
            throw fail("cannot be read: \(error.message)")
        }
        let decoded = bytes.withUnsafeBytes { raw in
            Result { () throws(SnapshotError) in
                try LabelList.decodeSnapshot(UnsafeRawBufferPointer(rebasing: raw[0..<entry.snapshotLength]))
            }
        }
        let list: LabelList
        let header: SnapshotHeader
        switch decoded {
        case .success(let value): (list, header) = value
        case .failure(let error): throw fail("does not decode: \(error.message)")
        }
        guard header.logID == directory.logID, header.seq == entry.seq, let position = header.logPosition, position.checksum != nil else {
            throw fail("is not the checkpoint the directory names (seq \(header.seq), log \(header.logID))")
        }
        let holds: Bool
        do throws(EventLogError) { holds = try reader.holds(position) } catch {
            throw fail("could not be checked against the log: \(error.message)", at: nil)
        }
        guard holds else {
            throw fail(
                "is of a history the log does not hold: record \(position.seq) is not at byte offset \(position.offset) with its checksum (the log was cut or rewritten)",
                at: nil)
        }
        let removed = bytes.withUnsafeBytes { raw in
            Result { () throws(SnapshotError) in try decodeRemoved(UnsafeRawBufferPointer(rebasing: raw[entry.snapshotLength...]), of: list)
            }
        }
        switch removed {
        case .success(let removed): return ListCheckpoint(list: list, position: position, removed: removed)
        case .failure(let error):
            throw fail("has a damaged removed-labels section: \(error.message)", at: entry.offset + entry.snapshotLength)
        }
    }
}
