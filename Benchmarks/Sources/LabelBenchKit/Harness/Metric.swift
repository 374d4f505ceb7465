import Foundation

/// What a workload measures: its unit, its better direction and its formatting.
enum Metric: String, Sendable, Codable {
    /// Events per second; higher is better.
    case eventsPerSecond
    /// Bytes on disk per event; lower is better.
    case bytesPerEvent
    /// Microseconds per event (applied or dispatched); lower is better.
    case microsecondsPerEvent
    /// Milliseconds per operation (e.g. one open); lower is better.
    case milliseconds
    /// Resident bytes per label; lower is better.
    case bytesPerLabel
    /// Lines (JSON Lines records) per second; higher is better.
    case linesPerSecond
    /// Megabytes (10⁶ bytes), e.g. a process's peak resident set; lower is better.
    case megabytes
    /// Megabytes (10⁶ bytes) of input per second; higher is better.
    case megabytesPerSecond

    /// The unit as printed and in JSON.
    var unit: String {
        switch self {
        case .eventsPerSecond: "events/s"
        case .bytesPerEvent: "bytes/event"
        case .microsecondsPerEvent: "µs/event"
        case .milliseconds: "ms"
        case .bytesPerLabel: "bytes/label"
        case .linesPerSecond: "lines/s"
        case .megabytes: "MB"
        case .megabytesPerSecond: "MB/s"
        }
    }

    /// Whether a larger value is better.
    var higherIsBetter: Bool {
        switch self {
        case .eventsPerSecond, .linesPerSecond, .megabytesPerSecond: true
        case .bytesPerEvent, .microsecondsPerEvent, .milliseconds, .bytesPerLabel, .megabytes: false
        }
    }

    /// A value for the table, e.g. `1.25 M ev/s` or `48.3 B/ev`.
    func format(_ value: Double) -> String {
        switch self {
        case .eventsPerSecond:
            if value >= 1e6 { return String(format: "%.2f M ev/s", value / 1e6) }
            if value >= 1e4 { return String(format: "%.0f k ev/s", value / 1e3) }
            if value >= 1e3 { return String(format: "%.1f k ev/s", value / 1e3) }
            return String(format: "%.0f ev/s", value)
        case .bytesPerEvent:
            return String(format: "%.1f B/ev", value)
        case .microsecondsPerEvent:
            if value >= 1_000 { return String(format: "%.1f ms/ev", value / 1_000) }
            if value >= 10 { return String(format: "%.1f µs/ev", value) }
            return String(format: "%.3f µs/ev", value)
        case .milliseconds:
            return value >= 100 ? String(format: "%.0f ms", value) : String(format: "%.1f ms", value)
        case .bytesPerLabel:
            return String(format: "%.1f B/label", value)
        case .linesPerSecond:
            if value >= 1e6 { return String(format: "%.2f M lines/s", value / 1e6) }
            if value >= 1e3 { return String(format: "%.0f k lines/s", value / 1e3) }
            return String(format: "%.0f lines/s", value)
        case .megabytes:
            return String(format: "%.1f MB", value)
        case .megabytesPerSecond:
            return String(format: "%.0f MB/s", value)
        }
    }

    /// The ratio ours/SQLite in words, e.g. `2.30× faster`, `0.80× (slower)`, `0.45× the bytes`.
    func describe(ratio: Double) -> String {
        switch self {
        case .eventsPerSecond, .linesPerSecond, .megabytesPerSecond:
            ratio >= 1 ? String(format: "%.2f× faster", ratio) : String(format: "%.2f× (slower)", ratio)
        case .bytesPerEvent, .bytesPerLabel, .megabytes:
            String(format: "%.2f× the bytes", ratio)
        case .microsecondsPerEvent, .milliseconds:
            // ratio = ours/peer of times: below 1 we are faster.
            ratio <= 1 ? String(format: "%.2f× faster", 1 / ratio) : String(format: "%.2f× slower", ratio)
        }
    }
}

/// A workload's goal: bounds on the ratio ours/SQLite and on our absolute value.
struct Target: Sendable, Codable {
    /// Ours/SQLite must be at least this (higher-is-better workloads).
    var minRatio: Double?
    /// Ours/SQLite must be at most this (lower-is-better workloads).
    var maxRatio: Double?
    /// Our median must be at least this, in the workload's unit.
    var minOurs: Double?
    /// Our median must be at most this, in the workload's unit.
    var maxOurs: Double?
    /// How the target reads in the table, e.g. `≥ 3× & ≥ 5 M ev/s`.
    var text: String

    /// A target on the ratio and optionally our own value; the text is derived.
    /// `text`, when given, replaces the derived wording (e.g. `≥ 100× faster` for `maxRatio: 0.01`).
    init(
        minRatio: Double? = nil, maxRatio: Double? = nil, minOurs: Double? = nil, maxOurs: Double? = nil,
        metric: Metric, text: String? = nil
    ) {
        self.minRatio = minRatio
        self.maxRatio = maxRatio
        self.minOurs = minOurs
        self.maxOurs = maxOurs
        var parts: [String] = []
        if let minRatio { parts.append("≥ \(Self.trim(minRatio))×") }
        if let maxRatio { parts.append("≤ \(Self.trim(maxRatio))×") }
        if let minOurs { parts.append("≥ " + metric.format(minOurs).replacingOccurrences(of: ".00 ", with: " ")) }
        if let maxOurs { parts.append("≤ " + metric.format(maxOurs).replacingOccurrences(of: ".00 ", with: " ")) }
        self.text = text ?? (parts.isEmpty ? "-" : parts.joined(separator: " & "))
    }

    /// Whether there is anything to meet (a target without bounds is only a label, e.g. for an O(n) case).
    var hasBounds: Bool { minRatio != nil || maxRatio != nil || minOurs != nil || maxOurs != nil }

    /// Whether our median `ours` and the ratio `ratio` meet every bound.
    func isMet(ours: Double, ratio: Double) -> Bool {
        if let minRatio, !(ratio >= minRatio) { return false }
        if let maxRatio, !(ratio <= maxRatio) { return false }
        if let minOurs, !(ours >= minOurs) { return false }
        if let maxOurs, !(ours <= maxOurs) { return false }
        return true
    }

    private static func trim(_ v: Double) -> String {
        v == v.rounded() ? String(Int(v)) : String(v)
    }
}
