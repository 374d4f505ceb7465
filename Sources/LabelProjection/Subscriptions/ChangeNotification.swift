import EventLog

/// What a subscriber receives for one record that changed what it depends on.
///
/// Delivered after the store applied the record, so reading the store in
/// the callback shows this change (or a later one). Named `ChangeNotification`
/// rather than `Notification` to avoid clashing with Foundation's type.
public struct ChangeNotification: Sendable, Hashable {
    /// The dependency this notification is for.
    public let dependency: Dependency
    /// Everything the record changed (old and new values).
    public let change: LabelChange
    /// For a ``Dependency/view(_:)`` subscriber, the row changes in visible
    /// coordinates, to apply in order; empty for every other dependency.
    public let viewChanges: [ViewChange]

    /// Creates a notification.
    public init(dependency: Dependency, change: LabelChange, viewChanges: [ViewChange] = []) {
        self.dependency = dependency
        self.change = change
        self.viewChanges = viewChanges
    }

    /// The record.
    public var record: EventRecord { change.record }
    /// The record's seq.
    public var seq: UInt64 { change.record.seq }
    /// The title change of the record's label, if its title changed (or it was added or removed).
    public var title: ValueChange<String>? { change.title }
    /// The `isEnabled` change of the record's label, if any.
    public var isEnabled: ValueChange<Bool>? { change.isEnabled }
    /// The record's label before and after (`nil` where not live).
    public var label: (old: Label?, new: Label?) { (change.before, change.after) }
    /// The enabled count before and after.
    public var enabledCount: (old: Int, new: Int) { (change.enabledCountBefore, change.enabledCountAfter) }

    /// Whether `dependency` is notified by `change` (with `viewChanges` for a view).
    static func isNotified(_ dependency: Dependency, by change: LabelChange, viewChanges: [ViewChange]) -> Bool {
        if case .view = dependency { return !viewChanges.isEmpty }
        return change.affectedDependencies.contains(dependency)
    }
}
