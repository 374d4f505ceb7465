import EventLog

extension LabelList {
    /// The snapshot file bytes of this list (docs/SNAPSHOTS.md, version 2):
    /// header, every slot (live labels and removal tombstones) in slot order
    /// as columns (ids, states, seqs, title lengths, the titles' bytes), the
    /// live slots in list order, and a CRC-32C over all of it.
    ///
    /// `fingerprint` is `EventRecord.snapshotFingerprint` of the record at
    /// ``lastSeq`` (0 for the empty log); `logPosition` is where that record's
    /// frame is in the log file (`LogWriter.lastPosition`), if known: it
    /// lets opening resume the log's scan there instead of reading every record.
    /// When the position has the record's chained frame checksum (a format
    /// version 2 log), that checksum is stored instead of `fingerprint`
    /// (``SnapshotHeader/coversHistory``), tying the snapshot to the whole
    /// history it covers.
    ///
    /// - Complexity: O(s + t) for s known ids (live and removed) and t live title bytes.
    public func snapshotBytes(logID: LabelID, fingerprint: UInt32, logPosition: LogPosition? = nil) -> [UInt8] {
        var w = ByteWriter(capacity: SnapshotFormat.headerLength + slots.count * 22 + count * 4 + titles.liveBytes + 64)
        writeSnapshotHeader(into: &w, logID: logID, fingerprint: fingerprint, logPosition: logPosition, extraFlags: 0)
        encodeColumns(into: &w)
        let crc = w.bytes.withUnsafeBytes { CRC32C.checksum($0) }
        w.u32(crc)
        return w.bytes
    }

    /// Decodes and checks a snapshot: the checksum first, then every field.
    /// Each count is checked against the bytes left before anything is
    /// allocated for it, so damaged input costs at most O(file size).
    ///
    /// - Throws: ``SnapshotError``: ``SnapshotError/Code/notASnapshot`` when the bytes do
    ///   not start with the snapshot magic; ``SnapshotError/Code/unsupportedVersion`` for a
    ///   newer format version (with a matching checksum);
    ///   ``SnapshotError/Code/checksumMismatch`` for damaged or cut-short bytes (also when
    ///   they are too short to hold an empty snapshot);
    ///   ``SnapshotError/Code/invalidContent`` when the checksum matches but a field is
    ///   impossible (counts, seqs, titles, an id with two slots, the order).
    /// - Complexity: O(b) in the snapshot's bytes, which are O(s + t) for s known ids and
    ///   t title bytes; for format version 2 and later, the id index is built on a second
    ///   thread while the columns are parsed.
    public static func decodeSnapshot(_ bytes: UnsafeRawBufferPointer) throws(SnapshotError) -> (list: LabelList, header: SnapshotHeader) {
        let (header, _, body) = try decodeSnapshotHeader(bytes, allowing: 0)
        var r = body
        let version = header.version
        let seq = header.seq
        let slotCount = try r.count("the slot count", limit: r.remaining / SnapshotFormat.minSlotBytes)
        let liveCount = try r.count("the live count", limit: slotCount)
        let enabledCount = try r.count("the enabled count", limit: liveCount)
        var list = LabelList()
        let live: Int, enabled: Int
        let duplicate: UInt32?
        if version >= 2 {
            // The ids column is known now: build the id index on a second core while the columns are parsed.
            (live, enabled, duplicate) = try list.decodeColumnsIndexingConcurrently(
                &r, slotCount: slotCount, liveCount: liveCount, seq: seq)
        } else {
            (live, enabled) = try list.decodeRows(&r, slotCount: slotCount, seq: seq)
            duplicate = list.buildSlotIndex()
        }
        if let duplicate {
            throw SnapshotError(.invalidContent, "label \(list.slots[Int(duplicate)].id) has two slots")
        }
        guard live == liveCount, enabled == enabledCount else {
            throw SnapshotError(
                .invalidContent, "the header counts \(liveCount) live and \(enabledCount) enabled labels, the slots \(live) and \(enabled)")
        }
        try list.decodeOrder(&r, slotCount: slotCount, liveCount: liveCount, enabledCount: enabledCount, header: header)
        return (list, header)
    }

    /// Writes the 72-byte snapshot header of this list (docs/SNAPSHOTS.md,
    /// "Header"), with `extraFlags` besides the ones the fields call for.
    func writeSnapshotHeader(into w: inout ByteWriter, logID: LabelID, fingerprint: UInt32, logPosition: LogPosition?, extraFlags: UInt16) {
        let position = logPosition.flatMap { $0.seq == lastSeq && $0.length <= Int64(UInt32.max) ? $0 : nil }
        var flags: UInt16 = (lastTimestamp == nil ? 0 : SnapshotFormat.hasTimestampFlag) | extraFlags
        if position?.checksum != nil { flags |= SnapshotFormat.historyChecksumFlag }
        w.bytes.append(contentsOf: SnapshotFormat.magic)
        w.u16(SnapshotFormat.currentVersion)
        w.u16(flags)
        w.u32(UInt32(SnapshotFormat.headerLength))
        w.id(logID)
        w.u64(lastSeq)
        w.u32(position?.checksum ?? fingerprint)
        w.u32(UInt32(position?.length ?? 0))
        w.u64(listVersion)
        w.u64(UInt64(bitPattern: lastTimestamp?.millisecondsSince1970 ?? 0))
        w.u64(UInt64(max(0, position?.end ?? 0)))
    }

