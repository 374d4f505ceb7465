import EventLog

/// A storage delta (docs/SNAPSHOTS.md, "A storage delta"): a checkpoint a
/// ``CheckpointStorage`` keeps as what changed in the whole list — live and
/// removed slots — since the checkpoint it is written on, so a server list can
/// keep a checkpoint every few thousand records for a fraction of a full image
/// each. Unlike a `LOG.checkpoints` delta, it needs nothing beside its chain:
/// a removed slot carries its removal seq.
extension LabelList {
    /// The change byte bits a storage delta defines (the state, the title
    /// and id bits of a `LOG.checkpoints` delta); any other makes it invalid.
    private static let storageDeltaKnownBits = deltaStateMask | deltaTitleBit | deltaIDBit

    /// The storage delta of this list on `previous`, the list at an earlier
    /// seq of the same history: the snapshot header (flag
    /// ``SnapshotFormat/storageDeltaFlag``, no log position), the previous
    /// seq, the slot, live and enabled counts, the changed slots (numbers as
    /// gaps; change bytes; the ids of new slots; each change's version or
    /// removal seq back from this seq; the titles that changed, compressed),
    /// the order as an edit of the previous one, and a CRC-32C of all of it.
    ///
    /// A slot changed when it is new, or its state, version or removal seq
    /// differs (a live slot with the same version has the same title).
    ///
    /// - Complexity: O(s + n) for s slots and n live labels, plus the bytes of the titles that changed.
    package func storageDeltaBytes(from previous: LabelList, historyID: LabelID) -> [UInt8] {
        precondition(previous.lastSeq < lastSeq && previous.slots.count <= slots.count, "a delta on a later list")
        var numbers: [Int] = []
        var changes: [UInt8] = []
        let previousSlots = previous.slots.count
        for number in slots.indices {
            let slot = slots[number]
            let before = number < previousSlots ? previous.slots[number] : nil
            guard before?.word != slot.word else { continue }
            var change: UInt8 = slot.isLive ? (slot.isEnabled ? 2 : 1) : 0
            if before == nil { change |= Self.deltaIDBit }
            if slot.isLive {
                let renamed =
                    before?.isLive != true
                    || !previous.titles.withBytes(before!.title) { old in titles.withBytes(slot.title) { TitleArena.bytesEqual(old, $0) } }
                if renamed { change |= Self.deltaTitleBit }
            }
            numbers.append(number)
            changes.append(change)
        }
        var w = ByteWriter(capacity: SnapshotFormat.headerLength + numbers.count * 24 + count + 64)
        writeSnapshotHeader(into: &w, logID: historyID, fingerprint: 0, logPosition: nil, extraFlags: SnapshotFormat.storageDeltaFlag)
        // Every change has a seq: a live slot's version, a removed one's removal seq.
        encodeDeltaBody(numbers, changes, previousSeq: previous.lastSeq, previousOrder: previous.order.elements, into: &w) { _ in true }
        return w.bytes
    }

    /// Applies a storage delta (``storageDeltaBytes(from:historyID:)``) on
    /// this list, which must be the list at the delta's previous seq, and
    /// returns the delta's header (whose history id the caller checks).
    /// Every field is checked: the checksum, that each change can follow the
    /// slot's state before it (only new slots carry an id, and every new slot
    /// is changed; a slot that becomes live carries its title), that no id
    /// has two slots, seqs at or before the delta's, the counts, and that the
    /// order names each live slot once.
    ///
    /// - Throws: ``SnapshotError`` for bytes that do not check out, or a delta
    ///   on another seq. The list is left half changed then: drop it.
    /// - Complexity: O(b + n + c) for b delta bytes, n live labels (the order is rebuilt) and c changed slots.
    package mutating func applyStorageDelta(_ bytes: UnsafeRawBufferPointer) throws(SnapshotError) -> SnapshotHeader {
        var numbers = order.elements
        let header = try applyStorageDeltaSlots(bytes, order: &numbers)
        try finishStorageDeltas(order: numbers)
        return header
    }

