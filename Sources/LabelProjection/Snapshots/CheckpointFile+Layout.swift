import EventLog

/// The bytes of `LOG.checkpoints`, format version 5 (docs/SNAPSHOTS.md,
/// "Layout"): a checksummed header, then blocks appended one after another —
/// checkpoints (full images or deltas) and removal blocks — each behind a
/// fixed-size checksummed entry. The file is read by walking the entries from the header on; it ends
/// at the first entry that is all zero or missing (an append that did not
/// finish: its entries are written last) or that does not check out
/// (reported as the file's tail).
extension CheckpointFile {
    /// The header's bytes.
    static func encodeHeader(logID: LabelID, interval: UInt64, firstSeq: UInt64) -> [UInt8] {
        var w = ByteWriter(capacity: headerLength)
        w.bytes.append(contentsOf: magic)
        w.u16(formatVersion)
        w.u16(0)
        w.u32(UInt32(headerLength))
        w.id(logID)
        w.u64(interval)
        w.u64(firstSeq)
        w.u32(0)
        w.u32(CRC32C.checksum(w.bytes))
        return w.bytes
    }

    /// An entry's bytes: its kind's magic, flags (``deltaFlag``), seq, the
    /// length of the body behind it, a count (a checkpoint: the removals
    /// before it; a removal block: its entries), the CRC-32C of the body, then
    /// the entry's own CRC-32C.
    static func encodeEntry(magic: [UInt8], flags: UInt32 = 0, seq: UInt64, length: Int, count: UInt64, checksum: UInt32) -> [UInt8] {
        var w = ByteWriter(capacity: entryLength)
        w.bytes.append(contentsOf: magic)
        w.u32(flags)
        w.u64(seq)
        w.u64(UInt64(length))
        w.u64(count)
        w.u32(checksum)
        w.u32(CRC32C.checksum(w.bytes))
        return w.bytes
    }

    /// Checks a header's `bytes` (all of them, or what the file has): returns the log id, interval and first seq.
    static func decodeHeader(_ bytes: [UInt8], path: String) throws(HistoryIndexFile.Problem) -> (
        logID: LabelID, interval: UInt64, firstSeq: UInt64
    ) {
        func fail(_ reason: String, at offset: Int) -> HistoryIndexFile.Problem { .init(path: path, reason: reason, offset: offset) }
        guard bytes.count >= 10 else { throw fail("shorter than the \(headerLength)-byte header (\(bytes.count) bytes)", at: 0) }
        guard Array(bytes[0..<8]) == magic else { throw fail("not a checkpoint file (no LABELCKP magic)", at: 0) }
        let version = UInt16(bytes[8]) | UInt16(bytes[9]) << 8
        guard version >= formatVersion else {
            throw fail(
                "format version \(version), which this build no longer reads; the next update (labelreplay index) rewrites it as version \(formatVersion)",
                at: 8)
        }
        guard version == formatVersion else {
            throw fail("format version \(version) is not one this build reads (\(formatVersion))", at: 8)
        }
        guard bytes.count >= headerLength else { throw fail("shorter than the \(headerLength)-byte header (\(bytes.count) bytes)", at: 0) }
        let decoded = bytes.withUnsafeBytes { raw in
            Result { () throws(DecodeFailure) in
                var r = ByteReader(raw, position: 10)
                return (try r.u16(), try r.u32(), try r.id(), try r.u64(), try r.u64(), try r.u32(), try r.u32())
            }
        }
        guard case .success(let (flags, length, logID, interval, firstSeq, reserved, checksum)) = decoded else {
            throw fail("the header ends early", at: 0)
        }
        guard CRC32C.checksum(bytes[0..<(headerLength - 4)]) == checksum else {
            throw fail("the header's checksum does not match", at: headerLength - 4)
        }
        guard flags == 0 else { throw fail("unknown flags", at: 10) }
        guard length == UInt32(headerLength) else { throw fail("header length is not \(headerLength)", at: 12) }
        guard interval >= 1 else { throw fail("an interval of 0 records", at: 32) }
        guard firstSeq >= 1, firstSeq <= LabelList.Slot.seqMask else { throw fail("an impossible first seq (\(firstSeq))", at: 40) }
        guard reserved == 0 else { throw fail("reserved bytes are not zero", at: 48) }
        return (logID, interval, firstSeq)
    }

    /// A block's entry, decoded: a checkpoint's or a removal block's.
    enum Block {
        case checkpoint(Entry)
        case removals(RemovalBlock)

        var end: Int {
            switch self {
            case .checkpoint(let entry): entry.end
            case .removals(let block): block.end
            }
        }
        var description: String {
            switch self {
            case .checkpoint(let entry): "the checkpoint at seq \(entry.seq)"
            case .removals(let block): "the removal block up to seq \(block.seq)"
            }
        }
    }

