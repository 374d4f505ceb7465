/// An event as it stands in the log: the event plus its envelope.
///
/// `seq` is gapless and strictly increasing, starting at 1 in every log.
/// The timestamp is set by the appender (the current time unless the caller
/// gives one, e.g. for imports and tests); `actor` says who made the edit and
/// `note` carries a free comment or correlation id.
public struct EventRecord: Sendable, Hashable {
    /// Position in the log: 1 for the first record, then +1 per record.
    public var seq: UInt64
    /// When the event was appended (or the time the caller set).
    public var timestamp: EventTimestamp
    /// Who made the edit, if known.
    public var actor: String?
    /// A free comment or correlation id, if any.
    public var note: String?
    /// What happened.
    public var event: LabelEvent

    /// Creates a record.
    public init(seq: UInt64, timestamp: EventTimestamp, actor: String? = nil, note: String? = nil, event: LabelEvent) {
        self.seq = seq
        self.timestamp = timestamp
        self.actor = actor
        self.note = note
        self.event = event
    }
}

/// An event waiting to be appended: everything of a record but its seq.
public struct LogEntry: Sendable, Hashable {
    /// What happened.
    public var event: LabelEvent
    /// The time to record; `nil` means "the time of the append".
    public var timestamp: EventTimestamp?
    /// Who made the edit, if known.
    public var actor: String?
    /// A free comment or correlation id, if any.
    public var note: String?

    /// Creates an entry.
    public init(_ event: LabelEvent, timestamp: EventTimestamp? = nil, actor: String? = nil, note: String? = nil) {
        self.event = event
        self.timestamp = timestamp
        self.actor = actor
        self.note = note
    }

    /// The record this entry becomes at `seq`, stamped `now` if it has no timestamp.
    public func record(seq: UInt64, now: EventTimestamp) -> EventRecord {
        EventRecord(seq: seq, timestamp: timestamp ?? now, actor: actor, note: note, event: event)
    }
}
