import Foundation

/// The byte layout of a history index file (docs/INDEX.md): a 72-byte header
/// naming the log and the last record covered, then a checksummed body —
/// fixed-size block entries, a sorted label directory, the actors, and the
/// seq lists they point into — read in place by ``HistoryIndex``.
extension HistoryIndex {
    static let magic = Array("LABELIDX".utf8)
    static let formatVersion: UInt16 = 1
    static let headerLength = 72
    /// Header flag bit 0: the index covers at least one record (`covered` is set).
    static let coversRecords: UInt16 = 1
    /// A block entry: offset `u64`, previous checksum `u32`, min and max time `i64`.
    static let blockEntryLength = 28
    /// A label directory entry: id (16 bytes), seq list offset `u64`.
    static let labelEntryLength = 24

    /// Decodes and checks a history index file's bytes; `path` names the file in errors.
    /// Every offset, count and seq list is checked here, so reading the
    /// result in place cannot fail.
    ///
    /// - Throws: ``HistoryIndexFile/Problem`` saying what is wrong and at which byte offset.
    /// - Complexity: O(file size): one checksum and one pass over the seq lists, with no allocation per list.
    static func decode(_ raw: UnsafeRawBufferPointer, path: String) throws(HistoryIndexFile.Problem) -> HistoryIndex {
        guard raw.count >= headerLength else {
            throw HistoryIndexFile.Problem(
                path: path, reason: "shorter than the \(headerLength)-byte header (\(raw.count) bytes)", offset: 0)
        }
        guard Array(raw[0..<8]) == magic else {
            throw HistoryIndexFile.Problem(path: path, reason: "not a history index (no LABELIDX magic)", offset: 0)
        }
        var header = ByteReader(raw, position: 8)
        do throws(DecodeFailure) {
            let version = try header.u16()
            guard version == formatVersion else {
                throw DecodeFailure("format version \(version) is not one this build reads (\(formatVersion))", at: 8)
            }
            let flags = try header.u16()
            guard flags & ~coversRecords == 0 else { throw DecodeFailure("unknown flags \(flags)", at: 10) }
            guard try header.u32() == UInt32(headerLength) else { throw DecodeFailure("header length is not \(headerLength)", at: 12) }
            let logID = try header.id()
            let seq = try header.u64()
            let offset = try header.u64()
            let length = try header.u32()
            let checksum = try header.u32()
            let bodyLength = try header.u64()
            let bodyChecksum = try header.u32()
            _ = try header.u32()
            guard bodyLength == UInt64(raw.count - headerLength) else {
                throw DecodeFailure("the body is \(raw.count - headerLength) bytes, the header says \(bodyLength)", at: 56)
            }
            let body = UnsafeRawBufferPointer(rebasing: raw[headerLength...])
            guard CRC32C.checksum(body) == bodyChecksum else { throw DecodeFailure("the body's checksum does not match", at: headerLength) }
            var covered: LogPosition?
            if flags & coversRecords != 0 {
                guard seq >= 1, offset <= UInt64(Int64.max) else { throw DecodeFailure("covered seq \(seq) at offset \(offset)", at: 32) }
                covered = LogPosition(seq: seq, offset: Int64(offset), length: Int64(length), checksum: checksum)
            } else if seq != 0 {
                throw DecodeFailure("covered seq \(seq) without the flag that says it covers records", at: 32)
            }
            let (layout, actors) = try checkBody(body, coveredSeq: covered?.seq ?? 0)
            return HistoryIndex(logID: logID, covered: covered, body: Array(body), layout: layout, actorLists: actors)
        } catch {
            throw HistoryIndexFile.Problem(path: path, reason: error.reason, offset: error.offset)
        }
    }

