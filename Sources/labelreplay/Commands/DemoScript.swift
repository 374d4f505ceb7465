import EventLog
import LabelProjection

/// The steps of `demo`: scenarios A and B of docs/SCENARIOS.md, written through
/// the store as a row UI (`row-ui`) and a filtered-view UI (`filter-ui`)
/// would, with what each step published to the store's subscribers.
final class DemoScript {
    /// Seqs and ids the closing hints refer to.
    struct Marks {
        /// The last seq before scenario B's labels were added.
        var scenarioBStart: UInt64 = 0
        /// Tile, the label scenario B removes and then edits.
        var tile = LabelID()
        /// The seq that removed Tile.
        var tileRemoved: UInt64 = 1
    }

    private let store: LabelStore
    private let console: Console
    private let inbox = NotificationInbox()
    private var watches: [Subscription] = []
    private var viewWatch: Subscription?
    private(set) var marks = Marks()

    init(store: LabelStore, console: Console) {
        self.store = store
        self.console = console
        watches = [
            store.subscribe(to: .membership) { [inbox] in inbox.append($0) },
            store.subscribe(to: .enabledCount) { [inbox] in inbox.append($0) }
        ]
    }

    // MARK: Scenario A

    /// Scenario A: row observation (articles 000 and 001).
    func scenarioA() throws {
        heading("Scenario A: row observation (actor row-ui)")
        try step(
            "A.1", "open: two labels, Amber (on) and Cobalt (off)", actor: "setup", note: "open",
            [.add(title: "Amber", isEnabled: true), .add(title: "Cobalt", isEnabled: false)])
        let first = try store.firstID()
        try step(
            "A.2", "\"change first label\": rename the first label to Copper and toggle it (one atomic batch)",
            actor: "row-ui", note: "change first label", [.rename(id: first, title: "Copper"), .toggle(id: first)])
        try step(
            "A.3", "rename the first label back to Amber: only its title changes", actor: "row-ui", note: "rename first label",
            [.rename(id: try store.firstID(), title: "Amber")])
        try step(
            "A.4", "add \"New label\": a third label, enabled, at the end", actor: "row-ui", note: "add",
            [.add(title: "New label", isEnabled: true)])
        var round = 1
        while store.count > 0 {
            try step("A.5", "remove the last label (\(round))", actor: "row-ui", note: "remove last", [.remove(id: try store.lastID())])
            round += 1
        }
        console.line("A.5  the list is empty: positional actions have nothing to act on (an error, not a crash)")
        for (action, pick) in [("change first", store.firstID), ("remove last", store.lastID)] {
            do {
                _ = try pick()
            } catch {
                console.line("       \(action): " + Escape.text(error.message))
            }
        }
        console.line("       add still works: scenario B starts by adding its labels")
    }

    // MARK: Scenario B

    /// Scenario B: editing through a filtered view (article 002).
    func scenarioB() throws {
        heading("Scenario B: editing through a filtered view (actor filter-ui)")
        marks.scenarioBStart = store.lastSeq
        let ids = try step(
            "B.0", "start: Grid (on), Tile (off), Ring (on)", actor: "setup", note: "open",
            [.add(title: "Grid", isEnabled: true), .add(title: "Tile", isEnabled: false), .add(title: "Ring", isEnabled: true)]
        )
        .compactMap(\.event.labelID)
        let (grid, tile) = (ids[0], ids[1])
        marks.tile = tile

        let ring = ViewQuery("Ring")
        let ringRow = try view("B.1", ring)[0]
        console.line("       the row's visible position is 0; its position in the list is \(store.snapshot.position(of: ringRow.id) ?? -1)")
        try step(
            "B.2", "rename that row to \"Ring Two\": the write goes to Ring's id, not to list position 0",
            actor: "filter-ui", note: "rename row 0 of view \"Ring\"", [.rename(id: ringRow.id, title: "Ring Two")])
        try view("B.3", .all, note: "clear the query")
        try step("B.3", "reverse the list", actor: "filter-ui", note: "reverse", [.reverse])
        try step(
            "B.4", "rename Grid to \"Grid Two\": only that label's title changes", actor: "filter-ui", note: "rename Grid",
            [.rename(id: grid, title: "Grid Two")])
        try view("B.5", ViewQuery(enabledOnly: true), note: "enabled-only on")
        try step(
            "B.5", "disable Grid Two: the row leaves the view, the label stays in the list", actor: "filter-ui",
            note: "disable in view enabled-only",
            [.setEnabled(id: grid, isEnabled: false)])
        try view("B.6", .all, note: "enabled-only off: Grid Two is visible again, disabled")
        let tileRow = try view("B.7", ViewQuery("Tile"))[0]
        let removal = try step(
            "B.7", "remove that row: gone from the view and from the list", actor: "filter-ui", note: "remove row 0 of view \"Tile\"",
            [.remove(id: tileRow.id)])
        marks.tileRemoved = removal.first?.seq ?? 1
        console.line("B.8  an edit still aimed at the removed Tile arrives (filter-ui still holds its row)")
        do {
            try store.rename(tileRow.id, to: "Tile Two", options: WriteOptions(actor: "filter-ui", note: "B.8 edit from a stale row"))
            console.line("       unexpectedly accepted")
        } catch {
            console.line("       rejected: " + Escape.text(error.message))
            if let audit = error.auditSeq { console.line("       recorded as the audit record seq \(audit); nothing was re-inserted") }
        }
        listLine()
    }

