/// The tokens of one line of JSON, read in place: strings, whole numbers,
/// `true`/`false`, and the punctuation of objects and arrays.
///
/// It reads only what the fast path of ``JSONLine`` needs and says `nil` to
/// everything else (`null`, fractions, exponents, negative numbers, invalid
/// UTF-8, a lone surrogate escape, a raw control character in a string):
/// the caller then hands the line to `JSONDecoder`, which decides. So the
/// scanner never accepts a text that JSON does not, and never reads a value
/// differently from `JSONDecoder`.
struct JSONLineScanner: ~Copyable {
    private let bytes: UnsafeRawBufferPointer
    private var i = 0

    /// A scanner at the start of `bytes`.
    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// Skips JSON whitespace (space, tab, line feed, carriage return).
    @inline(__always)
    mutating func skipSpace() {
        while i < bytes.count {
            let c = bytes[i]
            guard c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D else { return }
            i += 1
        }
    }

    /// Consumes `c` after optional whitespace; `false` (consuming nothing but the whitespace) if another byte is next.
    @inline(__always)
    mutating func consume(_ c: UInt8) -> Bool {
        skipSpace()
        guard i < bytes.count, bytes[i] == c else { return false }
        i += 1
        return true
    }

    /// Whether only whitespace is left.
    mutating func atEnd() -> Bool {
        skipSpace()
        return i == bytes.count
    }

    /// A string whose content has no escape, as the bytes between its quotes
    /// (checked to be valid UTF-8 without control characters); `nil` if the
    /// next token is not such a string.
    @inline(__always)
    mutating func plainString() -> UnsafeRawBufferPointer? {
        guard consume(0x22) else { return nil }
        let start = i
        var ascii = true
        while i < bytes.count {
            let c = bytes[i]
            if c == 0x22 {
                let content = UnsafeRawBufferPointer(rebasing: bytes[start..<i])
                i += 1
                guard ascii || UTF8Validation.isValid(content) else { return nil }
                return content
            }
            if c == 0x5C || c < 0x20 { return nil }
            if c >= 0x80 { ascii = false }
            i += 1
        }
        return nil
    }

    /// The next token as a string value: its unescaped, validated text. `nil`
    /// if it is not a string, or uses anything JSON forbids.
    mutating func string() -> String? {
        let mark = i
        if let plain = plainString() { return String(decoding: plain, as: UTF8.self) }
        i = mark
        guard consume(0x22) else { return nil }
        var out: [UInt8] = []
        while i < bytes.count {
            let c = bytes[i]
            i += 1
            switch c {
            case 0x22:
                return out.withUnsafeBytes { UTF8Validation.isValid($0) } ? String(decoding: out, as: UTF8.self) : nil
            case 0x5C:
                guard i < bytes.count else { return nil }
                let e = bytes[i]
                i += 1
                switch e {
                case 0x22, 0x5C, 0x2F: out.append(e)
                case 0x62: out.append(0x08)
                case 0x66: out.append(0x0C)
                case 0x6E: out.append(0x0A)
                case 0x72: out.append(0x0D)
                case 0x74: out.append(0x09)
                case 0x75:
                    guard let scalar = unicodeEscape() else { return nil }
                    UTF8.encode(scalar) { out.append($0) }
                default: return nil
                }
            default:
                if c < 0x20 { return nil }
                out.append(c)
            }
        }
        return nil
    }

    /// The scalar of a `\u` escape (after the `u`), joining a surrogate pair; `nil` for a lone surrogate or bad hex.
    private mutating func unicodeEscape() -> Unicode.Scalar? {
        guard let high = hex4() else { return nil }
        if (0xD800...0xDBFF).contains(high) {
            guard i + 1 < bytes.count, bytes[i] == 0x5C, bytes[i + 1] == 0x75 else { return nil }
            i += 2
            guard let low = hex4(), (0xDC00...0xDFFF).contains(low) else { return nil }
            return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
        }
        if (0xDC00...0xDFFF).contains(high) { return nil }
        return Unicode.Scalar(high)
    }

    private mutating func hex4() -> UInt32? {
        guard i + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = Self.hexValue(bytes[i]) else { return nil }
            value = value << 4 | UInt32(digit)
            i += 1
        }
        return value
    }

    /// The value of a hex digit (any case).
    @inline(__always)
    static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x41...0x46: c - 0x41 + 10
        case 0x61...0x66: c - 0x61 + 10
        default: nil
        }
    }

    /// A whole number `0` or `[1-9][0-9]*` that fits an `Int` and is followed by
    /// a delimiter; `nil` for anything else (signs, fractions, exponents are left to `JSONDecoder`).
    @inline(__always)
    mutating func wholeNumber() -> Int? {
        skipSpace()
        let start = i
        var value = 0
        while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 {
            let (times, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times.addingReportingOverflow(Int(bytes[i] - 0x30))
            guard !o1, !o2 else { return nil }
            value = sum
            i += 1
        }
        let digits = i - start
        guard digits > 0, digits == 1 || bytes[start] != 0x30 else { return nil }
        if i < bytes.count {
            let c = bytes[i]
            guard c == 0x2C || c == 0x7D || c == 0x5D || c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D else { return nil }
        }
        return value
    }

    /// `true` or `false`; `nil` for anything else.
    mutating func bool() -> Bool? {
        skipSpace()
        if literal("true") { return true }
        if literal("false") { return false }
        return nil
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        let n = word.utf8CodeUnitCount
        guard i + n <= bytes.count else { return false }
        for k in 0..<n where bytes[i + k] != word.utf8Start[k] { return false }
        if i + n < bytes.count {
            let c = bytes[i + n]
            guard c == 0x2C || c == 0x7D || c == 0x5D || c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D else { return false }
        }
        i += n
        return true
    }
}
