import EventLog

/// The live part of the list at one checkpoint of `LOG.checkpoints` format 5
/// while it is rebuilt (docs/SNAPSHOTS.md, "Layout"): a full image decoded,
/// then the deltas after it applied one by one (``apply(delta:)``), then the
/// removed slots (tombstones) from the removal blocks put under it
/// (``list(tombstones:)``).
///
/// Only the live slots are held — a few hundred thousand at most, against a
/// long history's million ids — so a delta costs what it changed: a slot's
/// place in ``live`` is ``liveIndex``'s entry for its number (−1: not live).
struct CheckpointState {
    /// The header of the last image applied: its seq, log position, list version and timestamp.
    var header: SnapshotHeader
    /// Every id the list has seen by then, live or removed.
    var slotCount: Int
    /// By slot number: the index of its entry in ``live``, or −1.
    var liveIndex: [Int32]
    /// The live slots (entries of slots no longer live are left behind, unreferenced).
    var live: [LabelList.Slot]
    /// The live titles' bytes (and, once a delta renames or removes, some garbage).
    var titles = TitleArena()
    /// The live slot numbers in list order.
    var order: [UInt32]
    /// The live slots that are enabled.
    var enabledCount: Int

    /// The number of live slots.
    var liveCount: Int { order.count }

    /// The slot and live counts an image (a full image or a delta, of the
    /// chain this state is built from) states, read from its first fields
    /// without checking the rest; `nil` when they cannot be read or the live
    /// count exceeds `liveLimit` (the bytes of the chain: every live slot
    /// takes at least one). A hint for work started before the chain is
    /// decoded, to be compared with the decoded state.
    static func counts(ofImage bytes: UnsafeRawBufferPointer, liveLimit: Int) -> (slotCount: Int, liveCount: Int)? {
        let flags = SnapshotFormat.liveSlotsOnlyFlag | SnapshotFormat.deltaFlag
        guard let (_, found, body) = try? LabelList.decodeSnapshotHeader(bytes, allowing: flags, checksumVerified: true) else {
            return nil
        }
        var r = body
        if found & SnapshotFormat.deltaFlag != 0 { guard (try? r.varint("the previous seq")) != nil else { return nil } }
        guard let slotCount = try? r.count("the slot count", limit: Int(UInt32.max)),
            let liveCount = try? r.count("the live count", limit: min(slotCount, liveLimit))
        else { return nil }
        return (slotCount, liveCount)
    }

    /// Decodes and checks a full image: a live-slots-only snapshot image
    /// (header flag ``SnapshotFormat/liveSlotsOnlyFlag``) whose bytes the
    /// caller checked against its entry's checksum (the image's own trailer
    /// is not computed again).
    ///
    /// - Throws: ``SnapshotError`` for bytes that do not check out.
    /// - Complexity: O(b + s) for b image bytes and s slots.
    /// At most `removedLimit` slots may be removed ones (the removals the
    /// checkpoint's entry counts, and a based log's base slots), so a slot
    /// count beyond that is refused before anything is allocated for it.
    init(fullImage bytes: UnsafeRawBufferPointer, removedLimit: Int) throws(SnapshotError) {
        let (header, flags, body) = try LabelList.decodeSnapshotHeader(
            bytes, allowing: SnapshotFormat.liveSlotsOnlyFlag, checksumVerified: true)
        guard flags & SnapshotFormat.liveSlotsOnlyFlag != 0 else {
            throw SnapshotError(.invalidContent, "the image holds every slot, not the live ones only")
        }
        var r = body
        let seq = header.seq
        let slotCount = try r.count("the slot count", limit: Int(UInt32.max))
        // A live slot takes at least 21 bytes: its number, id, state, seq, title length and place in the order.
        let liveCount = try r.count("the live count", limit: min(slotCount, r.remaining / 21))
        let enabledCount = try r.count("the enabled count", limit: liveCount)
        guard slotCount - liveCount <= removedLimit else {
            throw SnapshotError(
                .invalidContent, "\(slotCount) slots cannot be \(liveCount) live labels and at most \(removedLimit) removed ones")
        }
        let numbers = try r.ascendingSlotNumbers(liveCount, below: slotCount, naming: "live slot")
        guard liveCount * 17 <= r.remaining else {
            throw SnapshotError(.invalidContent, "\(liveCount) live slots cannot fit in the \(r.remaining) bytes left")
        }
        let (idsStart, statesStart, seqs) = try LabelList.decodeSlotColumns(&r, count: liveCount, seq: seq, naming: "live slot")
        var titleOffset: Int
        let lengths: [Int]
        (lengths, titleOffset) = try LabelList.decodeCompressedTitles(
            &r, count: liveCount, naming: "live title", into: &titles, checkingUTF8: false)
        var live: [LabelList.Slot] = []
        live.reserveCapacity(liveCount)
        var liveIndex = [Int32](repeating: -1, count: slotCount)
        var enabled = 0
        for index in 0..<liveCount {
            let id = LabelID.load(from: r.base, at: idsStart + index * 16)
            let state = r.base[statesStart + index]
            guard state == 1 || state == 2 else {
                throw SnapshotError(.invalidContent, "live slot \(numbers[index]) (label \(id)) has state \(state)")
            }
            let length = lengths[index]
            let title = length == 0 ? TitleRef.empty : TitleRef(offset: titleOffset, length: length)
            titleOffset += length
            liveIndex[numbers[index]] = Int32(index)
            live.append(.live(id, title: title, isEnabled: state == 2, version: seqs[index]))
            if state == 2 { enabled += 1 }
        }
        guard enabled == enabledCount else {
            throw SnapshotError(.invalidContent, "the header counts \(enabledCount) enabled labels, the slots \(enabled)")
        }
        guard liveCount <= r.remaining else {
            throw SnapshotError(.invalidContent, "the order of \(liveCount) labels cannot fit in the \(r.remaining) bytes left")
        }
        var order: [UInt32] = []
        order.reserveCapacity(liveCount)
        for position in 0..<liveCount {
            order.append(UInt32(try r.count("the slot at position \(position)", limit: max(0, slotCount - 1))))
        }
        guard r.remaining == 0 else { throw SnapshotError(.invalidContent, "\(r.remaining) unexpected bytes after the order") }
        self.header = header
        self.slotCount = slotCount
        self.liveIndex = liveIndex
        self.live = live
        self.order = order
        self.enabledCount = enabledCount
    }