    /// Applies the storage deltas of a chain (`images`, oldest first) on this
    /// list, each on the list the one before it gives, as
    /// ``applyStorageDelta(_:)`` applies one — but the order is carried
    /// between them as numbers and the list's order rebuilt, and checked to
    /// name each live slot once, after the last only. Returns each delta's
    /// header, for the caller to check.
    ///
    /// - Throws: ``StorageChainFailure``: the delta that did not check out (its
    ///   index in `images`; the last one's when the final order does not), and why.
    ///   The list is left half changed then: drop it.
    /// - Complexity: O(b + k·n + s) for b delta bytes, k deltas, n live labels and s slots.
    package mutating func applyStorageDeltas(_ images: [[UInt8]]) throws(StorageChainFailure) -> [SnapshotHeader] {
        var numbers = order.elements
        var headers: [SnapshotHeader] = []
        for (index, image) in images.enumerated() {
            do throws(SnapshotError) {
                headers.append(
                    try image.withUnsafeBytes { raw in
                        Result { () throws(SnapshotError) in try applyStorageDeltaSlots(raw, order: &numbers) }
                    }.get())
            } catch {
                throw StorageChainFailure(index: index, error: error)
            }
        }
        do throws(SnapshotError) { try finishStorageDeltas(order: numbers) } catch {
            throw StorageChainFailure(index: max(0, images.count - 1), error: error)
        }
        return headers
    }

