import Foundation

/// The byte layout of a history index's base file and of each segment of its
/// delta file (docs/INDEX.md), format version 2: a checksummed 128-byte header
/// naming the log, the last record covered (and, in a segment, how many
/// records it covers) and the sections' checksums; then the blocks, the
/// records' offsets, the label fences and directory, the actors, and the seq
/// lists — read in place, each part checked against its own checksum before
/// it is used.
extension HistoryIndexPart {
    static let magic = Array("LABELIDX".utf8)
    static let formatVersion: UInt16 = 2
    static let headerLength = 128
    /// Header flag bit 0: the index covers at least one record (`covered` is set).
    static let coversRecords: UInt16 = 1
    /// Header flag bit 1: a segment of the delta file (its record count is in bytes 120–123).
    static let segmentFlag: UInt16 = 2
    /// Header flag bit 2: the base of a based log's index, from its first seq (the record count is in bytes 120–123).
    static let basedFlag: UInt16 = 4
    /// A block entry: offset `u64`, previous checksum `u32`, min and max time `i64`, record offsets' checksum `u32`.
    static let blockEntryLength = 32
    /// A label fence: the first id of a chunk of the directory (16 bytes), the chunk's checksum `u32`.
    static let fenceEntryLength = 20
    /// A label directory entry: id (16 bytes), seq list offset `u64`, length `u32`, checksum `u32`.
    static let labelEntryLength = 32

