import Foundation

/// A point in time with millisecond precision, as stored in the log.
///
/// The log stores whole milliseconds since 1970-01-01T00:00:00Z, so a
/// timestamp survives encode → decode and JSON export → import unchanged.
public struct EventTimestamp: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Milliseconds since the Unix epoch (may be negative for dates before 1970).
    public var millisecondsSince1970: Int64

    /// Creates a timestamp from milliseconds since the Unix epoch.
    public init(millisecondsSince1970: Int64) {
        self.millisecondsSince1970 = millisecondsSince1970
    }

    /// Creates a timestamp from a `Date`, rounded down to the millisecond.
    public init(_ date: Date) {
        let ms = (date.timeIntervalSince1970 * 1000).rounded(.down)
        if ms >= Double(Int64.max) {
            self.millisecondsSince1970 = .max
        } else if ms <= Double(Int64.min) {
            self.millisecondsSince1970 = .min
        } else {
            self.millisecondsSince1970 = Int64(ms)
        }
    }

    /// The current time, to the millisecond.
    public static func now() -> EventTimestamp { EventTimestamp(Date()) }

    /// The timestamp as a `Date`.
    public var date: Date { Date(timeIntervalSince1970: Double(millisecondsSince1970) / 1000) }

    /// ISO 8601 in UTC with milliseconds, e.g. `2026-11-30T09:15:02.125Z`.
    ///
    /// Years 0000–9999 have four digits. Every other year a timestamp can
    /// hold is written in ISO 8601's expanded representation, with a sign
    /// and at least four digits: `+10000-01-01T00:00:00.000Z`,
    /// `-0001-12-31T23:59:59.999Z`, up to `+292278994-08-17T07:12:55.807Z`
    /// (`Int64.max` milliseconds). ``init(iso8601:)`` reads every one of them
    /// back to the same value.
    public var iso8601: String {
        let (y, m, d, secOfDay, ms) = utcFields
        func pad(_ v: Int64, _ width: Int) -> String {
            let s = String(v)
            return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
        }
        let year = y < 0 ? "-" + pad(-y, 4) : y > 9999 ? "+" + String(y) : pad(y, 4)
        return
            "\(year)-\(pad(m, 2))-\(pad(d, 2))T\(pad(secOfDay / 3600, 2)):\(pad(secOfDay / 60 % 60, 2)):\(pad(secOfDay % 60, 2)).\(pad(ms, 3))Z"
    }

    /// The UTC calendar fields of this time (proleptic Gregorian): year,
    /// month, day, the second of the day (0–86,399) and the millisecond
    /// (0–999), as ``iso8601`` and the JSON writers print them.
    var utcFields: (year: Int64, month: Int64, day: Int64, secondOfDay: Int64, millisecond: Int64) {
        var seconds = millisecondsSince1970 / 1000
        var millisecond = millisecondsSince1970 % 1000
        if millisecond < 0 {
            millisecond += 1000
            seconds -= 1
        }
        var days = seconds / 86_400
        var secondOfDay = seconds % 86_400
        if secondOfDay < 0 {
            secondOfDay += 86_400
            days -= 1
        }
        let (y, m, d) = Self.civilFromDays(days)
        return (y, m, d, secondOfDay, millisecond)
    }

    /// Parses ISO 8601 date-times: `YYYY-MM-DDTHH:MM:SS[.fff][Z|±HH:MM]`, or a
    /// bare date `YYYY-MM-DD` (midnight UTC). The year is four digits, or a
    /// sign and four or more digits (the expanded form ``iso8601`` writes
    /// outside 0000–9999). Returns `nil` for anything else, and for a time
    /// outside the range a timestamp holds (see ``parse(_:)``).
    public init?(iso8601 text: String) {
        guard case .time(let time) = Self.parse(text) else { return nil }
        self = time
    }

    /// What ``parse(_:)`` found.
    public enum Parsed: Sendable, Hashable {
        /// A time.
        case time(EventTimestamp)
        /// Not an ISO 8601 date-time of the accepted forms.
        case malformed
        /// A well-formed date-time outside the range a timestamp holds
        /// (``earliest`` … ``latest``).
        case outOfRange
    }

    /// The earliest time a timestamp holds: `Int64.min` milliseconds, `-292275055-05-16T16:47:04.192Z`.
    public static let earliest = EventTimestamp(millisecondsSince1970: .min)
    /// The latest time a timestamp holds: `Int64.max` milliseconds, `+292278994-08-17T07:12:55.807Z`.
    public static let latest = EventTimestamp(millisecondsSince1970: .max)

    /// Parses an ISO 8601 date-time as ``init(iso8601:)`` does, telling a
    /// malformed text from a time outside the range a timestamp holds.
    public static func parse(_ text: String) -> Parsed {
        var text = text
        return text.withUTF8 { parse(utf8: UnsafeRawBufferPointer($0)) }
    }

    /// ``parse(_:)`` of the UTF-8 bytes of a text (the JSON line decoder reads
    /// times in place, without making a `String`).
    package static func parse(utf8 scalars: UnsafeRawBufferPointer) -> Parsed {
        if let time = canonical(scalars) { return .time(time) }
        var i = 0
        func isDigit(_ at: Int) -> Bool { at < scalars.count && scalars[at] >= 48 && scalars[at] <= 57 }
        func number(_ digits: Int) -> Int64? {
            guard i + digits <= scalars.count else { return nil }
            var v: Int64 = 0
            for _ in 0..<digits {
                guard isDigit(i) else { return nil }
                v = v * 10 + Int64(scalars[i] - 48)
                i += 1
            }
            return v
        }
        func expect(_ c: UInt8) -> Bool {
            guard i < scalars.count, scalars[i] == c else { return false }
            i += 1
            return true
        }
        // The year: four digits, or a sign and four or more (ISO 8601 expanded representation).
        var yearSign: Int64 = 1
        var signed = false
        if i < scalars.count, scalars[i] == 43 || scalars[i] == 45 {
            yearSign = scalars[i] == 45 ? -1 : 1
            signed = true
            i += 1
        }
        var yearDigits = 0
        while isDigit(i + yearDigits) { yearDigits += 1 }
        guard signed ? yearDigits >= 4 : yearDigits == 4 else { return .malformed }
        // More than 18 digits cannot be read into an Int64, and is far out of range anyway.
        let outOfRange = yearDigits > 18
        guard let magnitude = outOfRange ? 0 : number(yearDigits) else { return .malformed }
        if outOfRange { i += yearDigits }
        let year = yearSign * magnitude
        guard expect(45), let month = number(2), expect(45), let day = number(2),
            (1...12).contains(month), (1...31).contains(day)
        else { return .malformed }
        var hour: Int64 = 0, minute: Int64 = 0, second: Int64 = 0, millis: Int64 = 0, offset: Int64 = 0
        if i < scalars.count {
            guard expect(84) || expect(116) || expect(32) else { return .malformed }  // T, t or space
            guard let h = number(2), expect(58), let mi = number(2), h < 24, mi < 60 else { return .malformed }
            hour = h
            minute = mi
            if expect(58) {
                guard let s = number(2), s < 61 else { return .malformed }
                second = s
                if expect(46) {
                    var digits = 0
                    var frac: Int64 = 0
                    while isDigit(i) {
                        if digits < 3 { frac = frac * 10 + Int64(scalars[i] - 48) }
                        digits += 1
                        i += 1
                    }
                    guard digits > 0 else { return .malformed }
                    if digits < 3 { for _ in digits..<3 { frac *= 10 } }
                    millis = frac
                }
            }
            if expect(90) || expect(122) {  // Z
            } else if i < scalars.count, scalars[i] == 43 || scalars[i] == 45 {
                let sign: Int64 = scalars[i] == 45 ? -1 : 1
                i += 1
                guard let oh = number(2) else { return .malformed }
                _ = expect(58)
                guard let om = number(2), oh < 24, om < 60 else { return .malformed }
                offset = sign * (oh * 3600 + om * 60)
            }
            guard i == scalars.count else { return .malformed }
        }
        // A year this far out is beyond the range (±292 million years) and would overflow the day count.
        guard !outOfRange, (-300_000_000...300_000_000).contains(year) else { return .outOfRange }
        let days = Self.daysFromCivil(year, month, day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        // seconds * 1000 + millis, checked; at the negative end through seconds + 1, so that
        // Int64.min milliseconds is reached without an intermediate value below it.
        let total: (partialValue: Int64, overflow: Bool)
        if seconds >= 0 || millis == 0 {
            let whole = seconds.multipliedReportingOverflow(by: 1000)
            total = whole.overflow ? whole : whole.partialValue.addingReportingOverflow(millis)
        } else {
            let whole = (seconds + 1).multipliedReportingOverflow(by: 1000)
            total = whole.overflow ? whole : whole.partialValue.subtractingReportingOverflow(1000 - millis)
        }
        guard !total.overflow else { return .outOfRange }
        return .time(EventTimestamp(millisecondsSince1970: total.partialValue))
    }

    /// The time of exactly the form ``iso8601`` writes for years 0000–9999
    /// (`2026-11-30T09:15:02.125Z`, 24 bytes), read at fixed offsets, or `nil`
    /// for any other text (which ``parse(utf8:)`` then reads in full). Accepts
    /// exactly what the full reading accepts in that form, with the same value.
    @inline(__always)
    static func canonical(_ t: UnsafeRawBufferPointer) -> EventTimestamp? {
        guard t.count == 24, t[4] == 0x2D, t[7] == 0x2D, t[10] == 0x54, t[13] == 0x3A, t[16] == 0x3A, t[19] == 0x2E, t[23] == 0x5A
        else { return nil }
        @inline(__always) func digits(_ at: Int, _ n: Int) -> Int64? {
            var v: Int64 = 0
            for k in at..<(at + n) {
                let d = t[k] &- 0x30
                guard d < 10 else { return nil }
                v = v * 10 + Int64(d)
            }
            return v
        }
        guard let year = digits(0, 4), let month = digits(5, 2), let day = digits(8, 2), let hour = digits(11, 2),
            let minute = digits(14, 2), let second = digits(17, 2), let millis = digits(20, 3),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        let seconds = daysFromCivil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second
        return EventTimestamp(millisecondsSince1970: seconds * 1000 + millis)
    }

    /// The ISO 8601 text.
    public var description: String { iso8601 }

    /// Orders by time.
    public static func < (lhs: EventTimestamp, rhs: EventTimestamp) -> Bool {
        lhs.millisecondsSince1970 < rhs.millisecondsSince1970
    }

    // Howard Hinnant's civil-calendar algorithms (proleptic Gregorian).
    static func daysFromCivil(_ y0: Int64, _ m: Int64, _ d: Int64) -> Int64 {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civilFromDays(_ z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp + (mp < 10 ? 3 : -9)
        return (m <= 2 ? y + 1 : y, m, d)
    }
}
