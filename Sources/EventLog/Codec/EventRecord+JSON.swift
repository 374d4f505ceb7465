/// The JSON form of events (one object per record), used by `labelreplay
/// log --json`, `export` and `import`. Field names are stable:
///
/// `seq`, `time` (ISO 8601 UTC with milliseconds; years outside 0000–9999
/// in the expanded form with a sign, e.g. `+10000-01-01T00:00:00.000Z`,
/// `-0001-12-31T23:59:59.999Z`, so every stored value round-trips), `kind`, `id` (for events
/// about one label), optional `actor` and `note`, and per kind:
/// added `title`, `isEnabled`, `index`; renamed `oldTitle`, `title`;
/// toggled `isEnabled` (the new value); removed `index`, `title`, `isEnabled`;
/// moved `from`, `to`; reordered `order` (ids); rejected `command`, `reason`.
enum JSONField: String, CodingKey {
    case seq, time, kind, id, actor, note, title, oldTitle, isEnabled, index, from, to, order, command, reason
}

/// The JSON form is for the `String` form of events only: a borrowed
/// ``EventRecordView/Event`` is encoded by copying it out (``LabelEventOf/labelEvent``).
extension LabelEvent: Codable {
    /// Writes `kind`, `id` and the kind's fields (see ``EventRecord``'s JSON form).
    ///
    /// - Throws: Whatever the encoder throws (`EncodingError`).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONField.self)
        try encodeFields(into: &c)
    }

    /// Reads an event from `kind` and the kind's fields.
    ///
    /// - Throws: `DecodingError` when a required field is missing or has the wrong type, when `kind` is unknown, or when a field is invalid for the kind (e.g. a `reordered` order that is not a list of ids).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONField.self)
        try self.init(fields: c)
    }

    func encodeFields(into c: inout KeyedEncodingContainer<JSONField>) throws {
        try c.encode(kind.rawValue, forKey: .kind)
        switch self {
        case .added(let id, let title, let isEnabled, let index):
            try c.encode(id, forKey: .id)
            try c.encode(title, forKey: .title)
            try c.encode(isEnabled, forKey: .isEnabled)
            try c.encode(index, forKey: .index)
        case .renamed(let id, let old, let new):
            try c.encode(id, forKey: .id)
            try c.encode(old, forKey: .oldTitle)
            try c.encode(new, forKey: .title)
        case .toggled(let id, let isEnabled):
            try c.encode(id, forKey: .id)
            try c.encode(isEnabled, forKey: .isEnabled)
        case .removed(let id, let index, let title, let isEnabled):
            try c.encode(id, forKey: .id)
            try c.encode(index, forKey: .index)
            try c.encode(title, forKey: .title)
            try c.encode(isEnabled, forKey: .isEnabled)
        case .moved(let id, let from, let to):
            try c.encode(id, forKey: .id)
            try c.encode(from, forKey: .from)
            try c.encode(to, forKey: .to)
        case .reordered(let order):
            try c.encode(order, forKey: .order)
        case .rejected(let id, let command, let reason):
            try c.encodeIfPresent(id, forKey: .id)
            try c.encode(command, forKey: .command)
            try c.encode(reason, forKey: .reason)
        }
    }

    init(fields c: KeyedDecodingContainer<JSONField>) throws {
        let name = try c.decode(String.self, forKey: .kind)
        guard let kind = Kind(rawValue: name) else {
            throw DecodingError.dataCorruptedError(
                forKey: .kind, in: c,
                debugDescription: "unknown kind '\(name)' (expected one of \(Kind.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        switch kind {
        case .added:
            self = .added(
                id: try c.decode(LabelID.self, forKey: .id), title: try c.decode(String.self, forKey: .title),
                isEnabled: try c.decode(Bool.self, forKey: .isEnabled), index: try c.decode(Int.self, forKey: .index))
        case .renamed:
            self = .renamed(
                id: try c.decode(LabelID.self, forKey: .id), oldTitle: try c.decode(String.self, forKey: .oldTitle),
                newTitle: try c.decode(String.self, forKey: .title))
        case .toggled:
            self = .toggled(id: try c.decode(LabelID.self, forKey: .id), isEnabled: try c.decode(Bool.self, forKey: .isEnabled))
        case .removed:
            self = .removed(
                id: try c.decode(LabelID.self, forKey: .id), index: try c.decode(Int.self, forKey: .index),
                title: try c.decode(String.self, forKey: .title), isEnabled: try c.decode(Bool.self, forKey: .isEnabled))
        case .moved:
            self = .moved(
                id: try c.decode(LabelID.self, forKey: .id), from: try c.decode(Int.self, forKey: .from),
                to: try c.decode(Int.self, forKey: .to))
        case .reordered:
            self = .reordered(order: try c.decode([LabelID].self, forKey: .order))
        case .rejected:
            self = .rejected(
                id: try c.decodeIfPresent(LabelID.self, forKey: .id),
                command: try c.decodeIfPresent(String.self, forKey: .command) ?? "",
                reason: try c.decode(String.self, forKey: .reason))
        }
    }
}