    /// Checks the body's sections and seq lists; returns where they are.
    private static func checkBody(_ body: UnsafeRawBufferPointer, coveredSeq last: UInt64) throws(DecodeFailure) -> (Layout, [String?: Int])
    {
        var reader = ByteReader(body)
        let at = { (position: Int) in position + headerLength }  // offsets in errors are offsets in the file
        let blockCount = try reader.u64()
        guard blockCount == (last + blockSize - 1) / blockSize else {
            throw DecodeFailure("\(blockCount) blocks for \(last) covered records", at: at(0))
        }
        let blocksStart = reader.position
        guard reader.remaining >= Int(blockCount) * blockEntryLength else { throw DecodeFailure("the blocks run past the end", at: at(0)) }
        var previousOffset = Int64(LogFormat.headerLength) - 1
        for k in 0..<Int(blockCount) {
            let entry = reader.position
            let offset = Int64(bitPattern: try reader.u64())
            _ = try reader.u32()
            let minTime = Int64(bitPattern: try reader.u64())
            let maxTime = Int64(bitPattern: try reader.u64())
            guard offset > previousOffset else { throw DecodeFailure("block \(k) does not start after block \(k - 1)", at: at(entry)) }
            guard maxTime >= minTime else { throw DecodeFailure("block \(k)'s time range is negative", at: at(entry)) }
            previousOffset = offset
        }
        let labelCount = try reader.u64()
        guard labelCount <= last else { throw DecodeFailure("\(labelCount) labels for \(last) records", at: at(reader.position - 8)) }
        let labelsStart = reader.position
        guard reader.remaining >= Int(labelCount) * labelEntryLength else {
            throw DecodeFailure("the labels run past the end", at: at(labelsStart))
        }
        var labelLists: [(entry: Int, list: UInt64)] = []
        labelLists.reserveCapacity(Int(labelCount))
        var previousID: UnsafeRawBufferPointer?
        for _ in 0..<Int(labelCount) {
            let entry = reader.position
            let id = try reader.bytes(16)
            if let previousID, !previousID.lexicographicallyPrecedes(id) {
                throw DecodeFailure("the label ids are not in ascending order", at: at(entry))
            }
            previousID = id
            labelLists.append((entry, try reader.u64()))
        }
        let actorCount = try reader.varint()
        guard actorCount <= last else { throw DecodeFailure("\(actorCount) actors for \(last) records", at: at(reader.position)) }
        var actorEntries: [(actor: String?, entry: Int, list: UInt64)] = []
        for _ in 0..<actorCount {
            let entry = reader.position
            let actor: String?
            switch try reader.u8() {
            case 0: actor = nil
            case 1: actor = try reader.text(maxBytes: LogLimits.maxActorBytes, what: "actor").string
            default: throw DecodeFailure("an actor entry's tag is neither 0 nor 1", at: at(entry))
            }
            guard !actorEntries.contains(where: { $0.actor == actor }) else {
                throw DecodeFailure("an actor is listed twice", at: at(entry))
            }
            actorEntries.append((actor, entry, try reader.u64()))
        }
        let reordersEntry = reader.position
        let reordersList = try reader.u64()
        let listsLength = try reader.u64()
        let listsStart = reader.position
        guard UInt64(reader.remaining) == listsLength else {
            throw DecodeFailure("the seq lists are \(reader.remaining) bytes, the body says \(listsLength)", at: at(listsStart - 8))
        }
        // The lists region is exactly well-formed seq lists, back to back; every entry points at one.
        var starts: [Int] = []
        while !reader.isAtEnd {
            starts.append(reader.position - listsStart)
            let count = try reader.varint()
            guard count <= last else { throw DecodeFailure("\(count) seqs for \(last) records", at: at(reader.position)) }
            var seq: UInt64 = 0
            for _ in 0..<count {
                let delta = try reader.varint()
                guard delta >= 1, delta <= last - seq else {
                    throw DecodeFailure("a seq is out of order or past \(last)", at: at(reader.position))
                }
                seq += delta
            }
        }
        func list(_ relative: UInt64, entry: Int) throws(DecodeFailure) -> Int {
            var low = 0
            var high = starts.count
            while low < high {
                let mid = (low + high) / 2
                if starts[mid] < Int(clamping: relative) { low = mid + 1 } else { high = mid }
            }
            guard low < starts.count, UInt64(starts[low]) == relative else {
                throw DecodeFailure("an entry points at byte \(relative) of the seq lists, where no list starts", at: at(entry))
            }
            return listsStart + starts[low]
        }
        for (entry, relative) in labelLists { _ = try list(relative, entry: entry) }
        var actors: [String?: Int] = [:]
        for (actor, entry, relative) in actorEntries { actors[actor] = try list(relative, entry: entry) }
        let layout = Layout(
            blockCount: Int(blockCount), blocksStart: blocksStart, labelCount: Int(labelCount), labelsStart: labelsStart,
            listsStart: listsStart, reordersList: try list(reordersList, entry: reordersEntry))
        return (layout, actors)
    }
}
