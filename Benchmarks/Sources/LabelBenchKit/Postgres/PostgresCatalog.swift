#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The PostgreSQL workloads (`pg-*`): which exist, and whether a run may
/// include them. Their code is compiled only with the package's `Postgres`
/// trait; this part is not, so that a build without it can say why they are missing.
enum PostgresCatalog {
    /// Whether this build has the PostgreSQL workloads (the `Postgres` trait).
    static var isBuilt: Bool {
        #if Postgres
        true
        #else
        false
        #endif
    }

    /// The environment variable naming the server when `--postgres` is not given
    /// (the one `scripts/pg-test-server start` exports).
    static let environmentVariable = "LABELSTORE_TEST_POSTGRES"

    /// The rungs of `pg-append-ladder-*`, in order (``PostgresAppendLadderWorkload``; named here
    /// too, since this part is compiled without the trait).
    static let ladderRungs = ["key", "label-index", "chain", "statement", "library-no-notify", "schema4-head"]

    /// The ids of the PostgreSQL workloads at the settings' size, in the order they run.
    static func ids(for settings: BenchSettings) -> [String] {
        let ladder = ladderRungs.map { "pg-append-ladder-\($0)" }
        let cliSizes = [settings.quick ? "200k" : "1m"] + (settings.big ? ["10m"] : [])
        let cli = cliSizes.flatMap { size in ["show", "show-current", "diff", "trace"].map { "pg-cli-\($0)-" + size } }
        let rest = [
            "pg-batch-append", "pg-writers-1-list", "pg-writers-1-list-locked", "pg-writers-8-lists",
            "pg-writers-8-lists-no-notify",
            settings.quick ? "pg-catch-up-200k" : "pg-catch-up-1m", "pg-latency-notify", "pg-latency-poll", "pg-failover",
            settings.quick ? "pg-open-200k" : "pg-open-1m"
        ]
        return ["pg-single-append"] + ladder + rest + (settings.big ? ["pg-open-10m"] : []) + cli
    }

    /// What a run does about the PostgreSQL workloads.
    enum Decision: Equatable {
        /// Run the selected ones.
        case run
        /// Run none, and say why (the run goes on with the others).
        case skip(String)
        /// Refuse the run (they were asked for by `--filter`, or `--postgres` was given, but cannot run).
        case refuse(String)
    }

    /// The decision for `settings` in a build with (`built`) or without the trait.
    static func decide(_ settings: BenchSettings, built: Bool = isBuilt) -> Decision {
        // Asked for: a filter that selects PostgreSQL workloads only (`pg`, `pg-open`); one that also
        // selects others (`cli-show` selects `cli-show` and `pg-cli-show-1m`) runs those without them.
        let pgIDs = ids(for: settings).map { $0.lowercased() }
        let asked = settings.filters.contains { filter in
            let f = filter.lowercased()
            return pgIDs.contains { $0.contains(f) } && f.hasPrefix("pg")
        }
        if !built {
            let how = "they need the Postgres trait: swift run -c release --package-path Benchmarks --traits Postgres labelbench …"
            if asked { return .refuse("the pg-* workloads are not in this build; \(how)") }
            if settings.postgres != nil { return .refuse("--postgres is given but the pg-* workloads are not in this build; \(how)") }
            return .skip("pg-* workloads: not built (\(how))")
        }
        if settings.postgres == nil {
            let how =
                "name a server with --postgres CONNINFO or \(environmentVariable) "
                + "(a throwaway one: eval \"$(PG_FSYNC=on scripts/pg-test-server start)\")"
            if asked { return .refuse("the pg-* workloads need a PostgreSQL server: \(how)") }
            return .skip("pg-* workloads skipped: no PostgreSQL server; \(how)")
        }
        return .run
    }
}

/// A latency distribution: the samples of every repetition, in milliseconds.
struct LatencySummary: Equatable {
    /// Every sample, in milliseconds.
    var samples: [Double] = []

    /// The `q`-quantile (nearest rank; 0 without samples).
    func percentile(_ q: Double) -> Double { Statistics.percentile(samples, q) }

    /// E.g. `p50 1.21 ms, p90 2.00 ms, p99 4.50 ms, max 9.00 ms over 3,000 records`.
    var text: String {
        let parts = [("p50", 0.5), ("p90", 0.9), ("p99", 0.99), ("max", 1.0)].map { name, q in
            "\(name) " + String(format: "%.2f ms", percentile(q))
        }
        return parts.joined(separator: ", ") + " over \(samples.count.grouped) records"
    }
}

/// What the follower process of the latency workloads prints: one line per
/// record, `SEQ LATENCY_NS` (the latency from the moment the parent called
/// `append` to the moment the follower had the record), then `done`.
enum FollowerOutput {
    /// The line the follower prints once it listens, before the parent appends.
    static let ready = "ready"
    /// The last line.
    static let done = "done"

