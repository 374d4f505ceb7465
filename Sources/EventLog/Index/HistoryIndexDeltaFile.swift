/// The delta file of a log's history index, `LOG.index-delta` (docs/INDEX.md,
/// "The delta file"): the segments appended after the base (`LOG.index`),
/// each covering the records after the part before it.
///
/// A 64-byte header names the log and the base's covered record, so the file
/// extends exactly that base and no other. Then segments, one after another,
/// each behind a 40-byte entry (magic `IXSG`, first and last seq, length,
/// the segment's checksum, the entry's own). An append writes the segment's
/// bytes, syncs, then writes its entry, so a reader walking the entries sees
/// whole segments only and stops at a zero entry. Bytes of complete segments
/// are never rewritten in place: anything but an append (a merge into a new
/// base, dropping a damaged or foreign tail) writes a new file and renames
/// it over the old one, which is why readers may map the file.
enum HistoryIndexDelta {
    /// Where the delta file of the log at `logPath` lives.
    static func path(for logPath: String) -> String { logPath + ".index-delta" }

    static let magic = Array("LABELIXD".utf8)
    static let formatVersion: UInt16 = 1
    static let headerLength = 64
    static let entryMagic = Array("IXSG".utf8)
    static let entryLength = 40

    /// The header of a delta file that extends the base of `logID` covering `base`.
    static func encodeHeader(logID: LabelID, base: LogPosition?) -> [UInt8] {
        var w = ByteWriter(capacity: headerLength)
        w.bytes.append(contentsOf: magic)
        w.u16(formatVersion)
        w.u16(0)
        w.u32(UInt32(headerLength))
        w.id(logID)
        w.u64(base?.seq ?? 0)
        w.u64(UInt64(base?.offset ?? 0))
        w.u32(UInt32(base?.length ?? 0))
        w.u32(base?.checksum ?? 0)
        w.u32(0)
        w.u32(CRC32C.checksum(w.bytes))
        return w.bytes
    }

    /// The entry of `segment`, which covers seqs `first...last`.
    static func encodeEntry(first: UInt64, last: UInt64, bytes segment: [UInt8]) -> [UInt8] {
        var w = ByteWriter(capacity: entryLength)
        w.bytes.append(contentsOf: entryMagic)
        w.u32(0)
        w.u64(first)
        w.u64(last)
        w.u64(UInt64(segment.count))
        w.u32(segment.withUnsafeBytes { CRC32C.checksum($0) })
        w.u32(CRC32C.checksum(w.bytes))
        return w.bytes
    }

    /// What reading a delta file found.
    struct Contents {
        /// The segments used, in seq order, each extending the part before it.
        var segments: [HistoryIndexPart] = []
        /// The file's bytes (mapped), when it has a header that extends the base.
        var bytes: HistoryIndexBytes?
        /// Where the last segment used ends (the header's end when none).
        var end = headerLength
        /// Why the file, or its segments from some point on, are not used.
        var problem: HistoryIndexFile.Problem?
        /// Whether the file names another base than the one read (left by a merge, or read during one).
        var extendsAnotherBase = false

        /// Whether the next segment can be appended in place: the file extends
        /// the base, every segment in it is used, and nothing follows them.
        var appendable: Bool { bytes != nil && problem == nil && bytes!.raw.count == end }
    }

