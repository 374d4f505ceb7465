import EventLog

/// The bytes of `LOG.checkpoints`, format version 2 (docs/SNAPSHOTS.md,
/// "Layout"): a checksummed header, then checkpoints appended one after
/// another, each behind a fixed-size checksummed entry. The file is read by
/// walking the entries from the header on; it ends at the first entry that is
/// all zero or missing (an append that did not finish: its entry is written
/// last) or that does not check out (reported as the file's tail).
extension CheckpointFile {
    /// The header's bytes.
    static func encodeHeader(logID: LabelID, interval: UInt64) -> [UInt8] {
        var w = ByteWriter(capacity: headerLength)
        w.bytes.append(contentsOf: magic)
        w.u16(formatVersion)
        w.u16(0)
        w.u32(UInt32(headerLength))
        w.id(logID)
        w.u64(interval)
        w.u32(0)
        w.u32(CRC32C.checksum(w.bytes))
        return w.bytes
    }

    /// An entry's bytes: seq, the lengths of the snapshot image and the
    /// removed-labels section behind it, the CRC-32C of those bytes, then the
    /// entry's own CRC-32C.
    static func encodeEntry(seq: UInt64, snapshotLength: Int, removedLength: Int, checksum: UInt32) -> [UInt8] {
        var w = ByteWriter(capacity: entryLength)
        w.bytes.append(contentsOf: entryMagic)
        w.u32(0)
        w.u64(seq)
        w.u64(UInt64(snapshotLength))
        w.u64(UInt64(removedLength))
        w.u32(checksum)
        w.u32(CRC32C.checksum(w.bytes))
        return w.bytes
    }

    /// Checks a header's `bytes` (all of them, or what the file has): returns the log id and interval.
    static func decodeHeader(_ bytes: [UInt8], path: String) throws(HistoryIndexFile.Problem) -> (logID: LabelID, interval: UInt64) {
        func fail(_ reason: String, at offset: Int) -> HistoryIndexFile.Problem { .init(path: path, reason: reason, offset: offset) }
        guard bytes.count >= 10 else { throw fail("shorter than the \(headerLength)-byte header (\(bytes.count) bytes)", at: 0) }
        guard Array(bytes[0..<8]) == magic else { throw fail("not a checkpoint file (no LABELCKP magic)", at: 0) }
        let version = UInt16(bytes[8]) | UInt16(bytes[9]) << 8
        guard version != 1 else {
            throw fail(
                "format version 1, which this build no longer reads; the next update (labelreplay index) rewrites it as version 2", at: 8)
        }
        guard version == formatVersion else { throw fail("format version \(version) is not one this build reads (2)", at: 8) }
        guard bytes.count >= headerLength else { throw fail("shorter than the \(headerLength)-byte header (\(bytes.count) bytes)", at: 0) }
        let decoded = bytes.withUnsafeBytes { raw in
            Result { () throws(DecodeFailure) in
                var r = ByteReader(raw, position: 10)
                return (try r.u16(), try r.u32(), try r.id(), try r.u64(), try r.u32(), try r.u32())
            }
        }
        guard case .success(let (flags, length, logID, interval, reserved, checksum)) = decoded else {
            throw fail("the header ends early", at: 0)
        }
        guard CRC32C.checksum(bytes[0..<44]) == checksum else { throw fail("the header's checksum does not match", at: 44) }
        guard flags == 0 else { throw fail("unknown flags", at: 10) }
        guard length == UInt32(headerLength) else { throw fail("header length is not \(headerLength)", at: 12) }
        guard interval >= 1 else { throw fail("an interval of 0 records", at: 32) }
        guard reserved == 0 else { throw fail("reserved bytes are not zero", at: 40) }
        return (logID, interval)
    }

    /// Checks the entry `bytes` (``entryLength`` of them) at byte offset `start`, after a checkpoint at seq `previous`.
    static func decodeEntry(_ bytes: [UInt8], at start: Int, after previous: UInt64, path: String) throws(HistoryIndexFile.Problem)
        -> Entry
    {
        func fail(_ reason: String) -> HistoryIndexFile.Problem {
            .init(path: path, reason: "the checkpoint entry at byte offset \(start) " + reason, offset: start)
        }
        let decoded = bytes.withUnsafeBytes { raw in
            Result { () throws(DecodeFailure) in
                var r = ByteReader(raw, position: 4)
                return (try r.u32(), try r.u64(), try r.u64(), try r.u64(), try r.u32(), try r.u32())
            }
        }
        guard bytes.count == entryLength, Array(bytes[0..<4]) == entryMagic,
            case .success(let (flags, seq, snapshot, removed, checksum, own)) = decoded
        else { throw fail("is not one (no CKPT magic)") }
        guard CRC32C.checksum(bytes[0..<(entryLength - 4)]) == own else { throw fail("is damaged (its checksum does not match)") }
        guard flags == 0 else { throw fail("has unknown flags") }
        guard seq > previous else { throw fail("names seq \(seq), not after the checkpoint before it (seq \(previous))") }
        guard snapshot >= 76, removed >= 5, snapshot <= UInt64(Int.max / 4), removed <= UInt64(Int.max / 4) else {
            throw fail("gives impossible lengths (\(snapshot) and \(removed) bytes)")
        }
        return Entry(seq: seq, offset: start + entryLength, snapshotLength: Int(snapshot), removedLength: Int(removed), checksum: checksum)
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
        let (logID, interval) = try decodeHeader(header, path: path)
        var entries: [Entry] = []
        var tail: HistoryIndexFile.Problem?
        var at = headerLength
        while at < size, tail == nil {
            do {
                let bytes = try file.read(at: Int64(at), count: min(entryLength, size - at))
                // Not written yet, or never: an append writes its entry last.
                if bytes.allSatisfy({ $0 == 0 }) { break }
                guard bytes.count == entryLength else {
                    tail = fail("the file ends inside the checkpoint entry at byte offset \(at)", at: at)
                    break
                }
                let entry = try decodeEntry(bytes, at: at, after: entries.last?.seq ?? 0, path: path)
                // An append that ran on meanwhile may have made the file longer.
                if entry.end > size { size = Int(try file.size()) }
                guard entry.end <= size else {
                    tail = fail("the file ends inside the checkpoint at seq \(entry.seq) (bytes \(entry.offset) to \(entry.end))", at: size)
                    break
                }
                entries.append(entry)
                at = entry.end
            } catch let error as HistoryIndexFile.Problem {
                tail = error
            } catch let error as EventLogError {
                tail = fail("cannot be read: \(error.message)", at: at)
            } catch {
                tail = fail("cannot be read: \(error)", at: at)
            }
        }
        return Directory(path: path, logID: logID, interval: interval, entries: entries, tail: tail)
    }
}
