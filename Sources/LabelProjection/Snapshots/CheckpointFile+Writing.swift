import EventLog

/// Writing a log's checkpoint file: extending it with the records appended
/// since its newest usable checkpoint, or building it from seq 1.
extension CheckpointFile {
    /// What ``update(logPath:rebuild:interval:progress:)`` did.
    package struct Update: Sendable {
        /// The checkpoints' seqs, as written.
        package var seqs: [UInt64]
        /// The file's size in bytes.
        package var byteCount: Int
        /// What was there before.
        package var previous: Lookup
        /// A usable checkpoint that was extended from (`nil`: built from seq 1).
        package var extendedFrom: UInt64?
        /// Why the newest checkpoints there before were dropped, if some were.
        package var dropped: [HistoryIndexFile.Problem]
        /// The record that does not fold, if the log contradicts itself (no checkpoint is written after it).
        package var foldFailure: String?
    }

    /// Brings the checkpoints of the log at `logPath` up to date and writes
    /// the file atomically and durably: a usable file with the same interval
    /// is extended from its newest checkpoint that belongs to the log;
    /// otherwise (missing, ignored, another interval, or `rebuild`) the list
    /// is folded from seq 1. A checkpoint is taken after every record whose
    /// seq is a multiple of `interval`. Reads the log without locking it.
    ///
    /// - Throws: ``EventLogError`` when the log cannot be read (damage, I/O) or the file
    ///   cannot be written (the old one, if any, is unchanged).
    /// - Complexity: O(records folded) plus O(checkpoint size) per checkpoint written.
    package static func update(
        logPath: String, rebuild: Bool = false, interval: UInt64 = defaultInterval, progress: ((UInt64) -> Void)? = nil
    ) throws -> Update {
        let reader = try LogReader(path: logPath)
        let previous = load(for: reader)
        var parts: [(seq: UInt64, snapshot: ArraySlice<UInt8>, removed: ArraySlice<UInt8>)] = []
        var list = LabelList()
        var removed: [LabelID: RemovedLabel] = [:]
        var dropped: [HistoryIndexFile.Problem] = []
        var extendedFrom: UInt64?
        if !rebuild, let directory = previous.directory, directory.interval == interval {
            let found = checkpoint(atOrBefore: .max, in: directory, reader: reader)
            dropped = found.problems
            if let start = found.checkpoint {
                for entry in directory.entries where entry.seq <= start.position.seq {
                    let bytes = try directory.bytes(of: entry)
                    parts.append((entry.seq, bytes[..<entry.snapshotLength], bytes[entry.snapshotLength...]))
                }
                list = start.list
                removed = start.removed
                extendedFrom = start.position.seq
                try reader.seek(
                    toSeq: start.position.seq + 1, atOffset: start.position.end, previousChecksum: start.position.checksum ?? 0)
            }
        }
        var foldFailure: String?
        do {
            try reader.forEachView(from: reader.nextSeq) { view in
                if case .removed(let id, _, let title, let isEnabled) = view.event {
                    removed[id] = RemovedLabel(title: title.string, isEnabled: isEnabled)
                }
                do throws(ProjectionError) {
                    try list.replay(view)
                } catch {
                    let offset = reader.lastPosition?.offset ?? 0
                    foldFailure = "record seq \(view.seq) at byte offset \(offset) contradicts the records before it: \(error.message)"
                    throw error
                }
                if view.seq % interval == 0, let position = reader.lastPosition {
                    parts.append(
                        (
                            view.seq, ArraySlice(list.snapshotBytes(logID: reader.header.logID, fingerprint: 0, logPosition: position)),
                            ArraySlice(encodeRemoved(removed, of: list))
                        ))
                }
                if view.seq % 4_096 == 0 { progress?(view.seq) }
            }
        } catch is ProjectionError {
        }
        let bytes = encodeFile(logID: reader.header.logID, interval: interval, parts: parts)
        try SystemFile.writeAtomically(bytes, to: path(for: logPath))
        return Update(
            seqs: parts.map(\.seq), byteCount: bytes.count, previous: previous, extendedFrom: extendedFrom, dropped: dropped,
            foldFailure: foldFailure)
    }

    /// The file's bytes: header, directory, then each checkpoint's snapshot image and removed-labels section.
    static func encodeFile(
        logID: LabelID, interval: UInt64, parts: [(seq: UInt64, snapshot: ArraySlice<UInt8>, removed: ArraySlice<UInt8>)]
    ) -> [UInt8] {
        var header = ByteWriter(capacity: headerLength + parts.count * entryLength)
        header.bytes.append(contentsOf: magic)
        header.u16(formatVersion)
        header.u16(0)
        header.u32(UInt32(headerLength))
        header.id(logID)
        header.u64(interval)
        header.u32(UInt32(parts.count))
        var directory = ByteWriter(capacity: parts.count * entryLength)
        var offset = headerLength + parts.count * entryLength
        for part in parts {
            directory.u64(part.seq)
            directory.u64(UInt64(offset))
            directory.u64(UInt64(part.snapshot.count))
            directory.u64(UInt64(part.removed.count))
            offset += part.snapshot.count + part.removed.count
        }
        header.u32(CRC32C.checksum(header.bytes + directory.bytes))
        var out = header.bytes + directory.bytes
        out.reserveCapacity(offset)
        for part in parts {
            out.append(contentsOf: part.snapshot)
            out.append(contentsOf: part.removed)
        }
        return out
    }
}
