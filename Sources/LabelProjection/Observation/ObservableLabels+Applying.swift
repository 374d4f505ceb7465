import EventLog

/// How the list model applies the store's change descriptions, and hands
/// its views theirs: the notifications of the model's subscription and of its
/// views' come out of one mailbox in one order (record by record, the
/// model's first), so a view is told about a record only after the model
/// applied it and holds the rows the view needs.
extension ObservableLabels {
    /// Applies one notification from the shared mailbox: the model's own
    /// (``Dependency/everything``) or a view's (``Dependency/view(_:)``).
    func route(_ notification: ChangeNotification) {
        let wasRouting = routing
        routing = true
        defer { routing = wasRouting }
        switch notification.dependency {
        case .everything:
            apply(notification.change)
        case .view(let query):
            for view in liveViews(query) { view.apply(notification) }
        default:
            break
        }
    }

    /// Applies one record's change description (ignored if already applied; a
    /// gap, or a change the rows contradict, triggers ``reload()``).
    func apply(_ change: LabelChange) {
        guard change.seq > appliedSeq else { return }
        guard change.seq == appliedSeq + 1, applyRows(change) else {
            reload()
            return
        }
        if count != rows.count { count = rows.count }
        if enabledCount != change.enabledCountAfter { enabledCount = change.enabledCountAfter }
        appliedSeq = change.seq
        appliedRecords += 1
        resumeCaughtUpWaiters()
    }

    /// Edits `rows` and the row objects as `change` says: the label after the
    /// record for a property change; the event's positions (checked against
    /// the rows) for a membership change. Returns `false` if the rows
    /// contradict the change.
    private func applyRows(_ change: LabelChange) -> Bool {
        switch change.record.event {
        case .added(let id, _, _, let index):
            guard let label = change.after, byID[id] == nil, index <= rows.count else { return false }
            let row = ObservableLabel(label, store: store, model: self)
            byID[id] = row
            rows.insert(row, at: index)
        case .removed(let id, let index, _, _):
            guard index < rows.count, rows[index].id == id else { return false }
            byID[id] = nil
            rows.remove(at: index)
        case .moved(let id, let from, let to):
            guard from < rows.count, to < rows.count, rows[from].id == id else { return false }
            rows.moveElement(from: from, to: to)
        case .reordered(let order):
            guard change.membershipChanged else { break }
            guard order.count == rows.count else { return false }
            var next: [ObservableLabel] = []
            next.reserveCapacity(order.count)
            for id in order {
                guard let row = byID[id] else { return false }
                next.append(row)
            }
            rows = next
        case .renamed, .toggled:
            guard let label = change.after, let row = byID[label.id] else { return false }
            row.update(from: label)
        case .rejected:
            break
        }
        return true
    }

    /// Registers `view` to be handed the notifications of `query`.
    func register(_ view: ObservableView, for query: ViewQuery) {
        views[query, default: []].append(WeakView(view: view))
    }

    /// Stops handing `view` the notifications of `query`.
    func unregister(_ view: ObservableView, from query: ViewQuery) {
        views[query]?.removeAll { $0.view == nil || $0.view === view }
        if views[query]?.isEmpty == true { views[query] = nil }
    }

    /// The live views of `query` (every query when `nil`), dropping released ones.
    func liveViews(_ query: ViewQuery? = nil) -> [ObservableView] {
        let queries = query.map { [$0] } ?? Array(views.keys)
        var result: [ObservableView] = []
        for query in queries {
            guard let entries = views[query] else { continue }
            let live = entries.compactMap(\.view)
            if live.count != entries.count { views[query] = live.isEmpty ? nil : live.map { WeakView(view: $0) } }
            result += live
        }
        return result
    }
}

extension Array {
    /// Moves the element at `from` to `to` (its index afterwards), in place:
    /// a removal and an insertion, each shifting the elements after the index
    /// as one block of memory (no per-element retain and release). O(n).
    mutating func moveElement(from: Int, to: Int) {
        guard from != to else { return }
        insert(remove(at: from), at: to)
    }
}
