import Foundation

/// What a workload measures: its unit, its better direction and its formatting.
enum Metric: String, Sendable, Codable {
    /// Events per second; higher is better.
    case eventsPerSecond
    /// Bytes on disk per event; lower is better.
    case bytesPerEvent

    /// The unit as printed and in JSON.
    var unit: String {
        switch self {
        case .eventsPerSecond: "events/s"
        case .bytesPerEvent: "bytes/event"
        }
    }

    /// Whether a larger value is better.
    var higherIsBetter: Bool {
        switch self {
        case .eventsPerSecond: true
        case .bytesPerEvent: false
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
        }
    }

    /// The ratio ours/SQLite in words, e.g. `2.30× faster`, `0.80× (slower)`, `0.45× the bytes`.
    func describe(ratio: Double) -> String {
        switch self {
        case .eventsPerSecond:
            ratio >= 1 ? String(format: "%.2f× faster", ratio) : String(format: "%.2f× (slower)", ratio)
        case .bytesPerEvent:
            String(format: "%.2f× the bytes", ratio)
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
    /// How the target reads in the table, e.g. `≥ 3× & ≥ 5 M ev/s`.
    var text: String

    /// A target on the ratio and optionally our own value; the text is derived.
    init(minRatio: Double? = nil, maxRatio: Double? = nil, minOurs: Double? = nil, metric: Metric) {
        self.minRatio = minRatio
        self.maxRatio = maxRatio
        self.minOurs = minOurs
        var parts: [String] = []
        if let minRatio { parts.append("≥ \(Self.trim(minRatio))×") }
        if let maxRatio { parts.append("≤ \(Self.trim(maxRatio))×") }
        if let minOurs { parts.append("≥ " + metric.format(minOurs).replacingOccurrences(of: ".00 ", with: " ")) }
        text = parts.isEmpty ? "-" : parts.joined(separator: " & ")
    }

    /// Whether our median `ours` and the ratio `ratio` meet every bound.
    func isMet(ours: Double, ratio: Double) -> Bool {
        if let minRatio, !(ratio >= minRatio) { return false }
        if let maxRatio, !(ratio <= maxRatio) { return false }
        if let minOurs, !(ours >= minOurs) { return false }
        return true
    }

    private static func trim(_ v: Double) -> String {
        v == v.rounded() ? String(Int(v)) : String(v)
    }
}