    /// Reads the delta file at `path` after `base`, checking each segment as
    /// ``HistoryIndexFile/load(for:wholeCheckLimit:)`` checks a base: its entry
    /// and header, that it starts right after the part before it (seq, byte
    /// offset, checksum), and that the log `reader` reads keeps its last
    /// record. Segments from the first that fails on are not used. A missing or
    /// empty file has no segments and no problem.
    static func read(path: String, base: HistoryIndexPart, reader: LogReader, wholeCheckLimit: Int) -> Contents {
        var contents = Contents()
        let bytes: HistoryIndexBytes
        do throws(EventLogError) { bytes = try HistoryIndexBytes(mapping: path) } catch {
            if error.code != .fileNotFound { contents.problem = .init(path: path, reason: "cannot be read: \(error.message)") }
            return contents
        }
        if bytes.raw.count == 0 { return contents }
        func fail(_ reason: String, at offset: Int) -> Contents {
            contents.problem = .init(path: path, reason: reason, offset: offset)
            return contents
        }
        let raw = bytes.raw
        guard raw.count >= headerLength, Array(raw[0..<8]) == magic else {
            return fail("not a history index delta file (no LABELIXD magic and 64-byte header)", at: 0)
        }
        guard CRC32C.checksum(bytes[0..<headerLength - 4]) == load(raw, headerLength - 4) else {
            return fail("the header's checksum does not match", at: headerLength - 4)
        }
        let version = UInt16(raw[8]) | UInt16(raw[9]) << 8
        guard version == formatVersion else { return fail("format version \(version) is not the one this build reads", at: 8) }
        guard raw[10] == 0, raw[11] == 0, load(raw, 12) == UInt32(headerLength), load(raw, 56) == 0 else {
            return fail("unknown flags, header length or reserved bytes", at: 10)
        }
        guard bytes[16..<32].elementsEqual(base.logID.bytes) else { return fail("it belongs to another log", at: 16) }
        let baseSeq = load64(raw, 32)
        let named =
            baseSeq == 0
            ? nil : LogPosition(seq: baseSeq, offset: Int64(load64(raw, 40)), length: Int64(load(raw, 48)), checksum: load(raw, 52))
        guard named == base.covered else {
            contents.extendsAnotherBase = true
            return fail(
                "it extends another base index (one covering \(baseSeq) records, not \(base.coveredSeq)); the next update rewrites it",
                at: 32)
        }
        contents.bytes = bytes
        var previous = base
        while contents.end + entryLength <= raw.count {
            let at = contents.end
            let entry = bytes[at..<at + entryLength]
            if entry.allSatisfy({ $0 == 0 }) { break }  // an append that did not finish
            guard entry.starts(with: entryMagic), CRC32C.checksum(bytes[at..<at + entryLength - 4]) == load(raw, at + 36),
                load(raw, at + 4) == 0
            else { return fail("the segment entry at byte offset \(at) is damaged", at: at) }
            let first = load64(raw, at + 8)
            let last = load64(raw, at + 16)
            let length = load64(raw, at + 24)
            guard first == previous.coveredSeq + 1, last >= first else {
                return fail(
                    "the segment entry at byte offset \(at) names seqs \(first)…\(last), not the ones after \(previous.coveredSeq)", at: at)
            }
            guard length <= UInt64(raw.count - at - entryLength) else {
                return fail("the file ends inside the segment of seqs \(first)…\(last)", at: at)
            }
            let start = at + entryLength
            let segmentBytes = HistoryIndexBytes(slicing: bytes, start..<start + Int(length))
            let segment: HistoryIndexPart
            do throws(HistoryIndexFile.Problem) {
                if length <= UInt64(wholeCheckLimit), CRC32C.checksum(segmentBytes.raw) != load(raw, at + 32) {
                    throw .init(path: path, reason: "the segment of seqs \(first)…\(last) does not match its checksum", offset: start)
                }
                segment = try HistoryIndexPart.decode(
                    segmentBytes, path: path, fileOffset: start, segment: true, checkingWholeBody: length <= UInt64(wholeCheckLimit))
                guard segment.logID == base.logID, segment.firstSeq == first, segment.coveredSeq == last,
                    let before = previous.covered, segment.block(0).offset == before.end,
                    segment.block(0).previousChecksum == before.checksum ?? 0
                else {
                    throw .init(
                        path: path, reason: "the segment of seqs \(first)…\(last) does not continue the part before it", offset: start)
                }
                switch try? reader.keeps(segment.covered!) {
                case .kept?: break
                case .notHeld?:
                    throw .init(
                        path: path,
                        reason:
                            "the log does not hold record \(last) where the segment of seqs \(first)…\(last) says (the log was cut or rewritten)",
                        offset: start)
                case .notKept?:
                    throw .init(path: path, reason: RecordKeeping.notKeptReason(last), offset: start)
                case nil:
                    throw .init(
                        path: path, reason: "the log could not be read to check the segment of seqs \(first)…\(last)", offset: start)
                }
            } catch {
                contents.problem = error
                return contents
            }
            contents.segments.append(segment)
            contents.end = start + Int(length)
            previous = segment
        }
        // Bytes after the last segment are an append that did not finish: not used, and the next update drops them.
        // An append writes its entry after the segment's bytes, so a file that ends inside an entry was cut short.
        if raw.count - contents.end < entryLength, !bytes[contents.end..<raw.count].allSatisfy({ $0 == 0 }) {
            contents.problem = .init(
                path: path, reason: "the file ends inside the entry at byte offset \(contents.end)", offset: contents.end)
        }
        return contents
    }

    private static func load(_ raw: UnsafeRawBufferPointer, _ offset: Int) -> UInt32 {
        UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    private static func load64(_ raw: UnsafeRawBufferPointer, _ offset: Int) -> UInt64 {
        UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }
}