    /// Checks a part's header and its small sections (blocks, fences, actors)
    /// and returns the part read in place from `bytes` (a whole base file, or
    /// one segment that starts at byte `fileOffset` of the delta file; a base
    /// must not have the segment flag, a segment must); `path` names the file
    /// in problems. The label directory's chunks, the
    /// seq lists and the records' offsets are checked when they are read; with
    /// `checkingWholeBody`, the checksum of everything after the header is
    /// checked too (then damage anywhere is found now).
    ///
    /// - Throws: ``HistoryIndexFile/Problem`` saying what is wrong and at which byte offset.
    /// - Complexity: O(blocks + labels / 256 + actors), or O(file size) when checking the whole body.
    static func decode(
        _ bytes: HistoryIndexBytes, path: String, fileOffset: Int = 0, segment: Bool = false, checkingWholeBody: Bool
    ) throws(HistoryIndexFile.Problem) -> HistoryIndexPart {
        let raw = bytes.raw
        guard raw.count >= 16 else {
            throw HistoryIndexFile.Problem(path: path, reason: "shorter than a header (\(raw.count) bytes)", offset: fileOffset)
        }
        guard Array(raw[0..<8]) == magic else {
            throw HistoryIndexFile.Problem(path: path, reason: "not a history index (no LABELIDX magic)", offset: fileOffset)
        }
        do throws(DecodeFailure) {
            var header = ByteReader(raw, position: 8)
            let version = try header.u16()
            guard version == formatVersion else {
                throw DecodeFailure(
                    "format version \(version) is not the one this build reads (\(formatVersion)); 'labelreplay index' rebuilds it", at: 8)
            }
            guard raw.count >= headerLength else { throw DecodeFailure("shorter than the \(headerLength)-byte header", at: 0) }
            guard CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[0..<headerLength - 4])) == loadU32(raw, headerLength - 4) else {
                throw DecodeFailure("the header's checksum does not match", at: headerLength - 4)
            }
            let flags = try header.u16()
            guard flags & ~(coversRecords | segmentFlag | basedFlag) == 0, flags & segmentFlag == 0 || flags & basedFlag == 0 else {
                throw DecodeFailure("unknown flags \(flags)", at: 10)
            }
            let based = flags & basedFlag != 0
            guard (flags & segmentFlag != 0) == segment else {
                throw DecodeFailure(
                    segment ? "a base index where a segment belongs" : "a segment of a delta file, not a base index", at: 10)
            }
            guard try header.u32() == UInt32(headerLength) else { throw DecodeFailure("header length is not \(headerLength)", at: 12) }
            let logID = try header.id()
            let seq = try header.u64()
            let offset = try header.u64()
            let length = try header.u32()
            let checksum = try header.u32()
            let fileLength = try header.u64()
            let labelCount = try header.u64()
            let actorsLength = try header.u64()
            let listsLength = try header.u64()
            let reorders = ListRef(offset: try header.u64(), length: try header.u32(), checksum: try header.u32())
            let blocksChecksum = try header.u32()
            let fencesChecksum = try header.u32()
            let actorsChecksum = try header.u32()
            let bodyChecksum = try header.u32()
            let segmentRecords = try header.u32()
            guard segment || based || segmentRecords == 0 else { throw DecodeFailure("the reserved word is not 0", at: 120) }
            guard fileLength == UInt64(raw.count) else {
                throw DecodeFailure("the file is \(raw.count) bytes, the header says \(fileLength)", at: 56)
            }
            var covered: LogPosition?
            if flags & coversRecords != 0 {
                guard seq >= 1, offset <= UInt64(Int64.max) else { throw DecodeFailure("covered seq \(seq) at offset \(offset)", at: 32) }
                covered = LogPosition(seq: seq, offset: Int64(offset), length: Int64(length), checksum: checksum)
            } else if (seq != 0 && !based) || segment || segmentRecords != 0 {
                throw DecodeFailure("covered seq \(seq) without the flag that says it covers records", at: 32)
            }
            // A segment, or a based log's base, covers its last `segmentRecords` seqs (an empty based
            // base none: its covered seq is the one before the log's first); a base from seq 1.
            let counted = covered != nil && (segmentRecords >= 1 && UInt64(segmentRecords) < seq)
            guard !segment || counted, !based || counted || (covered == nil && seq >= 1) else {
                throw DecodeFailure("a part of \(segmentRecords) records up to seq \(seq)", at: 120)
            }
            let firstSeq = segment || based ? seq - UInt64(segmentRecords) + 1 : 1
            let records = seq + 1 - firstSeq
            // The sections' sizes follow from the counts; together they must be the file.
            guard records <= fileLength / 4 else { throw DecodeFailure("\(records) records in \(fileLength) bytes", at: 32) }
            let blockCount = records == 0 ? 0 : (seq - 1) / blockSize - (firstSeq - 1) / blockSize + 1
            guard labelCount <= records, actorsLength <= fileLength, listsLength <= fileLength else {
                throw DecodeFailure("\(labelCount) labels for \(records) records", at: 64)
            }
            let fenceCount = (Int(labelCount) + chunkSize - 1) / chunkSize
            let sizes = [
                Int(blockCount) * blockEntryLength, Int(records) * 4, fenceCount * fenceEntryLength, Int(labelCount) * labelEntryLength
            ]
            var starts = [headerLength]
            for size in sizes { starts.append(starts.last! + size) }
            guard UInt64(starts.last!) + actorsLength + listsLength == fileLength else {
                throw DecodeFailure("the sections the header describes are not the file's \(fileLength) bytes", at: 56)
            }
            if checkingWholeBody {
                guard CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[headerLength...])) == bodyChecksum else {
                    throw DecodeFailure("the body's checksum does not match", at: headerLength)
                }
            }
            let layout = Layout(
                blockCount: Int(blockCount), blocksStart: starts[0], offsetsStart: starts[1], fenceCount: fenceCount,
                fencesStart: starts[2], labelCount: Int(labelCount), labelsStart: starts[3],
                listsStart: starts[4] + Int(actorsLength), listsLength: Int(listsLength))
            try checkBlocks(raw, layout, checksum: blocksChecksum)
            try checkFences(raw, layout, checksum: fencesChecksum)
            let actors = try decodeActors(
                UnsafeRawBufferPointer(rebasing: raw[starts[4]..<layout.listsStart]), at: starts[4], checksum: actorsChecksum,
                records: records)
            return HistoryIndexPart(
                logID: logID, firstSeq: firstSeq, covered: covered, path: path, bytes: bytes, fileOffset: fileOffset, layout: layout,
                actorLists: actors, reordersList: reorders)
        } catch {
            let reason = segment ? "the segment at byte offset \(fileOffset): \(error.reason)" : error.reason
            throw HistoryIndexFile.Problem(path: path, reason: reason, offset: error.offset.map { $0 + fileOffset })
        }
    }

    private static func loadU32(_ raw: UnsafeRawBufferPointer, _ offset: Int) -> UInt32 {
        UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    /// The blocks: their checksum, offsets past the log's header and never
    /// decreasing (two pieces can start in one batch frame, format 4: a
    /// segment's partial first piece and the next), time ranges not negative.
    private static func checkBlocks(_ raw: UnsafeRawBufferPointer, _ layout: Layout, checksum: UInt32) throws(DecodeFailure) {
        let section = UnsafeRawBufferPointer(rebasing: raw[layout.blocksStart..<layout.offsetsStart])
        guard CRC32C.checksum(section) == checksum else {
            throw DecodeFailure("the blocks' checksum does not match", at: layout.blocksStart)
        }
        var reader = ByteReader(section)
        var previousOffset = Int64(LogFormat.headerLength)
        for k in 0..<layout.blockCount {
            let entry = layout.blocksStart + reader.position
            let offset = Int64(bitPattern: try reader.u64())
            _ = try reader.u32()
            let minTime = Int64(bitPattern: try reader.u64())
            let maxTime = Int64(bitPattern: try reader.u64())
            _ = try reader.u32()
            guard offset >= previousOffset else {
                throw DecodeFailure(
                    k == 0 ? "block 0 starts inside the log's header" : "block \(k) starts before block \(k - 1)", at: entry)
            }
            guard maxTime >= minTime else { throw DecodeFailure("block \(k)'s time range is negative", at: entry) }
            previousOffset = offset
        }
    }

    /// The label fences: their checksum, first ids strictly ascending.
    private static func checkFences(_ raw: UnsafeRawBufferPointer, _ layout: Layout, checksum: UInt32) throws(DecodeFailure) {
        let section = UnsafeRawBufferPointer(rebasing: raw[layout.fencesStart..<layout.labelsStart])
        guard CRC32C.checksum(section) == checksum else {
            throw DecodeFailure("the label fences' checksum does not match", at: layout.fencesStart)
        }
        for c in 1..<max(layout.fenceCount, 1) {
            let at = c * fenceEntryLength
            guard memcmp(section.baseAddress! + at - fenceEntryLength, section.baseAddress! + at, 16) < 0 else {
                throw DecodeFailure("the label fences are not in ascending order", at: layout.fencesStart + at)
            }
        }
    }

    /// The actors section: its checksum, then each actor once (none first, then ascending) with its seq list.
    private static func decodeActors(_ section: UnsafeRawBufferPointer, at start: Int, checksum: UInt32, records: UInt64)
        throws(DecodeFailure) -> [String?: ListRef]
    {
        guard CRC32C.checksum(section) == checksum else { throw DecodeFailure("the actors' checksum does not match", at: start) }
        var reader = ByteReader(section)
        let count = try reader.varint()
        guard count <= records else { throw DecodeFailure("\(count) actors for \(records) records", at: start) }
        var actors: [String?: ListRef] = [:]
        for _ in 0..<count {
            let entry = start + reader.position
            let actor: String?
            switch try reader.u8() {
            case 0: actor = nil
            case 1: actor = try reader.text(maxBytes: LogLimits.maxActorBytes, what: "actor").string
            default: throw DecodeFailure("an actor entry's tag is neither 0 nor 1", at: entry)
            }
            guard actors[actor] == nil else { throw DecodeFailure("an actor is listed twice", at: entry) }
            actors[actor] = ListRef(offset: try reader.u64(), length: try reader.u32(), checksum: try reader.u32())
        }
        guard reader.isAtEnd else { throw DecodeFailure("\(reader.remaining) bytes after the actors", at: start + reader.position) }
        return actors
    }
}
