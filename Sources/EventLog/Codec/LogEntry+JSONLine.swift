import Foundation

/// Reading one line of the JSON form (`export`, `log --json`) as a
/// ``LogEntry`` without `JSONDecoder`, for `labelreplay import`.
///
/// ``entry(_:)`` reads the lines `export` writes — and any other object of
/// known fields, in any order and spacing, with escapes — about twenty
/// times faster than `JSONDecoder`. Whatever it does not read (an unknown
/// or repeated field, `null`, a number that is not a plain whole number, a
/// malformed time or id, a missing field) it leaves to `JSONDecoder` by
/// returning `nil`, so that every line means exactly what `JSONDecoder`
/// makes of it, and every error is `JSONDecoder`'s. ``decode(_:)`` does both.
package enum JSONLine {
    /// The entry `line` describes, decoded as ``decode(_:)`` would, or `nil`
    /// when the line needs `JSONDecoder` (which may then accept or refuse it).
    package static func entry(_ line: UnsafeRawBufferPointer) -> LogEntry? {
        var s = JSONLineScanner(line)
        guard s.consume(0x7B) else { return nil }
        var fields = Fields()
        if !s.consume(0x7D) {
            repeat {
                guard let key = s.plainString(), let field = Field(key), s.consume(0x3A), fields.read(field, from: &s) else { return nil }
            } while s.consume(0x2C)
            guard s.consume(0x7D) else { return nil }
        }
        guard s.atEnd() else { return nil }
        return fields.entry()
    }

    /// The entry `line` describes: ``entry(_:)`` when it applies, else `JSONDecoder`.
    ///
    /// - Throws: `DecodingError`, exactly as `JSONDecoder().decode(LogEntry.self, from:)` throws it.
    package static func decode(_ line: UnsafeRawBufferPointer, decoder: JSONDecoder) throws -> LogEntry {
        if let entry = entry(line) { return entry }
        return try decoder.decode(LogEntry.self, from: Data(line))
    }

    /// A field of the JSON form.
    enum Field: Int {
        case seq, time, kind, id, actor, note, title, oldTitle, isEnabled, index, from, to, order, command, reason

        /// The field named by `key`'s bytes, if it is one.
        init?(_ key: UnsafeRawBufferPointer) {
            func named(_ name: StaticString) -> Bool {
                name.utf8CodeUnitCount == key.count && memcmp(name.utf8Start, key.baseAddress!, key.count) == 0
            }
            func pick(_ a: StaticString, _ fa: Field, _ b: StaticString? = nil, _ fb: Field? = nil) -> Field? {
                if named(a) { return fa }
                if let b, named(b) { return fb }
                return nil
            }
            let field: Field? =
                switch key.count {
                case 2: pick("id", .id, "to", .to)
                case 3: pick("seq", .seq)
                case 4: pick("time", .time, "kind", .kind) ?? pick("note", .note, "from", .from)
                case 5: pick("actor", .actor, "title", .title) ?? pick("index", .index, "order", .order)
                case 6: pick("reason", .reason)
                case 7: pick("command", .command)
                case 8: pick("oldTitle", .oldTitle)
                case 9: pick("isEnabled", .isEnabled)
                default: nil
                }
            guard let field else { return nil }
            self = field
        }
    }

    /// The values read so far.
    struct Fields {
        var seen: UInt32 = 0
        var time: EventTimestamp?
        var kind: LabelEvent.Kind?
        var id: LabelID?
        var actor: String?
        var note: String?
        var title: String?
        var oldTitle: String?
        var isEnabled: Bool?
        var index: Int?
        var from: Int?
        var to: Int?
        var order: [LabelID]?
        var command: String?
        var reason: String?

        /// Reads the value of `field`; `false` if it is repeated or not of the form the fast path reads.
        mutating func read(_ field: Field, from s: inout JSONLineScanner) -> Bool {
            let bit: UInt32 = 1 << field.rawValue
            guard seen & bit == 0 else { return false }
            seen |= bit
            switch field {
            case .seq: return s.wholeNumber() != nil  // ignored, as by JSONDecoder (the log numbers records)
            case .time:
                guard let text = s.plainString(), case .time(let time) = EventTimestamp.parse(utf8: text) else { return false }
                self.time = time
            case .kind:
                guard let text = s.plainString(), let kind = LabelEvent.Kind(rawValue: String(decoding: text, as: UTF8.self)) else {
                    return false
                }
                self.kind = kind
            case .id:
                guard let text = s.plainString(), let id = JSONLine.labelID(text) else { return false }
                self.id = id
            case .actor: actor = s.string()
            case .note: note = s.string()
            case .title: title = s.string()
            case .oldTitle: oldTitle = s.string()
            case .command: command = s.string()
            case .reason: reason = s.string()
            case .isEnabled: isEnabled = s.bool()
            case .index: index = s.wholeNumber()
            case .from: from = s.wholeNumber()
            case .to: to = s.wholeNumber()
            case .order:
                guard let ids = Self.ids(&s) else { return false }
                order = ids
            }
            switch field {
            case .actor: return actor != nil
            case .note: return note != nil
            case .title: return title != nil
            case .oldTitle: return oldTitle != nil
            case .command: return command != nil
            case .reason: return reason != nil
            case .isEnabled: return isEnabled != nil
            case .index: return index != nil
            case .from: return from != nil
            case .to: return to != nil
            default: return true
            }
        }

        /// An array of id strings.
        private static func ids(_ s: inout JSONLineScanner) -> [LabelID]? {
            guard s.consume(0x5B) else { return nil }
            var ids: [LabelID] = []
            if s.consume(0x5D) { return ids }
            repeat {
                guard let text = s.plainString(), let id = JSONLine.labelID(text) else { return nil }
                ids.append(id)
            } while s.consume(0x2C)
            return s.consume(0x5D) ? ids : nil
        }

        /// The entry, if every field its kind needs is there.
        func entry() -> LogEntry? {
            guard let kind else { return nil }
            let event: LabelEvent
            switch kind {
            case .added:
                guard let id, let title, let isEnabled, let index else { return nil }
                event = .added(id: id, title: title, isEnabled: isEnabled, index: index)
            case .renamed:
                guard let id, let oldTitle, let title else { return nil }
                event = .renamed(id: id, oldTitle: oldTitle, newTitle: title)
            case .toggled:
                guard let id, let isEnabled else { return nil }
                event = .toggled(id: id, isEnabled: isEnabled)
            case .removed:
                guard let id, let index, let title, let isEnabled else { return nil }
                event = .removed(id: id, index: index, title: title, isEnabled: isEnabled)
            case .moved:
                guard let id, let from, let to else { return nil }
                event = .moved(id: id, from: from, to: to)
            case .reordered:
                guard let order else { return nil }
                event = .reordered(order: order)
            case .rejected:
                guard let reason else { return nil }
                event = .rejected(id: id, command: command ?? "", reason: reason)
            }
            return LogEntry(event, timestamp: time, actor: actor, note: note)
        }
    }

    /// The id of a canonical UUID text (`8-4-4-4-12` hex digits, any case), or `nil`.
    static func labelID(_ text: UnsafeRawBufferPointer) -> LabelID? {
        guard text.count == 36, text[8] == 0x2D, text[13] == 0x2D, text[18] == 0x2D, text[23] == 0x2D else { return nil }
        var bad: UInt8 = 0
        @inline(__always) func digits(_ range: Range<Int>, into value: inout UInt64) {
            for i in range {
                let digit = hexDigit(text[i])
                bad |= digit
                value = value << 4 | UInt64(digit & 0x0F)
            }
        }
        var high: UInt64 = 0
        var low: UInt64 = 0
        digits(0..<8, into: &high)
        digits(9..<13, into: &high)
        digits(14..<18, into: &high)
        digits(19..<23, into: &low)
        digits(24..<36, into: &low)
        guard bad & 0xF0 == 0 else { return nil }
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &uuid) { out in
            out.storeBytes(of: high.bigEndian, as: UInt64.self)
            out.storeBytes(of: low.bigEndian, toByteOffset: 8, as: UInt64.self)
        }
        return LabelID(UUID(uuid: uuid))
    }

    /// The value of a hex digit (any case), or 0xFF.
    @inline(__always)
    private static func hexDigit(_ c: UInt8) -> UInt8 {
        if c &- 0x30 < 10 { return c &- 0x30 }
        let letter = (c | 0x20) &- 0x61
        return letter < 6 ? letter + 10 : 0xFF
    }
}
