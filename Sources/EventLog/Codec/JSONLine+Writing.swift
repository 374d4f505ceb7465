/// The pieces every hand-written JSON writer of the project is made of: a
/// key, a string, a whole number, an id, a time, each appended to a byte
/// buffer exactly as `JSONEncoder` (sorted keys, slashes unescaped) writes it.
/// `export`'s and `log --json`'s record writer and `labelreplay`'s other
/// `--json` outputs are made of them, so there is one escaping and one number
/// and time format.
extension JSONLine {
    /// Appends `,` (or `{` before the first key, clearing `first`), then
    /// `"name":`. The caller writes keys in sorted (UTF-8 byte) order, as
    /// `JSONEncoder`'s `.sortedKeys` orders them, and closes the object with
    /// ``close(_:to:)``.
    @inline(__always)
    package static func key(_ name: StaticString, first: inout Bool, to out: inout [UInt8]) {
        out.append(first ? 0x7B : 0x2C)
        first = false
        out.append(0x22)
        literal(name, to: &out)
        out.append(0x22)
        out.append(0x3A)
    }

    /// Appends `}` (`{}` when no key was written).
    @inline(__always)
    package static func close(_ first: Bool, to out: inout [UInt8]) {
        if first { out.append(0x7B) }
        out.append(0x7D)
    }

    /// Appends `text`'s bytes as they are (JSON the caller made: `true`, `[]`, a key).
    @inline(__always)
    package static func literal(_ text: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends `true` or `false`.
    @inline(__always)
    package static func bool(_ value: Bool, to out: inout [UInt8]) {
        literal(value ? "true" : "false", to: &out)
    }

    /// Appends a JSON string of `text`, escaped as `JSONEncoder` escapes.
    @inline(__always)
    package static func string(_ text: some JSONLineText, to out: inout [UInt8]) {
        text.withJSONBytes { string($0, to: &out) }
    }

    /// Appends a JSON string of `bytes` (valid UTF-8), escaped as `JSONEncoder`
    /// escapes: `\"`, `\\`, `\b \t \n \f \r`, other control characters as
    /// `\u00xx`, everything else (`/`, non-ASCII) as is.
    package static func string(_ bytes: UnsafeRawBufferPointer, to out: inout [UInt8]) {
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

    /// Appends the decimal digits of `value` (with a sign when negative).
    @inline(__always)
    package static func number(_ value: some BinaryInteger, to out: inout [UInt8]) {
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

    /// Appends `"8-4-4-4-12"` lowercase hex digits of `id`, quoted (as ``LabelID`` encodes itself).
    @inline(__always)
    package static func labelID(_ id: LabelID, to out: inout [UInt8]) {
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

    /// Appends `[` the ids `]`.
    @inline(__always)
    package static func labelIDs(_ ids: some Collection<LabelID>, to out: inout [UInt8]) {
        out.append(0x5B)
        var first = true
        for id in ids {
            if !first { out.append(0x2C) }
            first = false
            labelID(id, to: &out)
        }
        out.append(0x5D)
    }

    /// Appends the quoted ``EventTimestamp/iso8601`` text; digits written directly for the years 0000–9999.
    package static func time(_ time: EventTimestamp, to out: inout [UInt8]) {
        out.append(0x22)
        defer { out.append(0x22) }
        let ms = time.millisecondsSince1970
        // 0000-01-01T00:00:00.000Z ... 9999-12-31T23:59:59.999Z
        guard ms >= -62_167_219_200_000, ms <= 253_402_300_799_999 else {
            out.append(contentsOf: time.iso8601.utf8)
            return
        }
        let (y, m, d, second, millis) = time.utcFields
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

/// A text the JSON writer reads as UTF-8 bytes without copying: a record
/// view's ``UTF8Text`` or a `String`.
package protocol JSONLineText {
    /// Calls `body` with the text's UTF-8 bytes (valid only inside `body`).
    func withJSONBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R
}

extension UTF8Text: JSONLineText {
    /// Calls `body` with ``bytes``.
    package func withJSONBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R { body(bytes) }
}

extension String: JSONLineText {
    /// Calls `body` with the string's UTF-8 (in place for a native string).
    package func withJSONBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        var text = self
        return text.withUTF8 { body(UnsafeRawBufferPointer($0)) }
    }
}
