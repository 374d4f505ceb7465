import EventLog
import LabelProjection

/// Collects what store subscriptions deliver, for `trace` and `demo`.
/// Callbacks may run on any thread, so the list is behind a lock (`Locked`).
final class NotificationInbox: Sendable {
    private let items = Locked<[ChangeNotification]>([])

    /// Adds a delivered notification (the subscription callback).
    func append(_ item: ChangeNotification) { items.withLock { $0.append(item) } }

    /// Everything delivered since the last call, in delivery order.
    func take() -> [ChangeNotification] {
        items.withLock { items in
            defer { items = [] }
            return items
        }
    }
}

extension Dependency {
    /// The dependency's kind as `trace --json` names it: `membership`, `title`, `isEnabled`, `label`, `view`, `enabledCount`, `everything`.
    var kindName: String {
        switch self {
        case .membership: "membership"
        case .title: "title"
        case .isEnabled: "isEnabled"
        case .label: "label"
        case .view: "view"
        case .enabledCount: "enabledCount"
        case .everything: "everything"
        }
    }

    /// The order in which notifications are shown: the list, a label's title, its isEnabled, the view, the enabled count.
    var displayOrder: Int {
        switch self {
        case .membership: 0
        case .title: 1
        case .isEnabled: 2
        case .label: 3
        case .view: 4
        case .enabledCount: 5
        case .everything: 6
        }
    }
}
