import EventLog

/// A delta image of `LOG.checkpoints` format 5 (docs/SNAPSHOTS.md, "A
/// delta"): what changed in the live part of the list since the checkpoint
/// before it — the slots that became live, changed or stopped being live, and
/// the order as runs copied from the previous order plus the slots placed
/// anew. Between two checkpoints 65,536 records apart, most of a list of
/// 100,000 labels is untouched, so a delta is a fraction of a full image.
extension LabelList {
    /// The change byte's state bits (0 removed, 1 live and disabled, 2 live and enabled).
    static let deltaStateMask: UInt8 = 0b0011
    /// Change byte bit 2: the slot's title follows (it was renamed, or was not live before).
    static let deltaTitleBit: UInt8 = 0b0100
    /// Change byte bit 3: the slot's id follows (it was not live before).
    static let deltaIDBit: UInt8 = 0b1000

    /// The delta image of this list after the record at `logPosition` on
    /// `base`, the list at the checkpoint before it (at seq `base.lastSeq`,
    /// with every record since noted): the snapshot header (flag
    /// ``SnapshotFormat/deltaFlag``), the previous seq, the slot, live and
    /// enabled counts, the changed slots (numbers as gaps, change bytes, ids,
    /// versions, titles compressed), the order's edit, and a CRC-32C of all of it.
    ///
    /// - Complexity: O(s + n) for s slots and n live labels, plus the bytes of the titles that changed.
    func checkpointDeltaBytes(from base: CheckpointDeltaBase, logID: LabelID, logPosition: LogPosition) -> [UInt8] {
        var numbers: [Int] = []
        var changes: [UInt8] = []
        let previousSlots = base.words.count
        for number in slots.indices {
            let slot = slots[number]
            let before = number < previousSlots ? base.words[number] : nil
            let wasLive = before.map { $0 & Slot.liveBit != 0 } ?? false
            if slot.isLive {
                let state: UInt8 = slot.isEnabled ? 2 : 1
                if !wasLive {
                    numbers.append(number)
                    changes.append(state | Self.deltaTitleBit | Self.deltaIDBit)
                } else if before != slot.word {
                    // The same word is the same last change: only a changed label can have another title.
                    let renamed = titles.withBytes(slot.title) { base.titleChanged(slot.id, now: $0) }
                    numbers.append(number)
                    changes.append(state | (renamed ? Self.deltaTitleBit : 0))
                }
            } else if wasLive {
                numbers.append(number)
                changes.append(0)
            }
        }
        var w = ByteWriter(capacity: SnapshotFormat.headerLength + numbers.count * 24 + 64)
        writeSnapshotHeader(into: &w, logID: logID, fingerprint: 0, logPosition: logPosition, extraFlags: SnapshotFormat.deltaFlag)
        encodeDeltaBody(numbers, changes, previousSeq: base.lastSeq, previousOrder: base.order, into: &w) {
            $0 & Self.deltaStateMask != 0
        }
        return w.bytes
    }

    /// Writes a delta's body after its header (docs/SNAPSHOTS.md, "A delta"
    /// and "A storage delta"): the previous seq, the slot, live and enabled
    /// counts, the changed slots `numbers` (as gaps) and their `changes`
    /// bytes, the new slots' ids, a seq back from ``lastSeq`` for each change
    /// `hasSeq` says has one, the changed titles (lengths, then compressed),
    /// the order's edit, and a CRC-32C of all of `w`.
    func encodeDeltaBody(
        _ numbers: [Int], _ changes: [UInt8], previousSeq: UInt64, previousOrder: [UInt32], into w: inout ByteWriter,
        hasSeq: (UInt8) -> Bool
    ) {
        w.varint(previousSeq)
        w.varint(UInt64(slots.count))
        w.varint(UInt64(count))
        w.varint(UInt64(enabledCount))
        w.varint(UInt64(numbers.count))
        var last = -1
        for number in numbers {
            w.varint(UInt64(number - last - 1))
            last = number
        }
        w.bytes.append(contentsOf: changes)
        for (k, number) in numbers.enumerated() where changes[k] & Self.deltaIDBit != 0 { w.id(slots[number].id) }
        for (k, number) in numbers.enumerated() where hasSeq(changes[k]) { w.varint(lastSeq - slots[number].seq) }
        for (k, number) in numbers.enumerated() where changes[k] & Self.deltaTitleBit != 0 { w.varint(UInt64(slots[number].title.length)) }
        var changedTitles: [UInt8] = []
        for (k, number) in numbers.enumerated() where changes[k] & Self.deltaTitleBit != 0 {
            titles.withBytes(slots[number].title) { changedTitles.append(contentsOf: $0) }
        }
        w.compressedTitles(changedTitles)
        encodeOrderEdit(from: previousOrder, into: &w)
        let crc = w.bytes.withUnsafeBytes { CRC32C.checksum($0) }
        w.u32(crc)
    }

