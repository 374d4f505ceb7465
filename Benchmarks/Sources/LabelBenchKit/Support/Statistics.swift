/// The small statistics and timing helpers of the harness.
enum Statistics {
    /// The median of `values` (the mean of the middle two for an even count); 0 when empty.
    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let mid = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
    }

    /// The `q`-quantile of `values` (`q` in 0...1), the nearest rank of the sorted values; 0 when empty.
    static func percentile(_ values: [Double], _ q: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let rank = Int((Double(sorted.count - 1) * min(max(q, 0), 1)).rounded())
        return sorted[rank]
    }

    /// `duration` in seconds.
    static func seconds(_ duration: Duration) -> Double {
        let c = duration.components
        return Double(c.seconds) + Double(c.attoseconds) * 1e-18
    }

    /// Runs `body` and returns how long it took on the monotonic `ContinuousClock`.
    static func time(_ body: () throws -> Void) rethrows -> Duration {
        try ContinuousClock().measure(body)
    }

    /// Events per second for `events` events in `duration`.
    static func rate(events: Int, in duration: Duration) -> Double {
        let s = seconds(duration)
        return s > 0 ? Double(events) / s : .infinity
    }
}
