import EventLog

/// The registry of subscribers, bucketed by dependency so that dispatching a
/// change costs in proportion to the subscribers interested in it (plus a
/// constant number of bucket lookups), not to all subscribers.
///
/// It also owns the filtered views that view subscribers depend on: one
/// ``FilteredView`` per distinct query, maintained incrementally while at
/// least one subscriber uses it (each event updates every maintained view).
///
/// Not thread-safe by itself: it lives inside the store's lock.
struct SubscriptionHub {
    private struct ViewEntry {
        var view: FilteredView
        var subscribers: [UInt64: SubscriberBox] = [:]
    }

    private var buckets: [Dependency: [UInt64: SubscriberBox]] = [:]
    private var views: [ViewQuery: ViewEntry] = [:]

    /// The number of registered subscribers.
    private(set) var count = 0

    /// Every registered subscriber (O(subscribers)).
    var subscribers: [SubscriberBox] { buckets.values.flatMap(\.values) + views.values.flatMap(\.subscribers.values) }

    /// The maintained view for `query`, if a subscriber keeps one.
    func view(_ query: ViewQuery) -> FilteredView? { views[query]?.view }

    /// Registers `box`; for a view dependency, starts maintaining the view over `list` if needed.
    mutating func insert(_ box: SubscriberBox, list: LabelList) {
        if case .view(let query) = box.dependency {
            views[query, default: ViewEntry(view: FilteredView(query: query, list: list))].subscribers[box.id] = box
        } else {
            buckets[box.dependency, default: [:]][box.id] = box
        }
        count += 1
    }

    /// Unregisters a subscriber and returns it (release it outside the store lock).
    mutating func remove(id: UInt64, dependency: Dependency) -> SubscriberBox? {
        let removed: SubscriberBox?
        if case .view(let query) = dependency {
            removed = views[query]?.subscribers.removeValue(forKey: id)
            if views[query]?.subscribers.isEmpty == true { views[query] = nil }
        } else {
            removed = buckets[dependency]?.removeValue(forKey: id)
            if buckets[dependency]?.isEmpty == true { buckets[dependency] = nil }
        }
        if removed != nil { count -= 1 }
        return removed
    }

    /// Unregisters everyone and returns them (finish them outside the store lock).
    mutating func removeAll() -> [SubscriberBox] {
        let all = buckets.values.flatMap(\.values) + views.values.flatMap(\.subscribers.values)
        buckets = [:]
        views = [:]
        count = 0
        return all
    }

    /// Updates the maintained views for `change` (given the list after it) and
    /// returns one delivery per interested subscriber, ordered by subscription.
    mutating func dispatch(_ change: LabelChange, in list: LabelList) -> [DeliveryQueue.Item] {
        var items: [DeliveryQueue.Item] = []
        for dependency in change.affectedDependencies {
            guard let bucket = buckets[dependency] else { continue }
            let notification = ChangeNotification(dependency: dependency, change: change)
            for box in bucket.values { items.append(.init(subscriber: box, notification: notification)) }
        }
        for query in Array(views.keys) {
            // Mutate the view in place (through the dictionary's key subscript): a
            // copy would make the view's storage copy itself, O(rows) per event.
            guard let viewChanges = views[query]?.view.apply(change, in: list), !viewChanges.isEmpty,
                let subscribers = views[query]?.subscribers.values
            else { continue }
            let notification = ChangeNotification(dependency: .view(query), change: change, viewChanges: viewChanges)
            for box in subscribers { items.append(.init(subscriber: box, notification: notification)) }
        }
        if items.count > 1 { items.sort { $0.subscriber.id < $1.subscriber.id } }
        return items
    }
}
