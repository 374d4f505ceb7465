import EventLog

/// The slot part of a snapshot's body: version 2 stores it as columns, so
/// loading is a few sequential passes and one copy of all titles; version 1
/// stored one record per slot (still read).
extension LabelList {
    /// Writes the counts and the slot columns (docs/SNAPSHOTS.md, "Body").
    func encodeColumns(into w: inout ByteWriter) {
        w.varint(UInt64(slots.count))
        w.varint(UInt64(count))
        w.varint(UInt64(enabledCount))
        for slot in slots { withUnsafeBytes(of: slot.id.uuid.uuid) { w.bytes.append(contentsOf: $0) } }
        for slot in slots { w.u8(slot.isLive ? (slot.isEnabled ? 2 : 1) : 0) }
        for slot in slots { w.varint(slot.seq) }
        for slot in slots where slot.isLive { w.varint(UInt64(slot.title.length)) }
        titles.bytes.withUnsafeBytes { all in
            for slot in slots where slot.isLive && slot.title.length > 0 {
                w.bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: all[slot.title.offset..<slot.title.offset + slot.title.length]))
            }
        }
        order.forEachLeaf { leaf in for number in leaf { w.varint(UInt64(number)) } }
    }

    /// ``decodeColumns(_:slotCount:liveCount:seq:)`` on this thread while the
    /// id index is built from the ids column on another (the two touch
    /// disjoint memory; both finish before this returns). Returns the live
    /// and enabled counts and a slot whose id an earlier slot has, if any.
    mutating func decodeColumnsIndexingConcurrently(_ r: inout ByteReader, slotCount: Int, liveCount: Int, seq: UInt64)
        throws(SnapshotError) -> (live: Int, enabled: Int, duplicate: UInt32?)
    {
        guard slotCount >= ConcurrentJob<Void>.worthwhileSlotCount, slotCount * 16 <= r.remaining else {
            let counts = try decodeColumns(&r, slotCount: slotCount, liveCount: liveCount, seq: seq)
            return (counts.live, counts.enabled, buildSlotIndex())
        }
        let ids = UnsafeRawBufferPointer(rebasing: r.base[r.position..<r.position + slotCount * 16])
        let job = ConcurrentJob { SlotIndex.built(count: slotCount) { LabelID.load(from: ids, at: Int($0) * 16) } }
        job.start()
        defer { job.wait() }  // the job reads the caller's buffer: never return before it ends
        let counts = try decodeColumns(&r, slotCount: slotCount, liveCount: liveCount, seq: seq)
        let built = job.take()
        slotIndex = built.index
        return (counts.live, counts.enabled, built.duplicate)
    }

    /// Reads version 2's slot columns into this (empty) list's slots and
    /// titles; returns the live and enabled counts the states give.
    mutating func decodeColumns(_ r: inout ByteReader, slotCount: Int, liveCount: Int, seq: UInt64) throws(SnapshotError) -> (
        live: Int, enabled: Int
    ) {
        guard slotCount * 18 + liveCount <= r.remaining else {
            throw SnapshotError(.invalidContent, "\(slotCount) slots cannot fit in the \(r.remaining) bytes left")
        }
        let (idsStart, statesStart, seqs) = try Self.decodeSlotColumns(&r, count: slotCount, seq: seq, naming: "slot")
        let (lengths, base) = try decodeTitles(&r, liveCount: liveCount)

        slots.reserveCapacity(Self.roomToFold(slotCount))
        var live = 0, enabled = 0
        var titleOffset = base
        for number in 0..<slotCount {
            let id = LabelID.load(from: r.base, at: idsStart + number * 16)
            let state = r.base[statesStart + number]
            switch state {
            case 0:
                slots.append(.removed(id, at: seqs[number]))
            case 1, 2:
                guard live < liveCount else {
                    throw SnapshotError(
                        .invalidContent, "slot \(number) (label \(id)) is live, but the header counts \(liveCount) live labels")
                }
                let length = lengths[live]
                slots.append(
                    .live(
                        id, title: length == 0 ? .empty : TitleRef(offset: titleOffset, length: length), isEnabled: state == 2,
                        version: seqs[number]))
                titleOffset += length
                live += 1
                if state == 2 { enabled += 1 }
            default:
                throw SnapshotError(.invalidContent, "slot \(number) (label \(id)) has state \(state)")
            }
        }
        return (live, enabled)
    }

    /// Passes over the ids (`count` × 16 bytes) and states (`count` bytes)
    /// columns, returning where they start, and reads the seqs column (each
    /// in `1...seq`); the caller checked that the two fixed columns fit.
    static func decodeSlotColumns(_ r: inout ByteReader, count: Int, seq: UInt64, naming what: String) throws(SnapshotError) -> (
        idsStart: Int, statesStart: Int, seqs: [UInt64]
    ) {
        let idsStart = r.position
        r.position += count * 16
        let statesStart = r.position
        r.position += count
        var seqs: [UInt64] = []
        seqs.reserveCapacity(count)
        for index in 0..<count {
            let slotSeq = try r.varint("\(what) \(index)'s seq")
            guard slotSeq >= 1, slotSeq <= seq else {
                throw SnapshotError(.invalidContent, "\(what) \(index) has seq \(slotSeq); the snapshot is at seq \(seq)")
            }
            seqs.append(slotSeq)
        }
        return (idsStart, statesStart, seqs)
    }

    /// Reads the live titles' lengths and then their bytes, checks them
    /// (valid UTF-8, each starting at a character boundary), and appends the
    /// bytes to the title arena at once. Returns the lengths and where the
    /// first title starts in the arena.
    mutating func decodeTitles(_ r: inout ByteReader, liveCount: Int) throws(SnapshotError) -> (lengths: [Int], base: Int) {
        let (lengths, start) = try Self.checkTitles(&r, count: liveCount, naming: "live title")
        let base = titles.bytes.count
        titles.reserve(Self.roomToFold(r.position - start))
        _ = titles.append(UnsafeRawBufferPointer(rebasing: r.base[start..<r.position]))
        return (lengths, base)
    }

    /// Reads `count` title lengths (each at most `LogLimits.maxTitleBytes`)
    /// and checks the titles' bytes that follow them back to back: valid
    /// UTF-8 as a whole, and each title starting at a character boundary
    /// (which makes each valid on its own). Leaves `r` after the titles and
    /// returns the lengths and where the first title starts.
    static func checkTitles(_ r: inout ByteReader, count: Int, naming what: String) throws(SnapshotError) -> (
        lengths: [Int], start: Int
    ) {
        let (lengths, total) = try titleLengths(&r, count: count, naming: what)
        guard total <= r.remaining else {
            throw SnapshotError(.invalidContent, "the titles take \(total) bytes, past the end (\(r.remaining) left)")
        }
        try checkTitleBytes(
            UnsafeRawBufferPointer(rebasing: r.base[r.position..<r.position + total]), lengths: lengths, at: r.position, naming: what)
        let start = r.position
        r.position += total
        return (lengths, start)
    }

    /// Reads `count` title lengths (varints, each at most ``LogLimits/maxTitleBytes``) and returns them and their sum.
    static func titleLengths(_ r: inout ByteReader, count: Int, naming what: String) throws(SnapshotError) -> (lengths: [Int], total: Int) {
        var lengths: [Int] = []
        lengths.reserveCapacity(count)
        var total = 0
        for index in 0..<count {
            let length = try r.count("the length of \(what) \(index)", limit: LogLimits.maxTitleBytes)
            lengths.append(length)
            total += length
        }
        return (lengths, total)
    }

    /// Checks that `blob`, the titles of `lengths` back to back (from byte
    /// `position`, for the message), is valid UTF-8 and that each title starts
    /// at a character boundary.
    static func checkTitleBytes(_ blob: UnsafeRawBufferPointer, lengths: [Int], at position: Int, naming what: String) throws(SnapshotError)
    {
        // A valid blob whose every title starts at a character boundary is valid title by title.
        guard UTF8Validation.isValid(blob) else {
            throw SnapshotError(.invalidContent, "the titles at byte \(position) are not valid UTF-8")
        }
        var offset = 0
        for (index, length) in lengths.enumerated() {
            if length > 0, blob[offset] & 0xC0 == 0x80 {
                throw SnapshotError(.invalidContent, "\(what) \(index) at byte \(position + offset) starts inside a character")
            }
            offset += length
        }
    }

    /// Reads the titles of `LOG.checkpoints` format 5 (docs/SNAPSHOTS.md,
    /// "Compressed titles"): `count` title lengths, then the varint byte count
    /// of a ``TitleCompression`` block and the block, which must decompress to
    /// the lengths' sum. The titles are decompressed onto the end of `titles`
    /// and checked as ``checkTitles(_:count:naming:)`` checks them (in the
    /// messages, bytes are counted in the decompressed titles). Returns the
    /// lengths and where the first title starts in the arena. Without
    /// `checkingUTF8`, the caller checks the titles it keeps itself (a
    /// checkpoint's chain checks its live titles once, at the end, not every
    /// title each of its deltas gave and a later one replaced).
    ///
    /// - Throws: ``SnapshotError/Code/invalidContent``; `titles` is unchanged then.
    static func decodeCompressedTitles(
        _ r: inout ByteReader, count: Int, naming what: String, into titles: inout TitleArena, checkingUTF8: Bool = true
    ) throws(SnapshotError) -> (lengths: [Int], base: Int) {
        let (lengths, total) = try titleLengths(&r, count: count, naming: what)
        let at = r.position
        let blockCount = try r.count("the byte count of the compressed titles", limit: r.remaining)
        // (The limit was the bytes left before the count's own varint.)
        guard blockCount <= r.remaining else {
            throw SnapshotError(
                .invalidContent, "\(blockCount) bytes of compressed titles at byte \(at) run past the \(r.remaining) bytes left")
        }
        // Each byte of a block gives at most 255 bytes: a larger sum is refused before anything is allocated for it.
        guard total <= blockCount * 255 else {
            throw SnapshotError(
                .invalidContent, "\(blockCount) bytes of compressed titles at byte \(at) cannot hold the \(total) their lengths add up to")
        }
        let block = UnsafeRawBufferPointer(rebasing: r.base[r.position..<r.position + blockCount])
        let base: Int
        do throws(TitleCompression.Failure) {
            base = try titles.appendDecompressed(count: total, from: block)
        } catch {
            throw SnapshotError(.invalidContent, "the compressed titles at byte \(r.position) do not decompress: \(error.message)")
        }
        r.position += blockCount
        guard checkingUTF8 else { return (lengths, base) }
        do throws(SnapshotError) {
            try titles.bytes.withUnsafeBytes { all in
                Result { () throws(SnapshotError) in
                    try checkTitleBytes(UnsafeRawBufferPointer(rebasing: all[base..<base + total]), lengths: lengths, at: 0, naming: what)
                }
            }.get()
        } catch {
            titles.removeLast(total)
            throw error
        }
        return (lengths, base)
    }

    /// Builds the id index from the slots (bulk load); returns a slot whose id
    /// an earlier slot already has, or `nil`.
    mutating func buildSlotIndex() -> UInt32? {
        let storage = slots
        return slotIndex.build(count: storage.count, ids: { storage[Int($0)].id })
    }

    /// Reads version 1's one-record-per-slot layout (id · state · seq · title if live).
    mutating func decodeRows(_ r: inout ByteReader, slotCount: Int, seq: UInt64) throws(SnapshotError) -> (live: Int, enabled: Int) {
        slots.reserveCapacity(Self.roomToFold(slotCount))
        var live = 0, enabled = 0
        for number in 0..<slotCount {
            let id = try r.id("slot \(number)")
            let state = try r.u8("slot \(number)")
            let slotSeq = try r.varint("slot \(number)'s seq")
            guard state <= 2, slotSeq >= 1, slotSeq <= seq else {
                throw SnapshotError(
                    .invalidContent, "slot \(number) (label \(id)) has state \(state) and seq \(slotSeq); the snapshot is at seq \(seq)")
            }
            if state == 0 {
                slots.append(.removed(id, at: slotSeq))
            } else {
                let title = titles.append(try r.utf8("the title of label \(id)", maxBytes: LogLimits.maxTitleBytes))
                slots.append(.live(id, title: title, isEnabled: state == 2, version: slotSeq))
                live += 1
                if state == 2 { enabled += 1 }
            }
        }
        return (live, enabled)
    }
}

/// The 16 raw bytes of a UUID, as `UUID(uuid:)` takes them.
typealias UUID16 = (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8)

extension LabelID {
    /// The id whose 16 raw bytes (as ``init(bytes:)`` takes them) are at
    /// `offset` in `raw`: the same id, loaded as the 16 bytes it is made of
    /// (a `UUID` holds exactly its `uuid_t`) instead of through a call into
    /// Foundation per id — a checkpoint or snapshot decodes a million.
    @inline(__always)
    static func load(from raw: UnsafeRawBufferPointer, at offset: Int) -> LabelID {
        raw.loadUnaligned(fromByteOffset: offset, as: LabelID.self)
    }
}

extension ByteWriter {
    /// Writes titles' bytes as `LOG.checkpoints` format 5 does: the varint
    /// byte count of their ``TitleCompression`` block, then the block.
    mutating func compressedTitles(_ titles: [UInt8]) {
        var block: [UInt8] = []
        block.reserveCapacity(TitleCompression.maximumCompressedCount(titles.count))
        titles.withUnsafeBytes { TitleCompression.compress($0, appendingTo: &block) }
        varint(UInt64(block.count))
        bytes.append(contentsOf: block)
    }
}
