/// `Duration` in the units the OS and servers take: one conversion, used by
/// every wait and timeout of the package.
extension Duration {
    /// The duration in seconds, as the `TimeInterval` Foundation's waits take.
    package var timeInterval: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// The whole milliseconds of the duration, rounded down (PostgreSQL's timeouts, `poll`).
    package var wholeMilliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}
