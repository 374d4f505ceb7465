import Foundation

/// The parts of a history index checked when they are read (docs/INDEX.md,
/// "What is trusted, and when"): a chunk of the label directory against its
/// fence's checksum, a seq list against its entry's checksum, a block's record
/// offsets against the block's checksum. Each check runs every time the part
/// is read (it is small), so the index holds no state and nothing unchecked
/// is used.
extension HistoryIndexPart {
    /// Label directory entries per chunk (one fence each).
    static let chunkSize = 256

    /// A problem at byte `offset` of this part (reported as the offset in its file).
    func problem(_ reason: String, at offset: Int?) -> HistoryIndexFile.Problem {
        HistoryIndexFile.Problem(
            path: path, reason: (firstSeq > 1 ? "the segment of seqs \(firstSeq)…\(coveredSeq): " : "") + reason,
            offset: offset.map { $0 + fileOffset })
    }

    /// The directory entries of chunk `c`, once its bytes match the fence's
    /// checksum, its ids ascend strictly, the first is the fence's and the
    /// last is below the next fence's.
    func checkedChunk(_ c: Int) throws(HistoryIndexFile.Problem) -> Range<Int> {
        let entries = c * Self.chunkSize..<min((c + 1) * Self.chunkSize, layout.labelCount)
        let start = layout.labelsStart + entries.lowerBound * Self.labelEntryLength
        let chunk = bytes[start..<start + entries.count * Self.labelEntryLength]
        let fence = layout.fencesStart + c * Self.fenceEntryLength
        guard CRC32C.checksum(chunk) == load(UInt32.self, fence + 16) else {
            throw problem("chunk \(c) of the label directory does not match its checksum", at: start)
        }
        guard memcmp(chunk.baseAddress!, bytes.raw.baseAddress! + fence, 16) == 0 else {
            throw problem("chunk \(c) of the label directory does not start with its fence's id", at: start)
        }
        for k in entries.dropFirst() {
            let at = layout.labelsStart + k * Self.labelEntryLength
            guard memcmp(bytes.raw.baseAddress! + at - Self.labelEntryLength, bytes.raw.baseAddress! + at, 16) < 0 else {
                throw problem("the label ids of chunk \(c) are not in ascending order", at: at)
            }
        }
        if c + 1 < layout.fenceCount {
            let last = layout.labelsStart + (entries.upperBound - 1) * Self.labelEntryLength
            guard memcmp(bytes.raw.baseAddress! + last, bytes.raw.baseAddress! + fence + Self.fenceEntryLength, 16) < 0 else {
                throw problem("the last label id of chunk \(c) is not below the next chunk's", at: last)
            }
        }
        return entries
    }

