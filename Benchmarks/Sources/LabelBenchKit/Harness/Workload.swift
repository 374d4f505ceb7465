/// Which implementation a measurement runs.
enum Side: String, Codable, Sendable, CaseIterable {
    /// The EventLog (this project).
    case ours
    /// The peer: SQLite through its C API, or whatever the workload names in ``Workload/peer``.
    case sqlite
}

/// One benchmark: the same work done by ours and by SQLite.
///
/// The runner calls ``prepare(_:)`` once (untimed: build the event stream,
/// write fixtures), then ``measure(_:repetition:context:)`` for each side in
/// alternation, several times, then ``finish(_:)``. Each measurement does its
/// own untimed setup and cleanup and times only the region that is compared.
///
/// To add a workload, write a class conforming to this protocol in its own
/// file under `Workloads/` and list it in ``WorkloadCatalog``.
protocol Workload: AnyObject {
    /// The short name used by `--filter` and in JSON, e.g. `single-append`.
    var id: String { get }
    /// The name shown in the table, with the size, e.g. `durable single appends, 500 events`.
    var title: String { get }
    /// What one measurement returns and which direction is better.
    var metric: Metric { get }
    /// The goal from the issue.
    var target: Target { get }
    /// Events per measurement.
    var eventCount: Int { get }
    /// Repetitions per side; `nil` means the run's default (a deterministic workload says 1).
    var repetitions: Int? { get }
    /// The name of what the `.sqlite` side runs (the peer column), or `nil` when there is
    /// no peer: the runner then measures only ours and the ratio is "—". Default: `SQLite`.
    var peer: String? { get }
    /// Extra lines printed under the table (and in JSON) once the workload ran, e.g. a second number.
    var notes: [String] { get }
    /// The ratio ours/peer in words; by default ``Metric/describe(ratio:)``.
    func describe(ratio: Double) -> String

    /// Builds what every repetition shares. Untimed.
    func prepare(_ context: BenchContext) throws
    /// One measurement of `side`; returns the value in ``metric``'s unit.
    func measure(_ side: Side, repetition: Int, context: BenchContext) throws -> Double
    /// Releases what ``prepare(_:)`` built (files, memory).
    func finish(_ context: BenchContext)
}

extension Workload {
    /// By default, the run's number of repetitions.
    var repetitions: Int? { nil }
    /// By default, nothing to release.
    func finish(_ context: BenchContext) {}
    /// By default, SQLite.
    var peer: String? { "SQLite" }
    /// By default, none.
    var notes: [String] { [] }
    /// By default, the metric's wording.
    func describe(ratio: Double) -> String { metric.describe(ratio: ratio) }
}
