/// Which implementation a measurement runs.
enum Side: String, Codable, Sendable, CaseIterable {
    /// The EventLog (this project).
    case ours
    /// SQLite through its C API, the peer.
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
}