    /// The list: the removed slots of `tombstones` (which covers exactly
    /// ``slotCount`` slots) with the live ones over them, the titles, the
    /// order, and the id index; checked as a snapshot is (every slot live or
    /// removed at or before the seq, no id in two slots, the order naming
    /// each live slot once, every live title valid UTF-8: the images leave
    /// that to this one pass over the titles that are kept).
    ///
    /// - Throws: ``SnapshotError/Code/invalidContent`` when it does not add up.
    /// - Complexity: O(s + n) for s slots and n live ones.
    consuming func list(tombstones: consuming TombstoneTable) throws(SnapshotError) -> LabelList {
        var list = LabelList()
        // Moved, not shared: the live slots are written over it in place (a copy would be the whole table).
        list.slots = (consume tombstones).slots
        guard list.slots.count == slotCount else {
            throw SnapshotError(.invalidContent, "the removed slots cover \(list.slots.count) slots, not \(slotCount)")
        }
        let seq = header.seq
        // One bit per live slot, cleared as the order places it (the order visits slots at random).
        var awaitingPlace = [UInt64](repeating: 0, count: (slotCount + 63) / 64)
        var liveSlots = 0
        var badTitle: Int?
        list.slots.withUnsafeMutableBufferPointer { slots in
            liveIndex.withUnsafeBufferPointer { index in
                titles.bytes.withUnsafeBytes { arena in
                    for number in 0..<slotCount where index[number] >= 0 {
                        let slot = live[Int(index[number])]
                        slots[number] = slot
                        awaitingPlace[number >> 6] |= 1 << UInt64(number & 63)
                        liveSlots += 1
                        // The images' titles are checked here, the live ones only, each once.
                        let title = slot.title
                        if badTitle == nil, title.length > 0,
                            !UTF8Validation.isValid(UnsafeRawBufferPointer(rebasing: arena[title.offset..<title.offset + title.length]))
                        {
                            badTitle = number
                        }
                    }
                }
            }
        }
        if let badTitle {
            throw SnapshotError(.invalidContent, "the title of live slot \(badTitle) (label \(list.slots[badTitle].id)) is not valid UTF-8")
        }
        guard liveSlots == order.count else {
            throw SnapshotError(.invalidContent, "\(liveSlots) slots are live, but the order holds \(order.count)")
        }
        // The id index is built on another thread (a long history's million
        // ids) while the slots and the order are checked here; both only read
        // the slots, which stay as they are until the wait.
        let slots = list.slots
        let (job, checked) = slots.withUnsafeBufferPointer { buffer in
            let job = ConcurrentJob { SlotIndex.built(count: buffer.count) { buffer[Int($0)].id } }
            job.start(concurrently: slotCount >= ConcurrentJob<Void>.worthwhileSlotCount)
            defer { job.wait() }  // the job reads the buffer: never leave before it ends
            let result = Result { () throws(SnapshotError) in
                for number in 0..<slotCount where !buffer[number].isLive {
                    let removal = buffer[number].seq
                    guard removal != 0 else {
                        throw SnapshotError(.invalidContent, "slot \(number) is neither live nor removed at seq \(seq)")
                    }
                    guard removal <= seq else {
                        throw SnapshotError(.invalidContent, "slot \(number) was removed at seq \(removal), after the image's seq \(seq)")
                    }
                }
                for (position, number) in order.enumerated() {
                    let bit: UInt64 = 1 << UInt64(number & 63)
                    guard Int(number) < slotCount, awaitingPlace[Int(number) >> 6] & bit != 0 else {
                        throw SnapshotError(
                            .invalidContent, "position \(position) names slot \(number), which is not a live label or is already placed")
                    }
                    awaitingPlace[Int(number) >> 6] &= ~bit
                }
                list.order.replace(with: order)
            }
            return (job, result)
        }
        try checked.get()
        let built = job.take()
        if let duplicate = built.duplicate {
            throw SnapshotError(.invalidContent, "label \(list.slots[Int(duplicate)].id) has two slots")
        }
        list.slotIndex = built.index
        list.titles = titles
        list.enabledCount = enabledCount
        list.listVersion = header.listVersion
        list.lastSeq = seq
        list.lastTimestamp = header.lastTimestamp
        list.compactTitlesIfNeeded()
        return list
    }
}
