import EventLog

/// The old and new value of one property of one label.
///
/// `old` is `nil` when the label was not live before the event (it was
/// added), `new` is `nil` when it is not live after it (it was removed).
public struct ValueChange<Value: Sendable & Hashable>: Sendable, Hashable {
    /// The label whose property changed.
    public var id: LabelID
    /// The value before the event, or `nil` if the label was not live.
    public var old: Value?
    /// The value after the event, or `nil` if the label is no longer live.
    public var new: Value?

    /// Creates a change.
    public init(id: LabelID, old: Value?, new: Value?) {
        self.id = id
        self.old = old
        self.new = new
    }
}

/// What one applied record changed, as computed by ``LabelList/apply(_:)``.
///
/// It is the single description of an event's effect, used for dispatch to
/// subscribers, for incremental views and for tracing. Every property is
/// derived from the state just before and just after the record:
/// - ``membershipChanged``: the list's membership or order changed
///   (`added`, `removed`, `moved`, and a `reordered` that changes the order);
/// - ``before`` / ``after``: the event's label before and after it
///   (`nil` where the label was not live; both `nil` for `reordered` and for
///   `rejected` audit records);
/// - ``title`` / ``isEnabled``: present only when that value changed,
///   including `nil` ↔ value on add and remove;
/// - the enabled count before and after.
public struct LabelChange: Sendable, Hashable {
    /// The record that was applied.
    public let record: EventRecord
    /// Whether the list's membership or order changed.
    public let membershipChanged: Bool
    /// The event's label just before the event (`nil` if it was not live).
    public let before: Label?
    /// The event's label just after the event (`nil` if it is not live).
    public let after: Label?
    /// The number of enabled labels before the event.
    public let enabledCountBefore: Int
    /// The number of enabled labels after the event.
    public let enabledCountAfter: Int

    /// Creates a change description (normally only ``LabelList/apply(_:)`` does).
    public init(
        record: EventRecord, membershipChanged: Bool, before: Label?, after: Label?,
        enabledCountBefore: Int, enabledCountAfter: Int
    ) {
        self.record = record
        self.membershipChanged = membershipChanged
        self.before = before
        self.after = after
        self.enabledCountBefore = enabledCountBefore
        self.enabledCountAfter = enabledCountAfter
    }

    /// The record's seq.
    public var seq: UInt64 { record.seq }

    /// The label the event is about, if it names a live (or just removed) label.
    public var labelID: LabelID? { after?.id ?? before?.id }

    /// The title change, if the event changed the label's title (or added or
    /// removed it). A title changes when its bytes do (``Swift/String/sameBytes(_:_:)``):
    /// a rename to a canonically equivalent title is a change.
    public var title: ValueChange<String>? {
        guard let id = labelID, !String.sameBytes(before?.title, after?.title) else { return nil }
        return ValueChange(id: id, old: before?.title, new: after?.title)
    }

    /// The `isEnabled` change, if the event changed it (or added or removed the label).
    public var isEnabled: ValueChange<Bool>? {
        guard let id = labelID, before?.isEnabled != after?.isEnabled else { return nil }
        return ValueChange(id: id, old: before?.isEnabled, new: after?.isEnabled)
    }

    /// Whether the event's label changed as a whole (title or `isEnabled`, or it was added or removed).
    public var labelChanged: Bool { title != nil || isEnabled != nil }

    /// Whether the number of enabled labels changed.
    public var enabledCountChanged: Bool { enabledCountBefore != enabledCountAfter }

    /// Whether the record changed nothing (a `rejected` audit record, or an
    /// event that restates the current value, e.g. a reorder to the same order).
    public var changesNothing: Bool { !membershipChanged && !labelChanged }
}
