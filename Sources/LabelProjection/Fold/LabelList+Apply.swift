import EventLog

extension LabelList {
    /// Folds one record into the list and returns what it changed.
    ///
    /// This is *the* fold: the store, time travel, views, catch-up and
    /// verification all go through it. It checks that the event is
    /// consistent with the current state before changing anything:
    /// - the record's seq is `lastSeq + 1`;
    /// - `added`: the id is not live (a removed id may come back) and
    ///   `index` is in `0...count`;
    /// - `renamed`: the id is live and `oldTitle` is its title (byte for byte);
    /// - `toggled`: the id is live and its `isEnabled` differs from the new value;
    /// - `removed`: `index` holds the id, and `title` (byte for byte) and `isEnabled` are the label's;
    /// - `moved`: `from` holds the id, `to` is in `0..<count`, and `from != to`;
    /// - `reordered`: the order is a permutation of the live ids.
    ///
    /// A `renamed` to the same title or a `reordered` to the current order is
    /// consistent but changes nothing (no version moves). A `rejected` audit
    /// record changes nothing. On error the list is unchanged.
    ///
    /// Complexity: O(1) expected for `renamed`, `toggled` and `rejected`;
    /// O(log n) for `added`, `removed` and `moved` (a position lookup and an
    /// edit of the counted B+-tree, see `LabelOrder`); O(n) for `reordered`,
    /// which rebuilds the order.
    /// - Throws: ``ProjectionError`` naming the seq and id:
    ///   ``ProjectionError/Code/seqOutOfOrder`` unless `record.seq` is
    ///   ``lastSeq`` + 1; for an event the state contradicts,
    ///   ``ProjectionError/Code/unknownID``, ``ProjectionError/Code/duplicateID``,
    ///   ``ProjectionError/Code/indexOutOfRange`` or another code of
    ///   ``ProjectionError/Code``. The list is unchanged.
    @discardableResult
    public mutating func apply(_ record: EventRecord) throws(ProjectionError) -> LabelChange {
        let enabledBefore = enabledCount
        let (membershipChanged, before, after) = try fold(
            seq: record.seq, timestamp: record.timestamp, event: record.event, describing: true)
        return LabelChange(
            record: record, membershipChanged: membershipChanged, before: before, after: after,
            enabledCountBefore: enabledBefore, enabledCountAfter: enabledCount)
    }

    /// Folds one record into the list exactly as ``apply(_:)`` does (the
    /// same checks, the same errors, the same state afterwards) without
    /// describing the change: for replaying a log, where nobody reads the
    /// ``LabelChange``. No title is made into a `String`, so a fold of a
    /// `renamed`, `toggled` or `moved` allocates nothing.
    ///
    /// - Throws: ``ProjectionError``, as ``apply(_:)``; the list is unchanged.
    /// - Complexity: As ``apply(_:)``.
    public mutating func replay(_ record: EventRecord) throws(ProjectionError) {
        _ = try fold(seq: record.seq, timestamp: record.timestamp, event: record.event, describing: false)
    }

    /// Folds one record decoded in place (`EventRecordView`, e.g. from
    /// `LogWriter.openWithViews`) exactly as ``replay(_:)-(EventRecord)`` folds the same
    /// record: titles are compared and copied as bytes, so folding a log this
    /// way allocates nothing per record beyond the list's own growth.
    ///
    /// - Throws: ``ProjectionError``, as ``apply(_:)``; the list is unchanged.
    /// - Complexity: As ``apply(_:)``.
    public mutating func replay(_ view: EventRecordView) throws(ProjectionError) {
        _ = try fold(seq: view.seq, timestamp: view.timestamp, event: view.event, describing: false)
    }

