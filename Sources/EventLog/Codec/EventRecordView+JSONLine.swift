/// Writing a record's JSON form straight from its borrowed view, for
/// `labelreplay export`: the same bytes `JSONEncoder` (sorted keys, slashes
/// unescaped) writes for ``EventRecordView/record``, without making the
/// record, its strings or an encoder's containers.
extension JSONLine {
    /// Appends the JSON object of `view` (no line feed) to `out`: the fields in
    /// sorted order, strings escaped as `JSONEncoder` escapes them (`\"`, `\\`,
    /// `\b \t \n \f \r`, other control characters as `\u00xx`, everything else
    /// as is).
    package static func write(_ view: EventRecordView, to out: inout [UInt8]) {
        var first = true
        @inline(__always) func key(_ name: StaticString) {
            out.append(first ? 0x7B : 0x2C)
            first = false
            out.append(0x22)
            out.append(contentsOf: UnsafeRawBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
            out.append(0x22)
            out.append(0x3A)
        }
        let event = view.event
        if let actor = view.actor {
            key("actor")
            string(actor.bytes, to: &out)
        }
        if case .rejected(_, let command, _) = event {
            key("command")
            string(command.bytes, to: &out)
        }
        if case .moved(_, let from, _) = event {
            key("from")
            number(from, to: &out)
        }
        if let id = event.labelID {
            key("id")
            labelID(id, to: &out)
        }
        switch event {
        case .added(_, _, _, let index), .removed(_, let index, _, _):
            key("index")
            number(index, to: &out)
        default: break
        }
        switch event {
        case .added(_, _, let isEnabled, _), .toggled(_, let isEnabled), .removed(_, _, _, let isEnabled):
            key("isEnabled")
            literal(isEnabled ? "true" : "false", to: &out)
        default: break
        }
        key("kind")
        out.append(0x22)
        out.append(contentsOf: event.kind.rawValue.utf8)
        out.append(0x22)
        if let note = view.note {
            key("note")
            string(note.bytes, to: &out)
        }
        if case .renamed(_, let oldTitle, _) = event {
            key("oldTitle")
            string(oldTitle.bytes, to: &out)
        }
        if case .reordered(let order) = event {
            key("order")
            out.append(0x5B)
            for (i, id) in order.enumerated() {
                if i > 0 { out.append(0x2C) }
                labelID(id, to: &out)
            }
            out.append(0x5D)
        }
        if case .rejected(_, _, let reason) = event {
            key("reason")
            string(reason.bytes, to: &out)
        }
        key("seq")
        number(view.seq, to: &out)
        key("time")
        time(view.timestamp, to: &out)
        switch event {
        case .added(_, let title, _, _), .renamed(_, _, let title), .removed(_, _, let title, _):
            key("title")
            string(title.bytes, to: &out)
        default: break
        }
        if case .moved(_, _, let to) = event {
            key("to")
            number(to, to: &out)
        }
        out.append(0x7D)
    }

    private static func literal(_ text: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// A JSON string of `bytes` (valid UTF-8), escaped as `JSONEncoder` escapes.
    @inline(__always)
    private static func string(_ bytes: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        out.append(0x22)
        var run = 0
        for (i, c) in bytes.enumerated() where c < 0x20 || c == 0x22 || c == 0x5C {
            if i > run { out.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[run..<i])) }
            run = i + 1
            out.append(0x5C)
            switch c {
            case 0x22, 0x5C: out.append(c)
            case 0x08: out.append(0x62)
            case 0x09: out.append(0x74)
            case 0x0A: out.append(0x6E)
            case 0x0C: out.append(0x66)
            case 0x0D: out.append(0x72)
            default:
                let hex: StaticString = "0123456789abcdef"
                out.append(contentsOf: [0x75, 0x30, 0x30, hex.utf8Start[Int(c >> 4)], hex.utf8Start[Int(c & 0x0F)]])
            }
        }
        if bytes.count > run { out.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[run...])) }
        out.append(0x22)
    }

    /// The decimal digits of `value` (with a sign when negative).
    @inline(__always)
    private static func number(_ value: some BinaryInteger, to out: inout [UInt8]) {
        if value < 0 { out.append(0x2D) }
        var rest = UInt64(value.magnitude)
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for UInt64's 20 digits
        withUnsafeMutableBytes(of: &digits) { raw in
            var at = raw.count
            repeat {
                at -= 1
                raw[at] = UInt8(truncatingIfNeeded: 0x30 + rest % 10)
                rest /= 10
            } while rest > 0
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[at...]))
        }
    }

    /// `"8-4-4-4-12"` lowercase hex digits of `id`, quoted.
    @inline(__always)
    private static func labelID(_ id: LabelID, to out: inout [UInt8]) {
        let hex: StaticString = "0123456789abcdef"
        out.append(0x22)
        withUnsafeBytes(of: id.uuid.uuid) { bytes in
            for (i, byte) in bytes.enumerated() {
                if i == 4 || i == 6 || i == 8 || i == 10 { out.append(0x2D) }
                out.append(hex.utf8Start[Int(byte >> 4)])
                out.append(hex.utf8Start[Int(byte & 0x0F)])
            }
        }
        out.append(0x22)
    }

    /// The quoted ``EventTimestamp/iso8601`` text; digits written directly for the years 0000–9999.
    @inline(__always)
    private static func time(_ time: EventTimestamp, to out: inout [UInt8]) {
        out.append(0x22)
        defer { out.append(0x22) }
        let ms = time.millisecondsSince1970
        // 0000-01-01T00:00:00.000Z ... 9999-12-31T23:59:59.999Z
        guard ms >= -62_167_219_200_000, ms <= 253_402_300_799_999 else {
            out.append(contentsOf: time.iso8601.utf8)
            return
        }
        var seconds = ms / 1000
        var millis = ms % 1000
        if millis < 0 {
            millis += 1000
            seconds -= 1
        }
        var days = seconds / 86_400
        var second = seconds % 86_400
        if second < 0 {
            second += 86_400
            days -= 1
        }
        let (y, m, d) = EventTimestamp.civilFromDays(days)
        @inline(__always) func two(_ v: Int64) {
            out.append(UInt8(0x30 + v / 10))
            out.append(UInt8(0x30 + v % 10))
        }
        two(y / 100)
        two(y % 100)
        out.append(0x2D)
        two(m)
        out.append(0x2D)
        two(d)
        out.append(0x54)
        two(second / 3600)
        out.append(0x3A)
        two(second / 60 % 60)
        out.append(0x3A)
        two(second % 60)
        out.append(0x2E)
        out.append(UInt8(0x30 + millis / 100))
        two(millis % 100)
        out.append(0x5A)
    }
}