    /// The latencies in milliseconds, in seq order, after checking that the
    /// lines hold every seq from 1 to `count` exactly once, in order, then `done`.
    static func latencies(_ text: String, count: Int) throws -> [Double] {
        var lines = text.split(whereSeparator: \.isNewline).map(String.init)[...]
        if lines.first == ready { lines = lines.dropFirst() }
        guard lines.last == done else { throw BenchError("follower: the output does not end in '\(done)'") }
        lines = lines.dropLast()
        var result: [Double] = []
        result.reserveCapacity(count)
        for line in lines {
            let fields = line.split(separator: " ")
            guard fields.count == 2, let seq = Int(fields[0]), let nanoseconds = Int64(fields[1]) else {
                throw BenchError("follower: bad line '\(line)'")
            }
            guard seq == result.count + 1 else {
                throw BenchError("follower: got seq \(seq) after seq \(result.count) (a gap, a duplicate or out of order)")
            }
            result.append(Double(nanoseconds) / 1e6)
        }
        guard result.count == count else { throw BenchError("follower: got \(result.count) of \(count) records") }
        return result
    }
}

/// A clock every process of the machine shares (`CLOCK_MONOTONIC`), in nanoseconds:
/// the parent stamps a record's note with it and the follower subtracts.
enum SharedClock {
    /// Nanoseconds since an arbitrary, machine-wide origin.
    static func nanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }
}

extension WorkloadCatalog {
    /// The PostgreSQL workloads, in the order they run: none without the
    /// `Postgres` trait or without a server (see ``PostgresCatalog/decide(_:built:)``).
    static func postgresWorkloads(for settings: BenchSettings) -> [any Workload] {
        #if Postgres
        guard let conninfo = settings.postgres else { return [] }
        let server = PostgresBenchServer(conninfo: conninfo)
        return [
            PostgresAppendWorkload(server: server, settings: settings, batchSize: 1)
        ] + PostgresAppendLadderWorkload.Rung.allCases.map { PostgresAppendLadderWorkload(server: server, settings: settings, rung: $0) }
            + [
                PostgresAppendWorkload(server: server, settings: settings, batchSize: 100),
                PostgresWritersWorkload(server: server, settings: settings, mode: .oneList),
                PostgresWritersWorkload(server: server, settings: settings, mode: .oneListLocked),
                PostgresWritersWorkload(server: server, settings: settings, mode: .eightLists(notify: true)),
                PostgresWritersWorkload(server: server, settings: settings, mode: .eightLists(notify: false)),
                PostgresCatchUpWorkload(server: server, settings: settings),
                PostgresSyncWorkload(server: server, settings: settings, mode: .push),
                PostgresSyncWorkload(server: server, settings: settings, mode: .pull),
                PostgresLatencyWorkload(server: server, settings: settings, notify: true),
                PostgresLatencyWorkload(server: server, settings: settings, notify: false),
                PostgresFailoverWorkload()
            ] + openWorkloads(server: server, settings: settings) + cliWorkloads(server: server, settings: settings)
        #else
        return []
        #endif
    }

    #if Postgres
    /// `pg-cli-*`: `labelreplay show` (at a seq and the current list), `diff` and `trace --label` over one server list
    /// per size (1,000,000 events; 200,000 with `--quick`; and 10,000,000 with `--big`).
    private static func cliWorkloads(server: PostgresBenchServer, settings: BenchSettings) -> [any Workload] {
        var sizes = [settings.size(full: 1_000_000, quick: 200_000)]
        if settings.big { sizes.append(10_000_000) }
        return sizes.flatMap { size -> [any Workload] in
            let fixture = HistoryFixture(eventCount: size, seed: settings.seed, users: 1)
            let list = PostgresCLIList(server: server, fixture: fixture, users: 0)
            let run = CLIRun(binary: LabelReplayBinary(path: settings.labelreplay, postgres: true), fixture: fixture)
            let all = [CLIQueryWorkload.Command.show, .showCurrent, .diff, .trace].map {
                PostgresCLIWorkload(
                    command: $0, list: list, run: run, repetitions: settings.repetitionsOverride ?? (settings.quick ? nil : 3))
            }
            let selected = all.filter { settings.includes($0.id) }
            list.users = selected.count
            return selected
        }
    }

    /// `pg-open-*`: one per size, each on a history fixture of its own (the
    /// ones of the file workloads are released when those end).
    private static func openWorkloads(server: PostgresBenchServer, settings: BenchSettings) -> [any Workload] {
        var sizes = [settings.size(full: 1_000_000, quick: 200_000)]
        if settings.big { sizes.append(10_000_000) }
        return sizes.map { size in
            let fixture = HistoryFixture(eventCount: size, seed: settings.seed, users: 1)
            return PostgresOpenWorkload(
                server: server, fixture: fixture, repetitions: size >= 10_000_000 ? settings.repetitionsOverride ?? 3 : nil)
        }
    }
    #endif
}
