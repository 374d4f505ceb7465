import EventLog
import LabelProjection

/// Prints what `trace` found for each event: the event, the subscribers the
/// store notified (with old → new values and view row changes), and those it
/// did not. Keeps a mirror of the view's rows, updated only from the view
/// changes delivered (exactly what a table's data source would do).
final class TracePrinter {
    private let console: Console
    private let query: ViewQuery?
    private let json: Bool
    private let style: Style
    /// The view's rows as its subscriber knows them.
    private var rows: [LabelID] = []

    init(console: Console, query: ViewQuery?, json: Bool, style: Style = .plain) {
        self.console = console
        self.query = query
        self.json = json
        self.style = style
    }

    /// Sets the mirrored rows to the view's rows at a seq (when tracing starts from a checkpoint).
    func resetRows(_ rows: [LabelID]) { self.rows = rows }

    /// Applies an event's view changes to the mirrored rows; call it for every event, printed or not.
    func follow(_ notifications: [ChangeNotification]) {
        for notification in notifications {
            guard case .view = notification.dependency else { continue }
            for viewChange in notification.viewChanges { viewChange.apply(to: &rows) }
        }
    }

    /// Prints one event (after ``follow(_:)`` saw its notifications); `list` is the state right after it,
    /// `lastTitle` names labels that are no longer in it.
    func print(
        _ change: LabelChange, notifications: [ChangeNotification], list: LabelList,
        lastTitle: (LabelID) -> String?
    ) throws {
        let sorted = notifications.sorted { $0.dependency.displayOrder < $1.dependency.displayOrder }
        let heard = Set(sorted.map(\.dependency.kindName))
        let watched: [Dependency] = [.membership] + (query.map { [.view($0)] } ?? []) + [.enabledCount]
        let quiet = watched.filter { !heard.contains($0.kindName) }
        if json {
            let event = TracedEvent(
                seq: change.seq, record: change.record, notified: sorted.map(traced),
                notNotified: quiet.map(\.kindName), count: list.count, enabledCount: list.enabledCount)
            console.json(event)
        } else {
            text(change, sorted, quiet: quiet, list: list, lastTitle: lastTitle)
        }
    }

    private func text(
        _ change: LabelChange, _ notifications: [ChangeNotification], quiet: [Dependency], list: LabelList,
        lastTitle: (LabelID) -> String?
    ) {
        let title: (LabelID) -> String? = { list.label($0)?.title ?? lastTitle($0) }
        var cells = EventText.row(change.record, style: style, title: title)
        cells[3] = style.paint(cells[3], Style.role(of: change.record.event.kind))
        console.line("seq " + cells.filter { !$0.isEmpty }.joined(separator: "  "))
        var table = Table()
        for notification in notifications {
            table.append(["→", name(notification.dependency), detail(notification, list: list, title: title)])
        }
        if !quiet.isEmpty {
            table.append(["·", "not notified", quiet.map(name).joined(separator: ", ")])
        }
        if notifications.isEmpty && change.changesNothing {
            table.append(["", "", "(the record changes nothing, so no subscriber is told)"])
        }
        table.write(indent: "  ", to: console)
    }

    /// `list`, `title(3f2a9c1e)`, `view "ring" enabled-only`, `enabled count`.
    private func name(_ dependency: Dependency) -> String {
        switch dependency {
        case .membership: "list"
        case .title(let id): "title(\(EventText.shortID(id)))"
        case .isEnabled(let id): "isEnabled(\(EventText.shortID(id)))"
        case .label(let id): "label(\(EventText.shortID(id)))"
        case .view(let query): EventText.viewName(query)
        case .enabledCount: "enabled count"
        case .everything: "everything"
        }
    }

    private func detail(_ notification: ChangeNotification, list: LabelList, title: (LabelID) -> String?) -> String {
        switch notification.dependency {
        case .membership:
            return "\(list.count) label\(list.count == 1 ? "" : "s"): " + EventText.summary(list.ids, title: title)
        case .title:
            let value = notification.title
            return "\(value?.old.map(Escape.quoted) ?? "(not live)") → \(value?.new.map(Escape.quoted) ?? "(removed)")"
        case .isEnabled:
            let value = notification.isEnabled
            return "\(value?.old.map(EventText.onOff) ?? "(not live)") → \(value?.new.map(EventText.onOff) ?? "(removed)")"
        case .view:
            let changes = notification.viewChanges.map { change -> String in
                let who = EventText.name(change.id, title: title(change.id))
                switch change {
                case .inserted(_, let at): return "row \(at) inserted (\(who))"
                case .removed(_, let at): return "row \(at) removed (\(who))"
                case .moved(_, let from, let to): return "row \(from) moved to \(to) (\(who))"
                case .updated(_, let at): return "row \(at) updated (\(who))"
                }
            }
            return changes.joined(separator: "; ") + "; rows now: " + EventText.summary(rows, title: title)
        case .enabledCount:
            return "\(notification.enabledCount.old) → \(notification.enabledCount.new)"
        case .label, .everything:
            return ""
        }
    }

    private func traced(_ notification: ChangeNotification) -> TracedNotification {
        var traced = TracedNotification(dependency: notification.dependency.kindName)
        switch notification.dependency {
        case .title(let id):
            traced.id = id
            traced.oldTitle = notification.title?.old
            traced.newTitle = notification.title?.new
        case .isEnabled(let id):
            traced.id = id
            traced.oldIsEnabled = notification.isEnabled?.old
            traced.newIsEnabled = notification.isEnabled?.new
        case .view(let query):
            traced.query = query
            traced.changes = notification.viewChanges.map(TracedViewChange.init)
            traced.rows = rows
        case .enabledCount:
            traced.oldCount = notification.enabledCount.old
            traced.newCount = notification.enabledCount.new
        default:
            break
        }
        return traced
    }
}