    /// Writes this list's order as an edit of `before`, an earlier order: a varint count of
    /// runs, then each run as a varint `n << 1 | 1` and the zigzag varint of
    /// its start in the previous order minus where the run before it ended
    /// (`n` slots copied from there), or `n << 1` and `n` varint slot numbers.
    /// Each run is as long as the two orders agree, so a move costs a run or
    /// two and an insertion one.
    func encodeOrderEdit(from before: [UInt32], into w: inout ByteWriter) {
        let now = order.elements
        var place = [Int32](repeating: -1, count: slots.count)
        for (position, number) in before.enumerated() where Int(number) < place.count { place[Int(number)] = Int32(position) }
        var runs = ByteWriter(capacity: 64)
        var runCount = 0
        var expected = 0
        var j = 0
        while j < now.count {
            let start = Int(place[Int(now[j])])
            if start >= 0 {
                var n = 1
                while j + n < now.count, start + n < before.count, now[j + n] == before[start + n] { n += 1 }
                runs.varint(UInt64(n) << 1 | 1)
                let offset = Int64(start - expected)
                runs.varint(UInt64(bitPattern: (offset << 1) ^ (offset >> 63)))
                expected = start + n
                j += n
            } else {
                var n = 1
                while j + n < now.count, place[Int(now[j + n])] < 0 { n += 1 }
                runs.varint(UInt64(n) << 1)
                for k in j..<(j + n) { runs.varint(UInt64(now[k])) }
                j += n
            }
            runCount += 1
        }
        w.varint(UInt64(runCount))
        w.bytes.append(contentsOf: runs.bytes)
    }
}

extension CheckpointState {
    /// Applies a delta image (header flag ``SnapshotFormat/deltaFlag``), whose
    /// bytes the caller checked against its entry's checksum, on this state,
    /// which must be the list at the delta's previous seq.
    ///
    /// - Throws: ``SnapshotError`` for bytes that do not check out, or a delta
    ///   of another previous checkpoint.
    /// - Complexity: O(b + n) for b delta bytes and n live labels (the order is rebuilt).
    /// At most `removedLimit` slots may be removed ones (as for ``init(fullImage:removedLimit:)``).
    mutating func apply(delta bytes: UnsafeRawBufferPointer, removedLimit: Int) throws(SnapshotError) {
        let (header, flags, body) = try LabelList.decodeSnapshotHeader(bytes, allowing: SnapshotFormat.deltaFlag, checksumVerified: true)
        guard flags & SnapshotFormat.deltaFlag != 0 else { throw SnapshotError(.invalidContent, "the image is not a delta") }
        var r = body
        let seq = header.seq
        let previousSeq = try r.varint("the previous seq")
        guard previousSeq == self.header.seq, seq > previousSeq else {
            throw SnapshotError(.invalidContent, "the delta at seq \(seq) applies to seq \(previousSeq), not to seq \(self.header.seq)")
        }
        let slotCount = try r.count("the slot count", limit: Int(UInt32.max))
        guard slotCount >= self.slotCount else {
            throw SnapshotError(.invalidContent, "the delta has \(slotCount) slots, fewer than the \(self.slotCount) before it")
        }
        let liveCount = try r.count("the live count", limit: slotCount)
        let enabledCount = try r.count("the enabled count", limit: liveCount)
        // A change takes at least 2 bytes: its number and its change byte.
        let changeCount = try r.count("the change count", limit: min(slotCount, r.remaining / 2))
        // Checked before anything is allocated for the slots: only a change makes a slot live.
        guard liveCount <= self.liveCount + changeCount, slotCount - liveCount <= removedLimit else {
            throw SnapshotError(
                .invalidContent,
                "\(slotCount) slots, \(liveCount) live, cannot follow \(self.liveCount) live labels with \(changeCount) changes and at most \(removedLimit) removed ones"
            )
        }
        let numbers = try r.ascendingSlotNumbers(changeCount, below: slotCount, naming: "changed slot")
        guard changeCount <= r.remaining else { throw SnapshotError(.invalidContent, "the change bytes run past the end") }
        let changesStart = r.position
        r.position += changeCount
        liveIndex.append(contentsOf: repeatElement(-1, count: slotCount - self.slotCount))
        // The columns' sizes from the change bytes alone; each change is checked against the slot's state as it is applied.
        var idCount = 0, liveChanges = 0, titleCount = 0
        for k in 0..<changeCount {
            let change = r.base[changesStart + k]
            idCount &+= Int(change >> 3 & 1)
            titleCount &+= Int(change >> 2 & 1)
            liveChanges &+= change & LabelList.deltaStateMask != 0 ? 1 : 0
        }
        guard idCount * 16 <= r.remaining else { throw SnapshotError(.invalidContent, "the ids of the delta run past the end") }
        let idsStart = r.position
        r.position += idCount * 16
        let versions = try r.seqsBefore(seq, count: liveChanges, naming: { "changed live slot \($0)" }, field: "version")
        var titleOffset: Int
        let lengths: [Int]
        (lengths, titleOffset) = try LabelList.decodeCompressedTitles(
            &r, count: titleCount, naming: "changed title", into: &titles, checkingUTF8: false)
        var idIndex = 0, versionIndex = 0, titleIndex = 0
        var enabled = self.enabledCount
        for (k, number) in numbers.enumerated() {
            let change = r.base[changesStart + k]
            let state = change & LabelList.deltaStateMask
            let index = Int(liveIndex[number])
            let wasLive = index >= 0
            let hasID = change & LabelList.deltaIDBit != 0, hasTitle = change & LabelList.deltaTitleBit != 0
            let valid =
                change & ~(LabelList.deltaStateMask | LabelList.deltaIDBit | LabelList.deltaTitleBit) == 0 && state <= 2
                && (state == 0 ? wasLive && !hasID && !hasTitle : (wasLive ? !hasID : hasID && hasTitle))
            guard valid else {
                // The state is left half changed: a delta that fails makes its checkpoint unusable, and the state is dropped.
                throw SnapshotError(.invalidContent, "slot \(number) has change byte \(change), which cannot follow its state before it")
            }
            let before = wasLive ? live[index] : nil
            if before?.isEnabled == true { enabled -= 1 }
            if let before, state == 0 || change & LabelList.deltaTitleBit != 0 { titles.release(before.title) }
            guard state != 0 else {
                liveIndex[number] = -1
                continue
            }
            var id = before?.id
            if change & LabelList.deltaIDBit != 0 {
                id = LabelID.load(from: r.base, at: idsStart + idIndex * 16)
                idIndex += 1
            }
            var title = before?.title ?? .empty
            if change & LabelList.deltaTitleBit != 0 {
                let length = lengths[titleIndex]
                title = length == 0 ? .empty : TitleRef(offset: titleOffset, length: length)
                titleOffset += length
                titleIndex += 1
            }
            let slot = LabelList.Slot.live(id!, title: title, isEnabled: state == 2, version: versions[versionIndex])
            versionIndex += 1
            if state == 2 { enabled += 1 }
            if index >= 0 {
                live[index] = slot
            } else {
                liveIndex[number] = Int32(live.count)
                live.append(slot)
            }
        }
        guard enabled == enabledCount else {
            throw SnapshotError(.invalidContent, "the delta counts \(enabledCount) enabled labels, its changes give \(enabled)")
        }
        try applyOrderEdit(&r, liveCount: liveCount, slotCount: slotCount)
        guard r.remaining == 0 else { throw SnapshotError(.invalidContent, "\(r.remaining) unexpected bytes after the order") }
        self.header = header
        self.slotCount = slotCount
        self.enabledCount = enabledCount
    }

