import EventLog

/// Which dependencies other than views a change notifies: the table in
/// ``Dependency``, as code (``SubscriptionHub`` dispatches by it).
extension LabelChange {
    /// The non-view dependencies this change notifies (at most six; cheap to compute).
    var affectedDependencies: [Dependency] {
        var result: [Dependency] = [.everything]
        if membershipChanged { result.append(.membership) }
        if enabledCountChanged { result.append(.enabledCount) }
        if let id = labelID {
            let title = !String.sameBytes(before?.title, after?.title)
            let enabled = before?.isEnabled != after?.isEnabled
            if title { result.append(.title(id)) }
            if enabled { result.append(.isEnabled(id)) }
            if title || enabled { result.append(.label(id)) }
        }
        return result
    }
}