    /// The fold behind ``apply(_:)`` and ``replay(_:)``, generic over how the
    /// record holds its texts (`String` or a borrowed `UTF8Text`, see
    /// ``FoldText``) and a reorder's ids; `before`/`after` are made only
    /// when `describing` (a constant in each caller, so the other path
    /// compiles away).
    @inline(__always)
    mutating func fold<Text: FoldText, Order: Collection<LabelID>>(
        seq: UInt64, timestamp: EventTimestamp, event: LabelEventOf<Text, Order>, describing: Bool
    ) throws(ProjectionError) -> (membershipChanged: Bool, before: Label?, after: Label?) {
        defer { _checkInvariantsAfterFold() }
        guard seq == lastSeq + 1 else {
            throw ProjectionError(
                .seqOutOfOrder, "seq \(seq) cannot follow seq \(lastSeq): records must be applied in consecutive seq order", seq: seq)
        }
        var membershipChanged = false
        var before: Label?
        var after: Label?

        switch event {
        case .added(let id, let title, let isEnabled, let index):
            let known = slot(of: id)
            if let known, slots[Int(known)].isLive {
                throw ProjectionError(.duplicateID, "seq \(seq): added label \(id), but a live label already has that id", seq: seq, id: id)
            }
            guard index >= 0, index <= order.count else {
                throw ProjectionError(
                    .indexOutOfRange, "seq \(seq): added label \(id) at index \(index), outside 0...\(order.count)", seq: seq, id: id)
            }
            let data = Slot.live(id, title: titles.append(title), isEnabled: isEnabled, version: seq)
            let number: UInt32
            if let known {
                setSlot(known, data)
                number = known
            } else {
                number = appendSlot(data)
            }
            editOrder(.inserted(number, at: index))
            if isEnabled { enabledCount += 1 }
            listVersion = seq
            membershipChanged = true
            if describing { after = data.label(title: title.stringValue) }

        case .renamed(let id, let oldTitle, let newTitle):
            let number = try live(id, seq: seq, doing: "renamed")
            let slot = slots[Int(number)]
            guard titles.equals(slot.title, oldTitle) else {
                throw ProjectionError(
                    .titleMismatch,
                    "seq \(seq): renamed label \(id) from \"\(oldTitle.stringValue)\", but its title is \"\(titles.string(slot.title))\"",
                    seq: seq, id: id)
            }
            if describing { before = slot.label(title: oldTitle.stringValue) }
            if TitleArena.sameBytes(oldTitle, newTitle) {
                after = before
            } else {
                titles.release(slot.title)
                let renamed = Slot.live(id, title: titles.append(newTitle), isEnabled: slot.isEnabled, version: seq)
                setSlot(number, renamed)
                if describing { after = renamed.label(title: newTitle.stringValue) }
                compactTitlesIfNeeded()
            }

        case .toggled(let id, let isEnabled):
            let number = try live(id, seq: seq, doing: "toggled")
            let slot = slots[Int(number)]
            guard slot.isEnabled != isEnabled else {
                throw ProjectionError(
                    .stateMismatch, "seq \(seq): toggled label \(id) to \(isEnabled ? "enabled" : "disabled"), but it already is", seq: seq,
                    id: id)
            }
            let toggled = Slot.live(id, title: slot.title, isEnabled: isEnabled, version: seq)
            if describing {
                let title = titles.string(slot.title)
                before = slot.label(title: title)
                after = toggled.label(title: title)
            }
            setSlot(number, toggled)
            enabledCount += isEnabled ? 1 : -1

        case .removed(let id, let index, let title, let isEnabled):
            let number = try live(id, seq: seq, doing: "removed")
            let slot = slots[Int(number)]
            try check(index: index, holds: number, id: id, seq: seq, what: "removed label \(id) at index \(index)")
            guard titles.equals(slot.title, title), slot.isEnabled == isEnabled else {
                throw ProjectionError(
                    .stateMismatch,
                    "seq \(seq): removed label \(id) as \"\(title.stringValue)\" (\(isEnabled ? "on" : "off")), but it is \"\(titles.string(slot.title))\" (\(slot.isEnabled ? "on" : "off"))",
                    seq: seq, id: id)
            }
            editOrder(.removed(number, at: index))
            titles.release(slot.title)
            setSlot(number, .removed(id, at: seq))
            if isEnabled { enabledCount -= 1 }
            listVersion = seq
            membershipChanged = true
            if describing { before = slot.label(title: title.stringValue) }
            compactTitlesIfNeeded()

        case .moved(let id, let from, let to):
            let number = try live(id, seq: seq, doing: "moved")
            try check(index: from, holds: number, id: id, seq: seq, what: "moved label \(id) from index \(from)")
            guard to >= 0, to < order.count else {
                throw ProjectionError(
                    .indexOutOfRange, "seq \(seq): moved label \(id) to index \(to), outside 0..<\(order.count)", seq: seq, id: id)
            }
            guard from != to else {
                throw ProjectionError(.invalidEvent, "seq \(seq): moved label \(id) from index \(from) to the same index", seq: seq, id: id)
            }
            editOrder(.moved(from: from, to: to))
            listVersion = seq
            membershipChanged = true
            if describing {
                before = label(slot: number)
                after = before
            }

        case .reordered(let newOrder):
            let numbers = try checkPermutation(newOrder, seq: seq)
            if !order.elementsEqual(numbers) {
                editOrder(.replaced(with: numbers))
                listVersion = seq
                membershipChanged = true
            }

        case .rejected:
            break
        }

        lastSeq = seq
        lastTimestamp = timestamp
        return (membershipChanged, before, after)
    }