    /// Checks the entry `bytes` (``entryLength`` of them) at byte offset
    /// `start`, after a checkpoint at seq `lastCheckpoint` (`nil`: none; the
    /// first checkpoint must be after `firstSeq − 1`) and a removal block up to
    /// seq `lastRemovals` (0: none), with `removals` removals and `blocks`
    /// removal blocks before it.
    static func decodeEntry(
        _ bytes: [UInt8], at start: Int, lastCheckpoint: UInt64?, lastRemovals: UInt64, removals: UInt64, blocks: Int, firstSeq: UInt64,
        path: String
    ) throws(HistoryIndexFile.Problem) -> Block {
        func fail(_ reason: String) -> HistoryIndexFile.Problem {
            .init(path: path, reason: "the entry at byte offset \(start) " + reason, offset: start)
        }
        let decoded = bytes.withUnsafeBytes { raw in
            Result { () throws(DecodeFailure) in
                var r = ByteReader(raw, position: 4)
                return (try r.u32(), try r.u64(), try r.u64(), try r.u64(), try r.u32(), try r.u32())
            }
        }
        let magic = Array(bytes.prefix(4))
        guard bytes.count == entryLength, magic == checkpointMagic || magic == removalsMagic,
            case .success(let (flags, seq, length, count, checksum, own)) = decoded
        else { throw fail("is not one (no CKPT or RMVD magic)") }
        guard CRC32C.checksum(bytes[0..<(entryLength - 4)]) == own else { throw fail("is damaged (its checksum does not match)") }
        guard flags & ~(magic == checkpointMagic ? deltaFlag : 0) == 0 else { throw fail("has unknown flags") }
        let after = lastCheckpoint ?? (firstSeq - 1)
        guard seq > after, seq >= lastRemovals else {
            throw fail(
                "names seq \(seq), not after the checkpoint (seq \(after)) and removals (up to seq \(lastRemovals)) before it")
        }
        guard length <= UInt64(Int.max / 4) else { throw fail("gives an impossible length (\(length) bytes)") }
        if magic == removalsMagic {
            guard seq > lastRemovals, count >= 1, count <= length / 30 else {
                throw fail("is a removal block up to seq \(seq) of \(count) removals in \(length) bytes, which cannot be")
            }
            return .removals(RemovalBlock(seq: seq, offset: start + entryLength, length: Int(length), count: count, checksum: checksum))
        }
        guard length >= UInt64(76 + hashLength * seq.nonzeroBitCount) else {
            throw fail("is a checkpoint of \(length) bytes, too short for an image and the tree's frontier")
        }
        guard count == removals else {
            throw fail("counts \(count) removals before seq \(seq), but the removal blocks before it hold \(removals)")
        }
        let isDelta = flags & deltaFlag != 0
        guard !isDelta || lastCheckpoint != nil else { throw fail("is a delta at seq \(seq) with no checkpoint before it to apply to") }
        return .checkpoint(
            Entry(
                seq: seq, offset: start + entryLength, length: Int(length), removalCount: count, checksum: checksum, blocksBefore: blocks,
                isDelta: isDelta))
    }

    /// Reads and checks the header of the open checkpoint file `file` and walks its entries.
    ///
    /// - Throws: the header's problem (the file is not used).
    /// - Complexity: one read of the header and one of each entry.
    static func readDirectory(_ file: SystemFile, path: String) throws(HistoryIndexFile.Problem) -> Directory {
        func fail(_ reason: String, at offset: Int) -> HistoryIndexFile.Problem { .init(path: path, reason: reason, offset: offset) }
        var size: Int
        let header: [UInt8]
        do throws(EventLogError) {
            size = Int(try file.size())
            header = try file.read(at: 0, count: min(size, headerLength))
        } catch {
            throw fail("cannot be read: \(error.message)", at: 0)
        }
        let (logID, interval, firstSeq) = try decodeHeader(header, path: path)
        var entries: [Entry] = []
        var removals: [RemovalBlock] = []
        var removalCount: UInt64 = 0
        var tail: HistoryIndexFile.Problem?
        var at = headerLength
        while at < size, tail == nil {
            do {
                let bytes = try file.read(at: Int64(at), count: min(entryLength, size - at))
                // Not written yet, or never: an append writes its entries last.
                if bytes.allSatisfy({ $0 == 0 }) { break }
                guard bytes.count == entryLength else {
                    tail = fail("the file ends inside the entry at byte offset \(at)", at: at)
                    break
                }
                let block = try decodeEntry(
                    bytes, at: at, lastCheckpoint: entries.last?.seq, lastRemovals: removals.last?.seq ?? 0, removals: removalCount,
                    blocks: removals.count, firstSeq: firstSeq, path: path)
                // An append that ran on meanwhile may have made the file longer.
                if block.end > size { size = Int(try file.size()) }
                guard block.end <= size else {
                    tail = fail("the file ends inside \(block.description) (before byte \(block.end))", at: size)
                    break
                }
                switch block {
                case .checkpoint(let entry): entries.append(entry)
                case .removals(let removal):
                    removals.append(removal)
                    removalCount += removal.count
                }
                at = block.end
            } catch let error as HistoryIndexFile.Problem {
                tail = error
            } catch let error as EventLogError {
                tail = fail("cannot be read: \(error.message)", at: at)
            } catch {
                tail = fail("cannot be read: \(error)", at: at)
            }
        }
        // Removal blocks after the last checkpoint belong to none yet (an append cut short): the next update cuts them.
        removals = Array(removals.prefix(entries.last?.blocksBefore ?? 0))
        return Directory(
            path: path, logID: logID, interval: interval, firstSeq: firstSeq, entries: entries, removals: removals, tail: tail, origin: nil)
    }
}