    /// How many fences have a first id at or below the 16 bytes at `key`
    /// (binary search; the fences were checked when the index was opened):
    /// the chunk that can hold `key` is the one before.
    func fencesAtOrBelow(_ key: UnsafeRawPointer) -> Int {
        let base = bytes.raw.baseAddress!
        var low = 0
        var high = layout.fenceCount
        while low < high {
            let mid = (low + high) / 2
            if memcmp(base + layout.fencesStart + mid * Self.fenceEntryLength, key, 16) <= 0 { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The directory entry of `id`, found by binary search among the fences
    /// (checked when the index was opened), then in the one chunk checked.
    func entryIndex(of id: LabelID) throws(HistoryIndexFile.Problem) -> Int? {
        guard layout.fenceCount > 0 else { return nil }
        return try withUnsafeBytes(of: id.uuid.uuid) { (key) throws(HistoryIndexFile.Problem) -> Int? in
            let base = bytes.raw.baseAddress!
            let fences = fencesAtOrBelow(key.baseAddress!)
            guard fences > 0 else { return nil }
            var entries = try checkedChunk(fences - 1)
            while !entries.isEmpty {
                let mid = (entries.lowerBound + entries.upperBound) / 2
                let order = memcmp(base + layout.labelsStart + mid * Self.labelEntryLength, key.baseAddress!, 16)
                if order == 0 { return mid }
                entries = order < 0 ? mid + 1..<entries.upperBound : entries.lowerBound..<mid
            }
            return nil
        }
    }

    /// The seqs of the list `list` (`what` names it in problems, and is made only for one), once its bytes
    /// lie in the seq-list region, match its checksum, and decode to a strictly
    /// ascending list of this part's seqs that fills them exactly.
    func seqList(_ list: ListRef, what: @autoclosure () -> String) throws(HistoryIndexFile.Problem) -> [UInt64] {
        guard list.offset <= UInt64(layout.listsLength), UInt64(list.length) <= UInt64(layout.listsLength) - list.offset else {
            throw problem("\(what()) runs past the seq lists", at: nil)
        }
        let start = layout.listsStart + Int(list.offset)
        let raw = bytes[start..<start + Int(list.length)]
        guard CRC32C.checksum(raw) == list.checksum else { throw problem("\(what()) does not match its checksum", at: start) }
        let last = coveredSeq
        var reader = ByteReader(raw)
        var seqs: [UInt64] = []
        do throws(DecodeFailure) {
            let count = try reader.varint()
            guard count <= recordCount, count <= UInt64(raw.count) else { throw DecodeFailure("\(count) seqs for \(recordCount) records") }
            seqs.reserveCapacity(Int(count))
            var seq: UInt64 = 0
            for _ in 0..<count {
                let delta = try reader.varint()
                guard delta >= 1, delta <= last - seq else { throw DecodeFailure("a seq is out of order or past \(last)") }
                seq += delta
                guard seq >= firstSeq else { throw DecodeFailure("seq \(seq) is before the part's first, \(firstSeq)") }
                seqs.append(seq)
            }
            guard reader.isAtEnd else { throw DecodeFailure("\(reader.remaining) bytes are left over") }
        } catch {
            throw problem("\(what()) does not decode: \(error.reason)", at: start)
        }
        return seqs
    }

    /// A record offset that is not recorded: the record starts 4 GiB or more
    /// after its block's first (then it is reached by reading from the block's start).
    static let farRecord = UInt32.max

    /// The record offsets of piece `j` (relative to its first frame,
    /// ``farRecord`` when too far), once they match the piece's checksum and
    /// ascend from 0; checked once for the last pieces asked for
    /// (``HistoryIndexBytes/checkedOffsets``), as reads near one another ask
    /// for the same piece many times.
    func pieceOffsets(_ j: Int) throws(HistoryIndexFile.Problem) -> [UInt32] {
        let seqs = self.seqs(ofPiece: j)
        let count = Int(seqs.upperBound - seqs.lowerBound + 1)
        let start = layout.offsetsStart + Int(seqs.lowerBound - firstSeq) * 4
        if let known = bytes.checkedOffsets.withLock({ $0[start] }) { return known }
        let checked = try checkPieceOffsets(j, count: count, start: start)
        bytes.checkedOffsets.withLock { memo in
            if memo.count >= HistoryIndexBytes.checkedOffsetsLimit { memo.removeAll(keepingCapacity: true) }
            memo[start] = checked
        }
        return checked
    }

    /// ``pieceOffsets(_:)`` read from the bytes: `count` offsets at byte `start`.
    private func checkPieceOffsets(_ j: Int, count: Int, start: Int) throws(HistoryIndexFile.Problem) -> [UInt32] {
        let raw = bytes[start..<start + count * 4]
        let entry = layout.blocksStart + j * Self.blockEntryLength
        let k = firstBlock + j
        guard CRC32C.checksum(raw) == load(UInt32.self, entry + 28) else {
            throw problem("the record offsets of block \(k) do not match their checksum", at: start)
        }
        let relative = (0..<count).map { load(UInt32.self, start + $0 * 4) }
        // Ascending from 0 (records of one batch frame, format 4, share its offset); once one is too far, the rest are too.
        guard relative[0] == 0,
            (1..<count).allSatisfy({
                relative[$0] >= relative[$0 - 1] || relative[$0] == Self.farRecord && relative[$0 - 1] == Self.farRecord
            })
        else {
            throw problem("the record offsets of block \(k) do not ascend from 0", at: start)
        }
        return relative
    }

    /// Where record `seq`'s frame starts, and the frame before it (`nil` for
    /// the piece's first record, which starts at the piece's offset after a
    /// frame whose checksum the piece records), from the piece's record
    /// offsets (``pieceOffsets(_:)``); `nil` when the record is too far from
    /// its piece's start to be recorded.
    ///
    /// - Precondition: `covers(seq)`.
    func recordOffsets(of seq: UInt64) throws(HistoryIndexFile.Problem) -> (offset: Int64, previous: Int64?)? {
        let j = piece(of: seq)
        let relative = try pieceOffsets(j)
        let i = Int(seq - seqs(ofPiece: j).lowerBound)
        guard relative[i] != Self.farRecord else { return nil }
        let block = block(j).offset
        return (block + Int64(relative[i]), i == 0 ? nil : block + Int64(relative[i - 1]))
    }
}