    /// The slot of the live label `id`, or an error saying it was removed (at which seq) or never seen.
    private func live(_ id: LabelID, seq: UInt64, doing what: String) throws(ProjectionError) -> UInt32 {
        if let number = slot(of: id) {
            let data = slots[Int(number)]
            if data.isLive { return number }
            throw ProjectionError(.removedID, "seq \(seq): \(what) label \(id), which was removed at seq \(data.seq)", seq: seq, id: id)
        }
        throw ProjectionError(.unknownID, "seq \(seq): \(what) label \(id), which the log has never added", seq: seq, id: id)
    }

    private func check(index: Int, holds number: UInt32, id: LabelID, seq: UInt64, what: @autoclosure () -> String) throws(ProjectionError)
    {
        guard index >= 0, index < order.count else {
            throw ProjectionError(.indexOutOfRange, "seq \(seq): \(what()), outside 0..<\(order.count)", seq: seq, id: id)
        }
        guard order[index] == number else {
            let actual = order.position(of: number).map(String.init) ?? "?"
            throw ProjectionError(.indexMismatch, "seq \(seq): \(what()), but that label is at index \(actual)", seq: seq, id: id)
        }
    }

    /// The slots of `newOrder` if it is a permutation of the live ids (O(n)).
    private func checkPermutation(_ newOrder: some Collection<LabelID>, seq: UInt64) throws(ProjectionError) -> [UInt32] {
        var seen = [Bool](repeating: false, count: slots.count)
        var numbers: [UInt32] = []
        numbers.reserveCapacity(newOrder.count)
        for id in newOrder {
            guard let number = liveSlot(id) else {
                throw ProjectionError(.notAPermutation, "seq \(seq): reordered names label \(id), which is not live", seq: seq, id: id)
            }
            guard !seen[Int(number)] else {
                throw ProjectionError(.notAPermutation, "seq \(seq): reordered names label \(id) twice", seq: seq, id: id)
            }
            seen[Int(number)] = true
            numbers.append(number)
        }
        guard newOrder.count == order.count else {
            let missing = order.elements.first { !seen[Int($0)] }.map { slots[Int($0)].id }
            throw ProjectionError(
                .notAPermutation,
                "seq \(seq): reordered lists \(newOrder.count) of \(order.count) live labels"
                    + (missing.map { "; label \($0) is missing" } ?? ""), seq: seq, id: missing)
        }
        return numbers
    }
}
