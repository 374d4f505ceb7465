import Foundation

/// The command line of `labelbench`.
enum Arguments {
    /// What the command line asks for.
    enum Command: Equatable {
        /// Run the selected workloads.
        case run(BenchSettings)
        /// List the workloads the settings select, without running them.
        case list(BenchSettings)
        /// Print the usage.
        case help
    }

    /// The `--help` text.
    static let usage = """
        usage: swift run -c release --package-path Benchmarks labelbench [options]

        Compares the EventLog with SQLite (WAL mode, through its C API) on the same
        deterministic event stream, and the projection (LabelProjection) with its peers
        (SQLite, a naive array, fewer subscribers, a full replay), and prints a table of
        medians and ratios.

        options:
          --quick         smaller workloads, 3 repetitions: the whole run in under a minute
          --big           also replay (and fold) 10,000,000 events (adds a few minutes)
          --json          print the results as JSON on standard output (progress stays on stderr)
          --filter NAME   run only workloads whose id contains NAME (repeatable, or comma-separated)
          --reps N        repetitions per side (default: 5, quick: 3)
          --dir PATH      where to put the scratch files (default: the temporary directory);
                          use a directory on the disk you care about, never a tmpfs
          --seed N        seed of the event stream (decimal or 0x-hex)
          --postgres CONNINFO
                          the PostgreSQL server of the pg-* workloads (a libpq connection string;
                          default: $LABELSTORE_TEST_POSTGRES); needs a build with --traits Postgres
          --labelreplay PATH
                          the labelreplay binary of the cli-* workloads (default: build it with
                          swift build -c release --product labelreplay in the root package; if that
                          fails, the cli-* workloads fail with the build's output)
          --list          list the workloads that would run, then exit
          --allow-debug   run even if built without optimizations (the numbers mean nothing)
          -h, --help      print this help

        workloads: single-append, batch-append, concurrent-writers, replay-1m (replay-200k
        with --quick), replay-10m (--big), bytes-per-event; projection: replay-fold-1m
        (replay-fold-200k with --quick), replay-fold-10m (--big), apply-1m-<kind> (apply-200k-*
        with --quick; kinds: added, renamed, toggled, moved, removed, reordered), naive-100k,
        dispatch-subscribers, cold-open, audit-label, audit-actor, audit-window (and -10m with
        --big), memory-1m (Linux), batch-append-disk (batch appends vs the disk's limit),
        batch-append-pipelined (the same, two appends pending);
        long history (1m, 200k with --quick, 10m with --big): state-at-<size>-early, -middle,
        -late, -worst, -after-open (LabelStore.state(atSeq:) vs a fold from seq 1; after-open:
        the first call of a store just opened from a snapshot); labelreplay as a child
        process (not at 10m): cli-show, cli-diff, cli-trace, cli-log-label, cli-log-actor (vs
        the same command without the history files), cli-stats, cli-export, cli-import,
        cli-import-memory; with the Postgres trait and a server:
        pg-single-append, pg-batch-append, pg-writers-1-list, pg-writers-8-lists,
        pg-writers-8-lists-no-notify, pg-catch-up-1m (pg-catch-up-200k with --quick),
        pg-latency-notify, pg-latency-poll, pg-open-1m (pg-open-200k with --quick;
        pg-open-10m with --big) (--filter pg selects them all)
        """

    /// Parses `arguments` (without the program name). Without `--postgres`, the
    /// server comes from `environment`'s `LABELSTORE_TEST_POSTGRES` in a build
    /// with the PostgreSQL workloads (`postgresBuilt`).
    static func parse(
        _ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment,
        postgresBuilt: Bool = PostgresCatalog.isBuilt
    ) throws -> Command {
        var settings = BenchSettings()
        var list = false
        var rest = arguments[...]
        func value(for option: String) throws -> String {
            guard let value = rest.popFirst(), !value.hasPrefix("--") else {
                throw BenchError("\(option) needs a value (see --help)")
            }
            return value
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "-h", "--help": return .help
            case "--quick": settings.quick = true
            case "--big": settings.big = true
            case "--json": settings.json = true
            case "--list": list = true
            case "--allow-debug": settings.allowDebug = true
            case "--filter":
                settings.filters += try value(for: argument).split(separator: ",").map(String.init)
            case "--reps":
                let text = try value(for: argument)
                guard let n = Int(text), n >= 1 else { throw BenchError("--reps needs a positive integer, not '\(text)'") }
                settings.repetitionsOverride = n
            case "--dir":
                settings.scratchBase = try value(for: argument)
            case "--seed":
                let text = try value(for: argument)
                let parsed = text.hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
                guard let seed = parsed else { throw BenchError("--seed needs an unsigned integer, not '\(text)'") }
                settings.seed = seed
            case "--labelreplay":
                let text = try value(for: argument)
                guard !text.isEmpty else { throw BenchError("--labelreplay needs the path of a labelreplay binary") }
                settings.labelreplay = text
            case "--postgres":
                let text = try value(for: argument)
                guard !text.isEmpty else { throw BenchError("--postgres needs a libpq connection string") }
                settings.postgres = text
            default:
                throw BenchError("unknown argument '\(argument)' (see --help)")
            }
        }
        if settings.postgres == nil, postgresBuilt, let text = environment[PostgresCatalog.environmentVariable], !text.isEmpty {
            settings.postgres = text
        }
        return list ? .list(settings) : .run(settings)
    }
}
