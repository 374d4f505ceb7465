import EventLog

extension LabelList {
    /// The events `commands` become when applied in order to this state (each
    /// validated against the state the previous ones leave), after which
    /// `expectation` is checked against this (initial) state.
    ///
    /// Returns `[]` when the commands change nothing. Throws the first refusal;
    /// for more than one command the error carries its ``StoreError/batchIndex``.
    /// A batch is validated by folding its events into this list and rolling
    /// them back (``trialFold(_:steps:record:)``): the list is unchanged on return, and
    /// the cost is O(events · log n), not a copy of the list.
    mutating func events(for commands: [LabelCommand], expectation: VersionExpectation?) throws(StoreError) -> [LabelEvent] {
        var events: [LabelEvent] = []
        if commands.count == 1 {
            events = try self.events(for: commands[0])
        } else if !commands.isEmpty {
            events = try trialFold(
                commands, steps: { (state, command) throws(StoreError) in try state.events(for: command) },
                record: { event, seq in EventRecord(seq: seq, timestamp: EventTimestamp(millisecondsSince1970: 0), event: event) })
        }
        if let expectation { try check(expectation) }
        return events
    }

    /// The events one command becomes in this state, or why it is refused.
    func events(for command: LabelCommand) throws(StoreError) -> [LabelEvent] {
        switch command {
        case .add(let title, let isEnabled, let id, let at):
            try checkTitle(title)
            let id = id ?? LabelID()
            if let position = position(of: id) { throw StoreError.duplicate(id, at: position) }
            let index = at ?? count
            guard index >= 0, index <= count else { throw StoreError.position(index, count: count, valid: "0...\(count)", id: id) }
            return [.added(id: id, title: title, isEnabled: isEnabled, index: index)]

        case .rename(let id, let title):
            let label = try resolve(id)
            try checkTitle(title)
            return String.sameBytes(label.title, title) ? [] : [.renamed(id: id, oldTitle: label.title, newTitle: title)]

        case .setEnabled(let id, let isEnabled):
            let label = try resolve(id)
            return label.isEnabled == isEnabled ? [] : [.toggled(id: id, isEnabled: isEnabled)]

        case .toggle(let id):
            let label = try resolve(id)
            return [.toggled(id: id, isEnabled: !label.isEnabled)]

        case .remove(let id):
            let label = try resolve(id)
            let index = position(of: id)!
            return [.removed(id: id, index: index, title: label.title, isEnabled: label.isEnabled)]

        case .move(let id, let to):
            _ = try resolve(id)
            guard to >= 0, to < count else { throw StoreError.position(to, count: count, valid: "0..<\(count)", id: id) }
            let from = position(of: id)!
            return from == to ? [] : [.moved(id: id, from: from, to: to)]

        case .reverse:
            return count < 2 ? [] : [.reordered(order: ids.reversed())]

        case .reorder(let newOrder):
            try checkPermutation(newOrder)
            return newOrder == ids ? [] : [.reordered(order: newOrder)]
        }
    }

    /// The live label `id`, or the error for a removed or never-seen id.
    func resolve(_ id: LabelID) throws(StoreError) -> Label {
        if let number = slot(of: id) {
            let data = slots[Int(number)]
            if data.isLive { return label(slot: number) }
            throw StoreError.removed(id, at: data.seq)
        }
        throw StoreError.unknown(id)
    }

    /// Throws ``StoreError/Code/staleVersion(expected:current:)`` if what `expectation` names changed.
    func check(_ expectation: VersionExpectation) throws(StoreError) {
        switch expectation {
        case .label(let id, let expected):
            let label = try resolve(id)
            if label.version != expected {
                throw StoreError(
                    .staleVersion(expected: expected, current: label.version),
                    "Stale write: label \(id) changed at seq \(label.version) (version \(label.version)); the writer saw version \(expected).",
                    id: id, seq: label.version)
            }
        case .list(let expected):
            if listVersion != expected {
                throw StoreError(
                    .staleVersion(expected: expected, current: listVersion),
                    "Stale write: the list's membership or order changed at seq \(listVersion) (version \(listVersion)); the writer saw version \(expected).",
                    seq: listVersion)
            }
        }
    }

    private func checkTitle(_ title: String) throws(StoreError) {
        try WriteText.check(title, limit: LogLimits.maxTitleBytes, "A title")
    }

    private func checkPermutation(_ newOrder: [LabelID]) throws(StoreError) {
        var seen = [Bool](repeating: false, count: slots.count)
        for id in newOrder {
            guard let number = liveSlot(id) else {
                if let seq = removal(of: id) {
                    throw StoreError(.invalidCommand, "The new order names label \(id), which was removed at seq \(seq).", id: id, seq: seq)
                }
                throw StoreError(.invalidCommand, "The new order names label \(id), which is not in the list.", id: id)
            }
            guard !seen[Int(number)] else {
                throw StoreError(.invalidCommand, "The new order names label \(id) twice.", id: id)
            }
            seen[Int(number)] = true
        }
        if newOrder.count != count {
            let missing = order.elements.first { !seen[Int($0)] }.map { slots[Int($0)].id }
            throw StoreError(
                .invalidCommand,
                "The new order lists \(newOrder.count) of \(count) labels" + (missing.map { "; label \($0) is missing." } ?? "."),
                id: missing)
        }
    }
}