    /// Checks a snapshot image's magic, checksum and header fields (flags
    /// beyond the file format's only if in `extraFlags`) and returns the
    /// header, the flags, and a reader at the first byte of the body (the
    /// trailer excluded). With `checksumVerified` (an image whose bytes,
    /// trailer included, a checkpoint entry's checksum already matched), the
    /// trailer is not computed again.
    static func decodeSnapshotHeader(_ bytes: UnsafeRawBufferPointer, allowing extraFlags: UInt16, checksumVerified: Bool = false)
        throws(SnapshotError) -> (header: SnapshotHeader, flags: UInt16, body: ByteReader)
    {
        let minimum = SnapshotFormat.headerLength + SnapshotFormat.trailerLength
        guard bytes.count >= SnapshotFormat.magic.count, bytes.prefix(SnapshotFormat.magic.count).elementsEqual(SnapshotFormat.magic) else {
            throw SnapshotError(.notASnapshot, "the file does not start with the snapshot magic \"LABELSNP\"")
        }
        guard bytes.count >= minimum else {
            throw SnapshotError(.checksumMismatch, "the file is \(bytes.count) bytes, shorter than the \(minimum) of an empty snapshot")
        }
        let body = UnsafeRawBufferPointer(rebasing: bytes[..<(bytes.count - SnapshotFormat.trailerLength)])
        let stored = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: body.count, as: UInt32.self))
        let computed = checksumVerified ? stored : CRC32C.checksum(body)
        var r = ByteReader(body, position: SnapshotFormat.magic.count)
        let version = try r.u16("the version")
        if version > SnapshotFormat.currentVersion && stored == computed {
            throw SnapshotError(
                .unsupportedVersion,
                "the snapshot has format version \(version); this build reads up to version \(SnapshotFormat.currentVersion)")
        }
        guard stored == computed else {
            throw SnapshotError(
                .checksumMismatch,
                "the checksum does not match (stored 0x\(String(stored, radix: 16)), computed 0x\(String(computed, radix: 16)))")
        }
        let flags = try r.u16("the flags")
        let headerLength = try r.u32("the header length")
        let knownFlags = SnapshotFormat.hasTimestampFlag | (version >= 3 ? SnapshotFormat.historyChecksumFlag | extraFlags : 0)
        guard version >= 1, flags & ~knownFlags == 0, headerLength == UInt32(SnapshotFormat.headerLength) else {
            throw SnapshotError(
                .invalidContent, "impossible header: version \(version), flags 0x\(String(flags, radix: 16)), header length \(headerLength)"
            )
        }
        let logID = try r.id("the log id")
        let seq = try r.u64("the seq")
        let fingerprint = try r.u32("the fingerprint")
        // Version 1 kept these four bytes zero ("reserved"); version 2 stores the record's frame length there.
        let recordLength = try r.u32("the record length")
        let listVersion = try r.u64("the list version")
        let time = Int64(bitPattern: try r.u64("the last timestamp"))
        let logOffset = try r.u64("the log offset")
        guard version >= 2 || recordLength == 0, seq <= LabelList.Slot.seqMask, listVersion <= seq, logOffset <= UInt64(Int64.max),
            UInt64(recordLength) <= logOffset
        else {
            throw SnapshotError(
                .invalidContent,
                "impossible header: version \(version), seq \(seq), list version \(listVersion), record length \(recordLength), log offset \(logOffset)"
            )
        }
        let header = SnapshotHeader(
            version: version, logID: logID, seq: seq, fingerprint: fingerprint,
            coversHistory: flags & SnapshotFormat.historyChecksumFlag != 0, listVersion: listVersion,
            lastTimestamp: flags & SnapshotFormat.hasTimestampFlag != 0 ? EventTimestamp(millisecondsSince1970: time) : nil,
            logOffset: Int64(logOffset), recordLength: Int64(recordLength))
        return (header, flags, r)
    }

    /// Reads the order (the live slots in list order, each named once) that
    /// ends a snapshot body, checks nothing follows it, and sets the list-wide
    /// values from `header`.
    mutating func decodeOrder(_ r: inout ByteReader, slotCount: Int, liveCount: Int, enabledCount: Int, header: SnapshotHeader)
        throws(SnapshotError)
    {
        guard liveCount <= r.remaining else {
            throw SnapshotError(.invalidContent, "the order of \(liveCount) labels cannot fit in the \(r.remaining) bytes left")
        }
        var numbers: [UInt32] = []
        numbers.reserveCapacity(liveCount)
        // One bit per slot, set while a live slot waits for its position: the
        // order visits slots at random, and these bits stay in cache where the
        // 32-byte slots would not (a cache miss per label at 1,000,000 labels).
        var awaitingPlace = [UInt64](repeating: 0, count: (slotCount + 63) / 64)
        for (number, slot) in slots.enumerated() where slot.isLive { awaitingPlace[number >> 6] |= 1 << UInt64(number & 63) }
        for position in 0..<liveCount {
            let number = try r.count("the slot at position \(position)", limit: max(0, slotCount - 1))
            let bit: UInt64 = 1 << UInt64(number & 63)
            guard number < slotCount, awaitingPlace[number >> 6] & bit != 0 else {
                throw SnapshotError(
                    .invalidContent, "position \(position) names slot \(number), which is not a live label or is already placed")
            }
            awaitingPlace[number >> 6] &= ~bit
            numbers.append(UInt32(number))
        }
        guard r.remaining == 0 else {
            throw SnapshotError(.invalidContent, "\(r.remaining) unexpected bytes after the order")
        }
        order.replace(with: numbers)
        self.enabledCount = enabledCount
        listVersion = header.listVersion
        lastSeq = header.seq
        lastTimestamp = header.lastTimestamp
    }
}
