import EventLog
import Foundation

/// Times on the command line (`log --since/--until`, `show --at-time`), as git
/// reads them:
///
/// - ISO 8601 with a zone (`2026-12-01T01:33:41Z`, `…+01:00`): that instant;
/// - without a zone (`2026-12-01T09:15`, `2026-12-01 09:15:02`, `2026-12-01`):
///   local time (`TZ`), a bare date meaning local midnight;
/// - `now`, or a span ago: `30s`, `15m`, `2h`, `3d`, `1w`.
enum TimeArgument {
    /// What the values of time options look like, for messages and help.
    static let expected = "a time such as 2026-11-30T09:15:02Z, 2026-11-30 09:15 (local time), 2026-11-30, or a span ago: 15m, 2h, 3d"

    /// The time `text` names, `now` being `now`.
    static func parse(_ text: String, now: EventTimestamp = .now(), timeZone: TimeZone = .current) -> EventTimestamp.Parsed {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed == "now" { return .time(now) }
        if let ago = span(trimmed) {
            let (value, overflow) = now.millisecondsSince1970.subtractingReportingOverflow(ago)
            return overflow ? .outOfRange : .time(EventTimestamp(millisecondsSince1970: value))
        }
        let parsed = EventTimestamp.parse(trimmed)
        guard case .time(let wall) = parsed, !hasZone(trimmed) else { return parsed }
        // The wall-clock time was read as UTC: move it by the zone's offset at that moment.
        let guess = wall.millisecondsSince1970 - Int64(timeZone.secondsFromGMT(for: wall.date)) * 1000
        let offset = Int64(timeZone.secondsFromGMT(for: EventTimestamp(millisecondsSince1970: guess).date)) * 1000
        let (value, overflow) = wall.millisecondsSince1970.subtractingReportingOverflow(offset)
        return overflow ? .outOfRange : .time(EventTimestamp(millisecondsSince1970: value))
    }

    /// `15m` → 900 000 ms; `nil` unless `text` is a whole number and one of the units s, m, h, d, w.
    private static func span(_ text: String) -> Int64? {
        guard let unit = text.last, let count = Int64(text.dropLast()), count >= 0 else { return nil }
        let seconds: Int64
        switch unit {
        case "s": seconds = 1
        case "m": seconds = 60
        case "h": seconds = 3600
        case "d": seconds = 86_400
        case "w": seconds = 604_800
        default: return nil
        }
        let (value, overflow) = count.multipliedReportingOverflow(by: seconds * 1000)
        return overflow ? nil : value
    }

    /// Whether the text after the date's time separator names a zone (`Z`, `+01:00`, `-0500`).
    private static func hasZone(_ text: String) -> Bool {
        // The date is at least 10 characters (`YYYY-MM-DD`, or a signed year); the time follows a T, t or space.
        guard let separator = text.dropFirst(10).firstIndex(where: { $0 == "T" || $0 == "t" || $0 == " " }) else { return false }
        let time = text[text.index(after: separator)...]
        return time.contains { $0 == "Z" || $0 == "z" || $0 == "+" || $0 == "-" }
    }

    /// The time option `name` of `arguments`, if given; a malformed one is a usage error.
    static func option(_ name: String, of arguments: ParsedArguments) throws(UsageError) -> EventTimestamp? {
        guard let text = arguments.option(name) else { return nil }
        switch parse(text) {
        case .time(let time):
            return time
        case .malformed:
            throw arguments.invalid(text, for: name, expected: expected)
        case .outOfRange:
            throw arguments.invalid(
                text, for: name, expected: "a time from \(EventTimestamp.earliest.iso8601) to \(EventTimestamp.latest.iso8601)")
        }
    }
}
