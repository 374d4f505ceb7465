import Foundation

/// The settings of one run, from the command line (see ``Arguments``).
struct BenchSettings: Sendable, Codable, Equatable {
    /// Smaller workloads and fewer repetitions: the whole run in under a minute.
    var quick = false
    /// Adds the 10,000,000-event replay.
    var big = false
    /// Print JSON instead of the table.
    var json = false
    /// Run only workloads whose id contains one of these (case-insensitive); empty = all.
    var filters: [String] = []
    /// Repetitions per side, overriding the mode's default.
    var repetitionsOverride: Int?
    /// The seed of the event stream.
    var seed: UInt64 = EventStream.defaultSeed
    /// The directory under which the scratch directory is made.
    var scratchBase: String = FileManager.default.temporaryDirectory.path
    /// Run even though the binary is not optimized (numbers are then meaningless).
    var allowDebug = false
    /// The libpq connection string of the PostgreSQL server for the `pg-*`
    /// workloads (`--postgres`, else `LABELSTORE_TEST_POSTGRES`). Never in the
    /// JSON report: it may hold a password.
    var postgres: String?
    /// The `labelreplay` binary of the `cli-*` workloads (`--labelreplay`); `nil`: build it (release).
    var labelreplay: String?

    /// Every setting but ``postgres``.
    private enum CodingKeys: String, CodingKey {
        case quick, big, json, filters, repetitionsOverride, seed, scratchBase, allowDebug, labelreplay
    }

    /// Repetitions per side when a workload does not say otherwise: 3 quick, 5 full.
    var repetitions: Int { repetitionsOverride ?? (quick ? 3 : 5) }

    /// `quick` or `full` (plus `+big`).
    var modeName: String { (quick ? "quick" : "full") + (big ? "+big" : "") }

    /// `full` in a full run, `quick` in a quick one.
    func size(full: Int, quick: Int) -> Int { self.quick ? quick : full }

    /// Whether the workload `id` passes the filters.
    func includes(_ id: String) -> Bool {
        filters.isEmpty || filters.contains { id.lowercased().contains($0.lowercased()) }
    }
}
