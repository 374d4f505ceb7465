import Foundation

/// The machine-readable report of `--json`.
struct JSONReport: Codable {
    /// The machine the run was measured on.
    var machine: MachineInfo
    /// The run's settings.
    var settings: BenchSettings
    /// Repetitions per side (unless a workload is deterministic).
    var repetitions: Int
    /// One entry per workload, in the order they ran.
    var results: [WorkloadResult]

    /// The report as pretty-printed JSON with sorted keys.
    func encoded() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }
}