    /// Reads an order edit (``LabelList/encodeOrderEdit(from:into:)``) and
    /// replaces ``order`` with the order it gives, of `liveCount` slot
    /// numbers below `slotCount`. (That it names each live slot once is
    /// checked when the list is made.)
    private mutating func applyOrderEdit(_ r: inout ByteReader, liveCount: Int, slotCount: Int) throws(SnapshotError) {
        order = try LabelList.decodeOrderEdit(&r, previous: order, liveCount: liveCount, slotCount: slotCount)
    }
}

extension LabelList {
    /// Reads an order edit (``encodeOrderEdit(from:into:)``) of `previous`
    /// and returns the order it gives: `liveCount` slot numbers below
    /// `slotCount`. That it names each live slot once is the caller's to check.
    ///
    /// - Throws: ``SnapshotError/Code/invalidContent`` for runs that do not add up.
    static func decodeOrderEdit(_ r: inout ByteReader, previous order: [UInt32], liveCount: Int, slotCount: Int) throws(SnapshotError)
        -> [UInt32]
    {
        let runCount = try r.count("the order's run count", limit: min(liveCount, r.remaining))
        var now: [UInt32] = []
        now.reserveCapacity(liveCount)
        var expected = 0
        for run in 0..<runCount {
            let head = try r.varint("order run \(run)")
            let n = head >> 1
            guard n >= 1, n <= UInt64(liveCount - now.count) else {
                throw SnapshotError(.invalidContent, "order run \(run) places \(n) labels, past the \(liveCount) live ones")
            }
            if head & 1 == 1 {
                let zigzag = try r.varint("the start of order run \(run)")
                let offset = Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1)
                let (start, overflow) = Int64(expected).addingReportingOverflow(offset)
                guard !overflow, start >= 0, start <= Int64(order.count) - Int64(n) else {
                    throw SnapshotError(.invalidContent, "order run \(run) copies \(n) labels from position \(start) of \(order.count)")
                }
                order.withUnsafeBufferPointer { previous in
                    now.append(contentsOf: UnsafeBufferPointer(rebasing: previous[Int(start)..<Int(start) + Int(n)]))
                }
                expected = Int(start) + Int(n)
            } else {
                for k in 0..<Int(n) {
                    now.append(UInt32(try r.count("slot \(k) of order run \(run)", limit: max(0, slotCount - 1))))
                }
            }
        }
        guard now.count == liveCount else {
            throw SnapshotError(.invalidContent, "the order's runs place \(now.count) labels, not the \(liveCount) live ones")
        }
        return now
    }
}