    /// One delta of a chain: its slot changes applied to ``slots`` (and the
    /// titles, the id index and the list-wide fields), its order edit to
    /// `order` (the live slots' numbers in list order, carried between the
    /// deltas), the live and enabled counts checked; the order itself is
    /// checked and made the list's by ``finishStorageDeltas(order:)``.
    private mutating func applyStorageDeltaSlots(_ bytes: UnsafeRawBufferPointer, order previousOrder: inout [UInt32])
        throws(SnapshotError) -> SnapshotHeader
    {
        let (header, flags, body) = try LabelList.decodeSnapshotHeader(bytes, allowing: SnapshotFormat.storageDeltaFlag)
        guard flags & SnapshotFormat.storageDeltaFlag != 0 else { throw SnapshotError(.invalidContent, "the image is not a storage delta") }
        var r = body
        let seq = header.seq
        let previousSeq = try r.varint("the previous seq")
        guard previousSeq == lastSeq, seq > previousSeq else {
            throw SnapshotError(.invalidContent, "the delta at seq \(seq) applies to seq \(previousSeq), not to seq \(lastSeq)")
        }
        let oldCount = slots.count
        let slotCount = try r.count("the slot count", limit: Int(UInt32.max))
        let liveCount = try r.count("the live count", limit: slotCount)
        let enabledCount = try r.count("the enabled count", limit: liveCount)
        // A change takes at least 3 bytes: its number, its change byte and its seq.
        let changeCount = try r.count("the change count", limit: min(slotCount, r.remaining / 3))
        // Checked before anything is allocated for the slots: every new slot is a change, and only a change makes a slot live.
        guard slotCount >= oldCount, slotCount - oldCount <= changeCount, liveCount <= previousOrder.count + changeCount else {
            throw SnapshotError(
                .invalidContent,
                "\(slotCount) slots, \(liveCount) live, cannot follow \(oldCount) slots, \(previousOrder.count) live, with \(changeCount) changes"
            )
        }
        let numbers = try r.ascendingSlotNumbers(changeCount, below: slotCount, naming: "changed slot")
        guard changeCount <= r.remaining else { throw SnapshotError(.invalidContent, "the change bytes run past the end") }
        let changesStart = r.position
        r.position += changeCount
        var idCount = 0, titleCount = 0
        for (k, number) in numbers.enumerated() {
            let change = r.base[changesStart + k]
            let state = change & Self.deltaStateMask
            let isNew = number >= oldCount
            let wasLive = !isNew && slots[number].isLive
            let hasID = change & Self.deltaIDBit != 0, hasTitle = change & Self.deltaTitleBit != 0
            let valid =
                change & ~Self.storageDeltaKnownBits == 0 && state <= 2 && hasID == isNew
                && (state == 0 ? !hasTitle : (wasLive || hasTitle))
            guard valid else {
                throw SnapshotError(
                    .invalidContent,
                    "changed slot \(number) has change byte \(change), which cannot follow its state before it (\(isNew ? "new" : wasLive ? "live" : "removed"))"
                )
            }
            idCount += hasID ? 1 : 0
            titleCount += hasTitle ? 1 : 0
        }
        guard idCount == slotCount - oldCount, idCount * 16 <= r.remaining else {
            throw SnapshotError(
                .invalidContent, "the delta adds \(idCount) ids for \(slotCount - oldCount) new slots, or they run past the end")
        }
        let idsStart = r.position
        r.position += idCount * 16
        let seqs = try r.seqsBefore(seq, count: changeCount, naming: { "changed slot \(numbers[$0])" }, field: "seq")
        var titleOffset: Int
        let lengths: [Int]
        (lengths, titleOffset) = try LabelList.decodeCompressedTitles(&r, count: titleCount, naming: "changed title", into: &titles)
        let newOrder = try LabelList.decodeOrderEdit(&r, previous: previousOrder, liveCount: liveCount, slotCount: slotCount)
        guard r.remaining == 0 else { throw SnapshotError(.invalidContent, "\(r.remaining) unexpected bytes after the order") }
        slots.reserveCapacity(slotCount)
        var idIndex = 0, titleIndex = 0
        var enabled = self.enabledCount
        var live = previousOrder.count
        for (k, number) in numbers.enumerated() {
            let change = r.base[changesStart + k]
            let state = change & Self.deltaStateMask
            if number < oldCount {
                let before = slots[number]
                if before.isEnabled && before.isLive { enabled -= 1 }
                if before.isLive { live -= 1 }
                if before.isLive && (state == 0 || change & Self.deltaTitleBit != 0) { titles.release(before.title) }
            }
            let id: LabelID
            if number >= oldCount {
                id = LabelID.load(from: r.base, at: idsStart + idIndex * 16)
                idIndex += 1
                guard slot(of: id) == nil else { throw SnapshotError(.invalidContent, "label \(id) has two slots") }
            } else {
                id = slots[number].id
            }
            let slot: Slot
            if state == 0 {
                slot = .removed(id, at: seqs[k])
            } else {
                var title = number < oldCount ? slots[number].title : .empty
                if change & Self.deltaTitleBit != 0 {
                    let length = lengths[titleIndex]
                    title = length == 0 ? .empty : TitleRef(offset: titleOffset, length: length)
                    titleOffset += length
                    titleIndex += 1
                }
                slot = .live(id, title: title, isEnabled: state == 2, version: seqs[k])
                if state == 2 { enabled += 1 }
                live += 1
            }
            if number < oldCount {
                slots[number] = slot
            } else {
                // New slots are changes in ascending order, so they come in slot order.
                _ = appendSlot(slot)
            }
        }
        guard enabled == enabledCount, live == liveCount else {
            throw SnapshotError(
                .invalidContent,
                "the delta counts \(liveCount) live and \(enabledCount) enabled labels, its changes give \(live) and \(enabled)")
        }
        previousOrder = newOrder
        self.enabledCount = enabledCount
        listVersion = header.listVersion
        lastSeq = seq
        lastTimestamp = header.lastTimestamp
        return header
    }

    /// Checks that `order` names each live slot once and makes it the list's
    /// order (after the last delta of a chain).
    private mutating func finishStorageDeltas(order newOrder: [UInt32]) throws(SnapshotError) {
        let slotCount = slots.count
        // One bit per live slot, cleared as the order places it.
        var awaitingPlace = [UInt64](repeating: 0, count: (slotCount + 63) / 64)
        var live = 0
        for (number, slot) in slots.enumerated() where slot.isLive {
            awaitingPlace[number >> 6] |= 1 << UInt64(number & 63)
            live += 1
        }
        guard live == newOrder.count else {
            throw SnapshotError(.invalidContent, "\(live) slots are live, but the order places \(newOrder.count)")
        }
        for (position, number) in newOrder.enumerated() {
            let bit: UInt64 = 1 << UInt64(number & 63)
            guard Int(number) < slotCount, awaitingPlace[Int(number) >> 6] & bit != 0 else {
                throw SnapshotError(
                    .invalidContent, "position \(position) names slot \(number), which is not a live label or is already placed")
            }
            awaitingPlace[Int(number) >> 6] &= ~bit
        }
        order.replace(with: newOrder)
        compactTitlesIfNeeded()
    }
}

