/// The outcome of one workload: every sample of each side, the medians and the verdict.
struct WorkloadResult: Codable, Sendable {
    /// The samples of one side.
    struct SideResult: Codable, Sendable {
        /// The median of ``samples``.
        var median: Double
        /// One value per repetition, in the order they ran.
        var samples: [Double]
    }

    /// The workload's id.
    var id: String
    /// The workload's title.
    var title: String
    /// Events per measurement.
    var events: Int
    /// What the values measure.
    var metric: Metric
    /// The unit of every value.
    var unit: String
    /// Whether a larger value is better.
    var higherIsBetter: Bool
    /// The EventLog's samples.
    var ours: SideResult
    /// SQLite's samples.
    var sqlite: SideResult
    /// Ours/SQLite of the medians.
    var ratio: Double
    /// The ratio in words, e.g. `2.30× faster`.
    var ratioText: String
    /// The goal.
    var target: Target
    /// Whether the goal is met.
    var met: Bool
    /// What the `sqlite` side ran (`SQLite`, a naive array, …), or `nil` when there was no peer.
    var peer: String? = "SQLite"
    /// Extra lines about the result (printed under the table).
    var notes: [String] = []
}