    // MARK: Steps

    private func heading(_ text: String) {
        console.line()
        console.line(text)
    }

    /// Runs `commands` as one atomic write by `actor`, then prints the records, what was published, and the list.
    @discardableResult
    private func step(_ number: String, _ title: String, actor: String, note: String, _ commands: [LabelCommand]) throws -> [EventRecord] {
        console.line("\(number)  \(Escape.text(title))")
        let records = try store.execute(batch: commands, options: WriteOptions(actor: actor, note: "\(number) \(note)"))
        for record in records where record.event.kind == .added {
            guard let id = record.event.labelID else { continue }
            watches.append(store.subscribe(to: .title(id)) { [inbox] in inbox.append($0) })
            watches.append(store.subscribe(to: .isEnabled(id)) { [inbox] in inbox.append($0) })
        }
        var table = Table([.right])
        for record in records {
            let cells = EventText.row(record) { self.store.label($0)?.title }
            table.append(["seq " + cells[0], cells[3], cells[4], cells[5].components(separatedBy: "  # ")[0]])
        }
        table.write(indent: "       ", to: console)
        published()
        listLine()
        return records
    }

    /// Shows a filtered view (and watches it, so the next steps show its row changes).
    @discardableResult
    private func view(_ number: String, _ query: ViewQuery, note: String? = nil) throws -> [Label] {
        viewWatch = query == .all ? nil : store.subscribe(to: .view(query)) { [inbox] in inbox.append($0) }
        let rows = store.view(query)
        let positions = rows.map { store.snapshot.position(of: $0.id) ?? -1 }
        let what = note ?? "query \(Escape.quoted(query.text))"
        console.line("\(number)  \(what): \(EventText.viewName(query)) shows \(EventText.inline(rows, positions: positions))")
        return rows
    }

    /// `published to: …`, from what the subscriptions received during the step, per seq when it appended several.
    private func published() {
        let bySeq = Dictionary(grouping: inbox.take(), by: \.seq)
        var parts: [String] = []
        var membership = false
        for seq in bySeq.keys.sorted() {
            let told = bySeq[seq]!.sorted { $0.dependency.displayOrder < $1.dependency.displayOrder }.map { notification -> String in
                if case .membership = notification.dependency { membership = true }
                return describe(notification)
            }
            parts.append((bySeq.count > 1 ? "seq \(seq) → " : "") + told.joined(separator: ", "))
        }
        var line = "       published to: " + (parts.isEmpty ? "nobody" : parts.joined(separator: "; "))
        if !membership && !parts.isEmpty { line += " — not to the list (no membership change)" }
        console.line(line)
    }

    private func describe(_ notification: ChangeNotification) -> String {
        let name = { (id: LabelID) in EventText.name(id, title: self.store.label(id)?.title ?? notification.change.before?.title) }
        switch notification.dependency {
        case .membership: return "list"
        case .title(let id): return "title of \(name(id))"
        case .isEnabled(let id): return "isEnabled of \(name(id))"
        case .enabledCount: return "enabled count \(notification.enabledCount.old) → \(notification.enabledCount.new)"
        case .view(let query):
            let count = notification.viewChanges.count
            return "\(EventText.viewName(query)) (\(count) row change\(count == 1 ? "" : "s"))"
        default: return notification.dependency.description
        }
    }

    private func listLine() {
        let list = store.snapshot
        console.line("       list (\(list.count), \(list.enabledCount) enabled): \(EventText.inline(list.labels))")
    }
}
