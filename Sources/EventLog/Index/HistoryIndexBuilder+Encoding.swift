/// Encoding a history index part into its bytes (docs/INDEX.md, format 2):
/// a base file's whole contents, or one segment of the delta file.
extension HistoryIndexBuilder {
    /// The part's bytes: the header, then the blocks, record offsets, label
    /// fences and directory, actors and seq lists, each part with its checksum.
    /// The same records always have the same bytes. Consuming: the builder's
    /// tables are let go as the file is made (a caller that passes its last
    /// use of the builder does not hold them beside the file's bytes).
    ///
    /// - Precondition: a segment covers at least one record.
    consuming func encoded() -> [UInt8] {
        precondition(!isSegment || recordCount >= 1, "a segment covers at least one record")
        dropLookups()
        // The seq lists first, in a region of their own; the sections point into it.
        var lists = ByteWriter(capacity: 1 << 16)
        // The writers are passed `inout`, never captured by a local function: a captured `var` is
        // boxed and each access to it checked for exclusivity at run time (a third of this encoding).
        let firstSeq = firstSeq
        func list(_ seqs: some Collection<UInt64>, into lists: inout ByteWriter) -> (offset: UInt64, length: UInt32, checksum: UInt32) {
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
        /// The lists of `numbers` (each record's label or actor number) in the order of `keys`, their
        /// records sorted out and dropped once written (the labels' and the actors' are not held at once).
        func listsByNumber(
            _ numbers: [UInt32], in keys: [Int], count: Int, into lists: inout ByteWriter
        ) -> [(offset: UInt64, length: UInt32, checksum: UInt32)] {
            func sortedLists<Record: FixedWidthInteger & UnsignedInteger>(
                as type: Record.Type, into writer: inout ByteWriter
            ) -> [(offset: UInt64, length: UInt32, checksum: UInt32)] {
                let (records, starts) = Self.recordLists(numbers, count: count, as: type)
                var result: [(offset: UInt64, length: UInt32, checksum: UInt32)] = []
                result.reserveCapacity(keys.count)
                for key in keys {
                    result.append(list(records[starts[key]..<starts[key + 1]].lazy.map { firstSeq + UInt64($0) }, into: &writer))
                }
                return result
            }
            return numbers.count <= Int(UInt32.max)
                ? sortedLists(as: UInt32.self, into: &lists) : sortedLists(as: UInt64.self, into: &lists)
        }
        let sortedLabels = labels.keys.indices.map { (labels.keys[$0].byteOrderKey, $0) }.sorted { $0.0 < $1.0 }
        let labelLists = listsByNumber(takeRecordLabels(), in: sortedLabels.map(\.1), count: labels.keys.count, into: &lists)
        // No actor first, then by name.
        let actorKeys = actors.keys.indices.sorted { a, b in
            switch (actors.keys[a], actors.keys[b]) {
            case (nil, _): actors.keys[b] != nil
            case (_, nil): false
            case (let a?, let b?): a < b
            }
        }
        let actorLists = listsByNumber(takeRecordActors(), in: actorKeys, count: actors.keys.count, into: &lists)
        let reordersList = list(reorders, into: &lists)
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

        // The file is written in one buffer, in order; each section's entries that hold a checksum of the
        // section after them (a block of its records' offsets, a fence of its chunk of the directory) are
        // filled in once that section is written, and the header's checksums last.
        let fenceCount = (labels.keys.count + HistoryIndexPart.chunkSize - 1) / HistoryIndexPart.chunkSize
        let blocksStart = HistoryIndexPart.headerLength
        let offsetsStart = blocksStart + blocks.count * HistoryIndexPart.blockEntryLength
        let fencesStart = offsetsStart + recordOffsets.count * 4
        let directoryStart = fencesStart + fenceCount * HistoryIndexPart.fenceEntryLength
        let actorsStart = directoryStart + labels.keys.count * HistoryIndexPart.labelEntryLength
        let listsStart = actorsStart + actorSection.bytes.count
        let fileLength = listsStart + lists.bytes.count
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
        let headerChecksums = out.bytes.count  // the blocks', fences', actors' and body's checksums, then the header's
        out.u32(0)
        out.u32(0)
        out.u32(0)
        out.u32(0)
        out.u32(isSegment || based ? UInt32(recordCount) : 0)
        out.u32(0)
        precondition(out.bytes.count == blocksStart, "the index header is \(HistoryIndexPart.headerLength) bytes")

        // The blocks, each with the checksum of its piece of the record offsets written after them.
        let firstBlock = Int((firstSeq - 1) / HistoryIndex.blockSize)
        out.bytes.append(contentsOf: repeatElement(0, count: offsetsStart - blocksStart))
        for j in blocks.indices {
            let start = out.bytes.count
            // Piece j's records: from its block's first seq (or the part's), to the next block's.
            let from = j == 0 ? 0 : Int(UInt64(firstBlock + j) * HistoryIndex.blockSize + 1 - firstSeq)
            let to = min(Int(UInt64(firstBlock + j + 1) * HistoryIndex.blockSize + 1 - firstSeq), recordOffsets.count)
            for offset in recordOffsets[from..<to] {
                out.u32(offset)
            }
            let entry = blocksStart + j * HistoryIndexPart.blockEntryLength
            out.put(UInt64(bitPattern: blocks[j].offset), at: entry)
            out.put(blocks[j].previousChecksum, at: entry + 8)
            out.put(UInt64(bitPattern: blocks[j].minTime), at: entry + 12)
            out.put(UInt64(bitPattern: blocks[j].maxTime), at: entry + 20)
            out.put(out.checksum(start..<out.bytes.count), at: entry + 28)
        }
        precondition(out.bytes.count == fencesStart, "every record's offset is in a block's piece")

        // The fences, each with the checksum of its chunk of the label directory written after them.
        out.bytes.append(contentsOf: repeatElement(0, count: directoryStart - fencesStart))
        for (k, ((_, number), list)) in zip(sortedLabels, labelLists).enumerated() {
            out.id(labels.keys[number])
            out.u64(list.offset)
            out.u32(list.length)
            out.u32(list.checksum)
            if k % HistoryIndexPart.chunkSize == HistoryIndexPart.chunkSize - 1 || k == sortedLabels.count - 1 {
                let chunk = k / HistoryIndexPart.chunkSize
                let chunkStart = directoryStart + chunk * HistoryIndexPart.chunkSize * HistoryIndexPart.labelEntryLength
                let fence = fencesStart + chunk * HistoryIndexPart.fenceEntryLength
                withUnsafeBytes(of: labels.keys[sortedLabels[chunk * HistoryIndexPart.chunkSize].1].uuid.uuid) { id in
                    out.bytes.withUnsafeMutableBytes {
                        UnsafeMutableRawBufferPointer(rebasing: $0[fence..<fence + 16]).copyMemory(from: id)
                    }
                }
                out.put(out.checksum(chunkStart..<out.bytes.count), at: fence + 16)
            }
        }
        out.bytes.append(contentsOf: actorSection.bytes)
        out.bytes.append(contentsOf: lists.bytes)
        precondition(out.bytes.count == fileLength, "the index sections add up to the file's length")

        out.put(out.checksum(blocksStart..<offsetsStart), at: headerChecksums)
        out.put(out.checksum(fencesStart..<directoryStart), at: headerChecksums + 4)
        out.put(out.checksum(actorsStart..<listsStart), at: headerChecksums + 8)
        out.put(out.checksum(blocksStart..<fileLength), at: headerChecksums + 12)
        out.put(out.checksum(0..<HistoryIndexPart.headerLength - 4), at: HistoryIndexPart.headerLength - 4)
        return out.bytes
    }
}

extension ByteWriter {
    /// The CRC-32C of the bytes in `range`.
    fileprivate func checksum(_ range: Range<Int>) -> UInt32 { bytes[range].withUnsafeBytes { CRC32C.checksum($0) } }

    /// Writes `value` (little-endian) over the bytes at `offset`, which are already there.
    fileprivate mutating func put(_ value: some FixedWidthInteger, at offset: Int) {
        bytes.withUnsafeMutableBytes { $0.storeBytes(of: value.littleEndian, toByteOffset: offset, as: type(of: value)) }
    }
}