extension EventTimestamp {
    fileprivate static func decode(_ c: KeyedDecodingContainer<JSONField>) throws -> EventTimestamp? {
        guard let text = try c.decodeIfPresent(String.self, forKey: .time) else { return nil }
        switch EventTimestamp.parse(text) {
        case .time(let time):
            return time
        case .malformed:
            throw DecodingError.dataCorruptedError(forKey: .time, in: c, debugDescription: "'\(text)' is not an ISO 8601 time")
        case .outOfRange:
            throw DecodingError.dataCorruptedError(
                forKey: .time, in: c,
                debugDescription:
                    "'\(text)' is outside the range a timestamp holds (\(EventTimestamp.earliest.iso8601) … \(EventTimestamp.latest.iso8601))"
            )
        }
    }
}

extension EventRecord: Codable {
    /// Writes the record as one flat JSON object (see the field list above).
    ///
    /// - Throws: Whatever the encoder throws (`EncodingError`).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONField.self)
        try c.encode(seq, forKey: .seq)
        try c.encode(timestamp.iso8601, forKey: .time)
        try c.encodeIfPresent(actor, forKey: .actor)
        try c.encodeIfPresent(note, forKey: .note)
        try event.encodeFields(into: &c)
    }

    /// Reads a record; `seq`, `time` and `kind` are required.
    ///
    /// - Throws: `DecodingError` when a required field is missing or has the wrong type, when `kind` is unknown, or when a field is invalid for the kind (e.g. a `reordered` order that is not a list of ids).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONField.self)
        guard let time = try EventTimestamp.decode(c) else {
            throw DecodingError.keyNotFound(JSONField.time, .init(codingPath: c.codingPath, debugDescription: "a record needs a time"))
        }
        self.init(
            seq: try c.decode(UInt64.self, forKey: .seq), timestamp: time,
            actor: try c.decodeIfPresent(String.self, forKey: .actor),
            note: try c.decodeIfPresent(String.self, forKey: .note),
            event: try LabelEvent(fields: c))
    }
}

extension LogEntry: Codable {
    /// Writes the entry like a record without `seq` (and without `time` when unset).
    ///
    /// - Throws: Whatever the encoder throws (`EncodingError`).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONField.self)
        try c.encodeIfPresent(timestamp?.iso8601, forKey: .time)
        try c.encodeIfPresent(actor, forKey: .actor)
        try c.encodeIfPresent(note, forKey: .note)
        try event.encodeFields(into: &c)
    }

    /// Reads an entry from a record's JSON: `seq` is ignored (the log assigns
    /// seqs); `time` is optional (absent means "at append").
    ///
    /// - Throws: `DecodingError` when a required field is missing or has the wrong type, when `kind` is unknown, or when a field is invalid for the kind (e.g. a `reordered` order that is not a list of ids).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONField.self)
        self.init(
            try LabelEvent(fields: c), timestamp: try EventTimestamp.decode(c),
            actor: try c.decodeIfPresent(String.self, forKey: .actor),
            note: try c.decodeIfPresent(String.self, forKey: .note))
    }
}