/// Why a chain of storage deltas could not be applied: the delta (its index
/// in the chain) and the error.
package struct StorageChainFailure: Error {
    /// The index of the delta that did not check out.
    package var index: Int
    /// Why.
    package var error: SnapshotError
}

extension LabelList {
    /// Every id a stored checkpoint's list knows (live or removed, in slot
    /// order) and its seq, read from the ids column of its full image and the
    /// new slots' ids of its storage deltas, without decoding the rest: for
    /// resolving an id prefix. Each piece's checksum, header and counts are
    /// checked, and each delta must apply to the seq before it; the pieces'
    /// history ids are returned for the caller to check. `nil` for a full
    /// image of snapshot version 1 (no ids column: decode it whole).
    ///
    /// - Throws: ``SnapshotError`` for a piece that does not check out.
    /// - Complexity: O(b) in the pieces' bytes (their checksums), O(s) ids copied.
    package static func storedCheckpointIDs(image: [UInt8], deltas: [[UInt8]]) throws(SnapshotError) -> (
        seq: UInt64, ids: [LabelID], historyIDs: Set<LabelID>
    )? {
        var ids: [LabelID] = []
        var seq: UInt64 = 0
        var historyIDs: Set<LabelID> = []
        let usable = try image.withUnsafeBytes { raw in
            Result { () throws(SnapshotError) -> Bool in
                let (header, _, body) = try decodeSnapshotHeader(raw, allowing: 0)
                guard header.version >= 2 else { return false }
                var r = body
                let slotCount = try r.count("the slot count", limit: r.remaining / SnapshotFormat.minSlotBytes)
                _ = try r.count("the live count", limit: slotCount)
                _ = try r.varint("the enabled count")
                ids.reserveCapacity(slotCount)
                for number in 0..<slotCount { ids.append(LabelID.load(from: r.base, at: r.position + number * 16)) }
                seq = header.seq
                historyIDs.insert(header.logID)
                return true
            }
        }.get()
        guard usable else { return nil }
        for delta in deltas {
            try delta.withUnsafeBytes { raw in
                Result { () throws(SnapshotError) in
                    let (header, flags, body) = try decodeSnapshotHeader(raw, allowing: SnapshotFormat.storageDeltaFlag)
                    guard flags & SnapshotFormat.storageDeltaFlag != 0 else {
                        throw SnapshotError(.invalidContent, "the image is not a storage delta")
                    }
                    var r = body
                    let previousSeq = try r.varint("the previous seq")
                    guard previousSeq == seq, header.seq > seq else {
                        throw SnapshotError(
                            .invalidContent, "the delta at seq \(header.seq) applies to seq \(previousSeq), not to seq \(seq)")
                    }
                    let slotCount = try r.count("the slot count", limit: Int(UInt32.max))
                    _ = try r.count("the live count", limit: slotCount)
                    _ = try r.varint("the enabled count")
                    let changeCount = try r.count("the change count", limit: min(slotCount, r.remaining / 3))
                    let numbers = try r.ascendingSlotNumbers(changeCount, below: slotCount, naming: "changed slot")
                    guard slotCount >= ids.count, changeCount <= r.remaining else {
                        throw SnapshotError(.invalidContent, "the delta's \(slotCount) slots cannot follow \(ids.count)")
                    }
                    let changes = r.position
                    r.position += changeCount
                    var newIDs = 0
                    for (k, number) in numbers.enumerated() where r.base[changes + k] & deltaIDBit != 0 {
                        guard number == ids.count + newIDs, r.remaining >= (newIDs + 1) * 16 else {
                            throw SnapshotError(.invalidContent, "changed slot \(number) carries an id but is not the next new slot")
                        }
                        newIDs += 1
                    }
                    guard ids.count + newIDs == slotCount else {
                        throw SnapshotError(.invalidContent, "the delta adds \(newIDs) ids to \(ids.count) slots, not \(slotCount)")
                    }
                    for k in 0..<newIDs { ids.append(LabelID.load(from: r.base, at: r.position + k * 16)) }
                    seq = header.seq
                    historyIDs.insert(header.logID)
                }
            }.get()
        }
        return (seq, ids, historyIDs)
    }
}
