/// Encoding a history index part into its bytes (docs/INDEX.md, format 2):
/// a base file's whole contents, or one segment of the delta file.
extension HistoryIndexBuilder {
    /// The part's bytes: the header, then the blocks, record offsets, label
    /// fences and directory, actors and seq lists, each part with its checksum.
    /// The same records always have the same bytes.
    ///
    /// - Precondition: a segment covers at least one record.
    func encoded() -> [UInt8] {
        precondition(!isSegment || recordCount >= 1, "a segment covers at least one record")
        // The seq lists first, in a region of their own; the sections point into it.
        var lists = ByteWriter(capacity: 1 << 16)
        func list(_ seqs: some Collection<UInt64>) -> (offset: UInt64, length: UInt32, checksum: UInt32) {
            let at = lists.bytes.count
            lists.varint(UInt64(seqs.count))
            var last: UInt64 = 0
            for seq in seqs {
                lists.varint(seq - last)
                last = seq
            }
            let checksum = lists.bytes[at...].withUnsafeBytes { CRC32C.checksum($0) }
            return (UInt64(at), UInt32(lists.bytes.count - at), checksum)
        }
        let (seqs, starts) = labelSeqs()
        let sortedLabels = labels.keys.indices.map { (labels.keys[$0].bytes, $0) }.sorted { $0.0.lexicographicallyPrecedes($1.0) }
        let labelLists = sortedLabels.map { list(seqs[starts[$0.1]..<starts[$0.1 + 1]]) }
        // No actor first, then by name.
        let (actorSeqs, actorStarts) = actorSeqs()
        let actorKeys = actors.keys.indices.sorted { a, b in
            switch (actors.keys[a], actors.keys[b]) {
            case (nil, _): actors.keys[b] != nil
            case (_, nil): false
            case (let a?, let b?): a < b
            }
        }
        let actorLists = actorKeys.map { list(actorSeqs[actorStarts[$0]..<actorStarts[$0 + 1]]) }
        let reordersList = list(reorders)

        var blockSection = ByteWriter(capacity: blocks.count * HistoryIndexPart.blockEntryLength)
        var offsetSection = ByteWriter(capacity: recordOffsets.count * 4)
        let firstBlock = Int((firstSeq - 1) / HistoryIndex.blockSize)
        for (j, block) in blocks.enumerated() {
            let start = offsetSection.bytes.count
            // Piece j's records: from its block's first seq (or the part's), to the next block's.
            let from = j == 0 ? 0 : Int(UInt64(firstBlock + j) * HistoryIndex.blockSize + 1 - firstSeq)
            let to = min(Int(UInt64(firstBlock + j + 1) * HistoryIndex.blockSize + 1 - firstSeq), recordOffsets.count)
            for offset in recordOffsets[from..<to] {
                offsetSection.u32(offset)
            }
            blockSection.u64(UInt64(bitPattern: block.offset))
            blockSection.u32(block.previousChecksum)
            blockSection.u64(UInt64(bitPattern: block.minTime))
            blockSection.u64(UInt64(bitPattern: block.maxTime))
            blockSection.u32(offsetSection.bytes[start...].withUnsafeBytes { CRC32C.checksum($0) })
        }
        var directory = ByteWriter(capacity: labels.keys.count * HistoryIndexPart.labelEntryLength)
        var fences = ByteWriter(capacity: (labels.keys.count / HistoryIndexPart.chunkSize + 1) * HistoryIndexPart.fenceEntryLength)
        for (k, ((_, number), list)) in zip(sortedLabels, labelLists).enumerated() {
            directory.id(labels.keys[number])
            directory.u64(list.offset)
            directory.u32(list.length)
            directory.u32(list.checksum)
            if k % HistoryIndexPart.chunkSize == HistoryIndexPart.chunkSize - 1 || k == sortedLabels.count - 1 {
                let chunkStart = (k / HistoryIndexPart.chunkSize) * HistoryIndexPart.chunkSize * HistoryIndexPart.labelEntryLength
                fences.id(labels.keys[sortedLabels[k / HistoryIndexPart.chunkSize * HistoryIndexPart.chunkSize].1])
                fences.u32(directory.bytes[chunkStart...].withUnsafeBytes { CRC32C.checksum($0) })
            }
        }
        var actorSection = ByteWriter(capacity: 64)
        actorSection.varint(UInt64(actorKeys.count))
        for (number, list) in zip(actorKeys, actorLists) {
            if let actor = actors.keys[number] {
                actorSection.u8(1)
                actorSection.string(actor)
            } else {
                actorSection.u8(0)
            }
            actorSection.u64(list.offset)
            actorSection.u32(list.length)
            actorSection.u32(list.checksum)
        }
        let parts = [blockSection.bytes, offsetSection.bytes, fences.bytes, directory.bytes, actorSection.bytes, lists.bytes]
        var bodyChecksum: UInt32 = 0
        for part in parts { bodyChecksum = part.withUnsafeBytes { CRC32C.update(bodyChecksum, $0) } }
        let fileLength = HistoryIndexPart.headerLength + parts.reduce(0) { $0 + $1.count }
        func checksum(_ bytes: [UInt8]) -> UInt32 { bytes.withUnsafeBytes { CRC32C.checksum($0) } }

        var out = ByteWriter(capacity: fileLength)
        out.bytes.append(contentsOf: HistoryIndexPart.magic)
        out.u16(HistoryIndexPart.formatVersion)
        let based = !isSegment && firstSeq > 1
        out.u16(
            (covered == nil ? 0 : HistoryIndexPart.coversRecords) | (isSegment ? HistoryIndexPart.segmentFlag : 0)
                | (based ? HistoryIndexPart.basedFlag : 0))
        out.u32(UInt32(HistoryIndexPart.headerLength))
        out.id(logID)
        out.u64(covered?.seq ?? firstSeq - 1)
        out.u64(UInt64(covered?.offset ?? 0))
        out.u32(UInt32(covered?.length ?? 0))
        out.u32(covered?.checksum ?? 0)
        out.u64(UInt64(fileLength))
        out.u64(UInt64(labels.keys.count))
        out.u64(UInt64(actorSection.bytes.count))
        out.u64(UInt64(lists.bytes.count))
        out.u64(reordersList.offset)
        out.u32(reordersList.length)
        out.u32(reordersList.checksum)
        out.u32(checksum(blockSection.bytes))
        out.u32(checksum(fences.bytes))
        out.u32(checksum(actorSection.bytes))
        out.u32(bodyChecksum)
        out.u32(isSegment || based ? UInt32(recordCount) : 0)
        out.u32(checksum(out.bytes))
        for part in parts { out.bytes.append(contentsOf: part) }
        return out.bytes
    }
}
