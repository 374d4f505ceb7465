#if Postgres
import EventLog
import Foundation
import LabelProjection
import LabelStorePostgres

/// `pg-cli-show`, `pg-cli-show-current`, `pg-cli-diff`, `pg-cli-trace`
/// (`-1m`; `-200k` with `--quick`): the release `labelreplay` over a long server list (issue 29,
/// item 2), as `cli-*` runs it over a file.
///
/// Prepared once (untimed, ``PostgresCLIList``): the ``HistoryFixture``'s
/// history appended to a server list through a store, so the list holds the
/// checkpoints a writer leaves (``PostgresStoreFill``: one at every multiple
/// of the default interval, in chains of a full image and deltas).
/// Ours: the command with the list's checkpoints; the peer: the same command
/// with them moved to another list name (untimed, and back after), so it
/// folds from seq 1. The two outputs must be the same bytes. Metric: ms per
/// command, from the spawn until it is reaped.
final class PostgresCLIWorkload: Workload {
    let metric = Metric.milliseconds
    let command: CLIQueryWorkload.Command
    let repetitions: Int?
    private let list: PostgresCLIList
    private let run: CLIRun
    private var outputBytes = 0
    private var compared = false

    init(command: CLIQueryWorkload.Command, list: PostgresCLIList, run: CLIRun, repetitions: Int?) {
        self.command = command
        self.list = list
        self.run = run
        self.repetitions = repetitions
    }

    var eventCount: Int { list.fixture.eventCount }
    var id: String { "pg-cli-\(command.rawValue)-\(HistoryFixture.sizeName(eventCount))" }
    private var seqs: (show: Int, from: Int, to: Int) { (eventCount / 2, eventCount * 2 / 5, eventCount * 9 / 10) }

    var title: String {
        switch command {
        case .show: "pg: labelreplay show --at \(seqs.show.grouped) --json, \(eventCount.grouped) events"
        case .showCurrent: "pg: labelreplay show --json (the current list), \(eventCount.grouped) events"
        case .diff: "pg: labelreplay diff \(seqs.from.grouped) \(seqs.to.grouped) --json, \(eventCount.grouped) events"
        case .logLabel: "pg: labelreplay log --label PREFIX, \(eventCount.grouped) events"
        case .logActor: "pg: labelreplay log --actor A, 1 day, \(eventCount.grouped) events"
        case .trace: "pg: labelreplay trace --label PREFIX --json, \(eventCount.grouped) events"
        }
    }

    var peer: String? { "fold from seq 1" }
    var target: Target { Target(maxRatio: 1, metric: .milliseconds, text: "≥ 1× (issue 29: ≤ 100 ms + output)") }
    var notes: [String] {
        ["\(outputBytes.grouped) bytes of output" + (compared ? ", the same bytes with and without the checkpoints" : "")]
            + list.facts
    }

    var arguments: [String] {
        let url = list.url
        // An id prefix, as users type it: resolving it is part of the command's work.
        let label = String(list.fixture.label.description.prefix(8))
        switch command {
        case .show: return ["show", url, "--at", String(seqs.show), "--json"]
        case .showCurrent: return ["show", url, "--json"]
        case .diff: return ["diff", url, String(seqs.from), String(seqs.to), "--json"]
        case .logLabel: return ["log", url, "--label", label]
        case .logActor: return ["log", url, "--actor", "alice"]
        case .trace: return ["trace", url, "--label", label, "--json"]
        }
    }

    func prepare(_ context: BenchContext) throws {
        _ = try run.binary.path(context)
        try list.acquire(context)
    }

    func finish(_ context: BenchContext) { list.release(context) }

    func measure(_ side: Side, repetition: Int, context: BenchContext) throws -> Double {
        let output = try run.outputPath("\(id)-\(side.rawValue).out", context: context)
        if side != .ours { try list.hideCheckpoints(true) }
        defer { if side != .ours { try? list.hideCheckpoints(false) } }
        let outcome = try run.run(arguments, outputPath: output, context: context)
        let comparison = try run.compareWithOtherSide(output, id: id, side: side, arguments: arguments, context: context)
        outputBytes = comparison.bytes
        compared = compared || comparison.compared
        return Statistics.seconds(outcome.elapsed) * 1e3
    }
}

/// The server list the `pg-cli-*` workloads share: the fixture's history and
/// its checkpoints, in a schema of its own, dropped when the last user ends.
final class PostgresCLIList {
    let server: PostgresBenchServer
    let fixture: HistoryFixture
    /// The workloads that have yet to finish with it.
    var users: Int
    private var schema: String?
    private(set) var facts: [String] = []

    init(server: PostgresBenchServer, fixture: HistoryFixture, users: Int) {
        self.server = server
        self.fixture = fixture
        self.users = users
    }

    /// The list's URL as `labelreplay` takes it (the connection string's words as query parameters).
    var url: String {
        var query = ["list=history", "schema=\(schema ?? "")"]
        var database = "postgres"
        for pair in server.conninfo.split(separator: " ") {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { continue }
            if parts[0] == "dbname" { database = parts[1] } else { query.append("\(parts[0])=\(parts[1])") }
        }
        return "postgresql:///\(database)?" + query.joined(separator: "&")
    }

    /// Appends the history and stores its checkpoints, the first time.
    func acquire(_ context: BenchContext) throws {
        guard schema == nil else { return }
        try fixture.acquire(context)
        let schema = server.freshSchema("cli")
        self.schema = schema
        let log = try server.openLog(schema: schema, list: "history", notify: false)
        defer { log.close() }
        context.progress("    appending the \(fixture.eventCount.grouped)-event history to a server list through a store (untimed)…")
        let rows = try PostgresStoreFill.fill(log, from: fixture.logPath, server: server, schema: schema, context: context)
        guard log.lastSeq == UInt64(fixture.eventCount) else { throw BenchError("the list holds \(log.lastSeq) records") }
        facts = [PostgresStoreFill.describe(rows, interval: log.checkpointInterval)]
    }

    /// Moves the list's checkpoints to another list name (`hidden`), or back.
    func hideCheckpoints(_ hidden: Bool) throws {
        guard let schema else { return }
        let connection = try server.connect()
        defer { connection.close() }
        let (from, to) = hidden ? ("history", "history-hidden") : ("history-hidden", "history")
        try connection.execute("UPDATE \(schema).checkpoints SET list = '\(to)' WHERE list = '\(from)'")
    }

    /// Ends one user's use; the last drops the schema and releases the fixture.
    func release(_ context: BenchContext) {
        users -= 1
        guard users <= 0 else { return }
        // LABELBENCH_KEEP_PG_LIST=1 keeps the list (to profile a command over it by hand) and names its URL.
        if ProcessInfo.processInfo.environment["LABELBENCH_KEEP_PG_LIST"] == "1", schema != nil {
            context.progress("    kept the server list: \(url)")
        } else if let schema {
            server.dropSchema(schema)
        }
        schema = nil
        fixture.release(context)
    }
}
#endif
