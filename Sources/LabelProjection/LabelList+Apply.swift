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
    /// - `renamed`: the id is live and `oldTitle` is its title;
    /// - `toggled`: the id is live and its `isEnabled` differs from the new value;
    /// - `removed`: `index` holds the id, and `title`/`isEnabled` are the label's;
    /// - `moved`: `from` holds the id, `to` is in `0..<count`, and `from != to`;
    /// - `reordered`: the order is a permutation of the live ids.
    ///
    /// A `renamed` to the same title or a `reordered` to the current order is
    /// consistent but changes nothing (no version moves). A `rejected` audit
    /// record changes nothing. On error the list is unchanged.
    @discardableResult
    public mutating func apply(_ record: EventRecord) throws(ProjectionError) -> LabelChange {
        let seq = record.seq
        guard seq == lastSeq + 1 else {
            throw ProjectionError(.seqOutOfOrder, "seq \(seq) cannot follow seq \(lastSeq): records must be applied in consecutive seq order", seq: seq)
        }
        let enabledBefore = enabledCount
        var membershipChanged = false
        var before: Label?
        var after: Label?

        switch record.event {
        case .added(let id, let title, let isEnabled, let index):
            if byID[id] != nil {
                throw ProjectionError(.duplicateID, "seq \(seq): added label \(id), but a live label already has that id", seq: seq, id: id)
            }
            guard index >= 0, index <= order.count else {
                throw ProjectionError(.indexOutOfRange, "seq \(seq): added label \(id) at index \(index), outside 0...\(order.count)", seq: seq, id: id)
            }
            let label = Label(id: id, title: title, isEnabled: isEnabled, version: seq)
            order.insert(id, at: index)
            byID[id] = label
            removedAt[id] = nil
            if isEnabled { enabledCount += 1 }
            listVersion = seq
            membershipChanged = true
            after = label

        case .renamed(let id, let oldTitle, let newTitle):
            var label = try live(id, seq: seq, doing: "renamed")
            guard label.title == oldTitle else {
                throw ProjectionError(.titleMismatch, "seq \(seq): renamed label \(id) from \"\(oldTitle)\", but its title is \"\(label.title)\"", seq: seq, id: id)
            }
            before = label
            if oldTitle != newTitle {
                label.title = newTitle
                label.version = seq
                byID[id] = label
            }
            after = label

        case .toggled(let id, let isEnabled):
            var label = try live(id, seq: seq, doing: "toggled")
            guard label.isEnabled != isEnabled else {
                throw ProjectionError(.stateMismatch, "seq \(seq): toggled label \(id) to \(isEnabled ? "enabled" : "disabled"), but it already is", seq: seq, id: id)
            }
            before = label
            label.isEnabled = isEnabled
            label.version = seq
            byID[id] = label
            enabledCount += isEnabled ? 1 : -1
            after = label

        case .removed(let id, let index, let title, let isEnabled):
            let label = try live(id, seq: seq, doing: "removed")
            try check(index: index, holds: id, seq: seq, what: "removed label \(id) at index \(index)")
            guard label.title == title, label.isEnabled == isEnabled else {
                throw ProjectionError(.stateMismatch, "seq \(seq): removed label \(id) as \"\(title)\" (\(isEnabled ? "on" : "off")), but it is \"\(label.title)\" (\(label.isEnabled ? "on" : "off"))", seq: seq, id: id)
            }
            order.remove(at: index)
            byID[id] = nil
            removedAt[id] = seq
            if isEnabled { enabledCount -= 1 }
            listVersion = seq
            membershipChanged = true
            before = label

        case .moved(let id, let from, let to):
            let label = try live(id, seq: seq, doing: "moved")
            try check(index: from, holds: id, seq: seq, what: "moved label \(id) from index \(from)")
            guard to >= 0, to < order.count else {
                throw ProjectionError(.indexOutOfRange, "seq \(seq): moved label \(id) to index \(to), outside 0..<\(order.count)", seq: seq, id: id)
            }
            guard from != to else {
                throw ProjectionError(.invalidEvent, "seq \(seq): moved label \(id) from index \(from) to the same index", seq: seq, id: id)
            }
            order.move(from: from, to: to)
            listVersion = seq
            membershipChanged = true
            before = label
            after = label

        case .reordered(let newOrder):
            try checkPermutation(newOrder, seq: seq)
            if newOrder != order.ids {
                order.replace(with: newOrder)
                listVersion = seq
                membershipChanged = true
            }

        case .rejected:
            break
        }

        lastSeq = seq
        lastTimestamp = record.timestamp
        return LabelChange(record: record, membershipChanged: membershipChanged, before: before, after: after,
                           enabledCountBefore: enabledBefore, enabledCountAfter: enabledCount)
    }

    /// The live label `id`, or an error saying it was removed (at which seq) or never seen.
    private func live(_ id: LabelID, seq: UInt64, doing what: String) throws(ProjectionError) -> Label {
        if let label = byID[id] { return label }
        if let removed = removedAt[id] {
            throw ProjectionError(.removedID, "seq \(seq): \(what) label \(id), which was removed at seq \(removed)", seq: seq, id: id)
        }
        throw ProjectionError(.unknownID, "seq \(seq): \(what) label \(id), which the log has never added", seq: seq, id: id)
    }

    private func check(index: Int, holds id: LabelID, seq: UInt64, what: String) throws(ProjectionError) {
        guard index >= 0, index < order.count else {
            throw ProjectionError(.indexOutOfRange, "seq \(seq): \(what), outside 0..<\(order.count)", seq: seq, id: id)
        }
        guard order[index] == id else {
            let actual = order.position(of: id).map(String.init) ?? "?"
            throw ProjectionError(.indexMismatch, "seq \(seq): \(what), but that label is at index \(actual)", seq: seq, id: id)
        }
    }

    private func checkPermutation(_ newOrder: [LabelID], seq: UInt64) throws(ProjectionError) {
        var seen = Set<LabelID>(minimumCapacity: newOrder.count)
        for id in newOrder {
            guard byID[id] != nil else {
                throw ProjectionError(.notAPermutation, "seq \(seq): reordered names label \(id), which is not live", seq: seq, id: id)
            }
            guard seen.insert(id).inserted else {
                throw ProjectionError(.notAPermutation, "seq \(seq): reordered names label \(id) twice", seq: seq, id: id)
            }
        }
        guard newOrder.count == order.count else {
            let missing = order.ids.first { !seen.contains($0) }
            throw ProjectionError(.notAPermutation, "seq \(seq): reordered lists \(newOrder.count) of \(order.count) live labels" + (missing.map { "; label \($0) is missing" } ?? ""), seq: seq, id: missing)
        }
    }
}
