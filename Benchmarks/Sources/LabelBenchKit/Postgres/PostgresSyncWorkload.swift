#if Postgres
import EventLog
import Foundation
import LabelProjection
import LabelStorePostgres

/// `pg-sync-push-10k` and `pg-sync-pull-1m` (`-200k` with `--quick`): a
/// device syncing with a server list (docs/SYNC.md).
///
/// - **push**: a device whose mirror holds a list of 2,000 events comes back
///   with 10,000 edits made offline (the event stream's next 10,000, made as
///   sync commands on the device's list and kept in its outbox, untimed).
///   Timed: `SyncSession.sync()` — the pull (nothing new), then the push in
///   groups of 1,024: each command decided on the server's state, the
///   group's attempt noted and synced in the outbox, one append, the pull of
///   its records into the mirror (synced), the done entry (synced). Peer: the
///   same 10,000 events appended to a list with `PostgresEventLog.append` in
///   the same groups, nothing else. Target: ≤ 1 s, i.e. ≥ 10,000 edits/s.
/// - **pull**: a device with an empty mirror syncs a list of N records that
///   keeps the history tree's head every 65,536 records (as stores writing
///   it keep them with their checkpoints). Timed: `SyncSession.open` +
///   `sync()` — every record read from the server, appended to the mirror
///   file (synced once, at the end) and folded, and every head proven. Peer: the follower's catch-up read of the same list (pages of
///   4,096, `read(from:maxCount:)`, as `pg-catch-up`). Target: ≥ 1× the
///   catch-up rate.
final class PostgresSyncWorkload: Workload {
    enum Mode {
        case push
        case pull
    }

    let id: String
    let metric = Metric.eventsPerSecond
    let target: Target
    let peer: String?
    let eventCount: Int
    private let mode: Mode
    private let server: PostgresBenchServer
    private let seed: UInt64
    /// The device's list before its offline edits (push), or the whole list (pull).
    private var history: [LogEntry] = []
    /// The offline edits (push).
    private var edits: [LogEntry] = []
    private var schemas: [String] = []
    private var pullSchema: String?

    /// Events in the device's list before it goes offline (push).
    static let before = 2_000
    /// Records between the heads the pull's list keeps.
    static let headInterval: UInt64 = 65_536
    /// The newest head the pull's list keeps (the device must prove it).
    private var provenSeq: UInt64 = 0

    init(server: PostgresBenchServer, settings: BenchSettings, mode: Mode) {
        self.server = server
        self.mode = mode
        seed = settings.seed
        switch mode {
        case .push:
            eventCount = 10_000
            id = "pg-sync-push-10k"
            target = Target(minOurs: 10_000, metric: .eventsPerSecond, text: "≤ 1 s (≥ 10 k edits/s)")
            peer = "plain append"
        case .pull:
            eventCount = settings.size(full: 1_000_000, quick: 200_000)
            id = settings.quick ? "pg-sync-pull-200k" : "pg-sync-pull-1m"
            target = Target(minRatio: 1, metric: .eventsPerSecond)
            peer = "catch-up read"
        }
    }

    var title: String {
        switch mode {
        case .push: "pg: sync push of \(eventCount.grouped) offline edits (groups of 1,024)"
        case .pull: "pg: sync pull of \(eventCount.grouped) records into an empty mirror"
        }
    }

    func prepare(_ context: BenchContext) throws {
        var stream = EventStream(seed: seed)
        switch mode {
        case .push:
            history = stream.next(Self.before)
            edits = stream.next(eventCount)
        case .pull:
            let schema = server.freshSchema("pull")
            pullSchema = schema
            let log = try server.openLog(schema: schema, list: "history", notify: false)
            defer { log.close() }
            var written = 0
            while written < eventCount {
                try log.append(stream.next(min(10_000, eventCount - written)), expectedLastSeq: UInt64(written))
                written = min(written + 10_000, eventCount)
            }
            // The history tree's head every 65,536 records, as the stores writing a list keep them with their
            // checkpoints: the device proves each (docs/SYNC.md, "Proving the server's history"). No image: the
            // device reads none.
            var tree = HistoryTreeBuilder()
            var next: UInt64 = 1
            while true {
                let records = try log.read(from: next, maxCount: 4_096)
                guard let last = records.last else { break }
                for record in records {
                    tree.append(payload: try record.encodedPayload())
                    if record.seq % Self.headInterval == 0 {
                        _ = try log.storeCheckpoint(seq: record.seq, image: [], frontier: tree)
                        provenSeq = record.seq
                    }
                }
                next = last.seq + 1
            }
        }
    }

    func measure(_ side: Side, repetition: Int, context: BenchContext) throws -> Double {
        switch mode {
        case .push: try measurePush(side, repetition: repetition, context: context)
        case .pull: try measurePull(side, repetition: repetition, context: context)
        }
    }

    private func measurePush(_ side: Side, repetition: Int, context: BenchContext) throws -> Double {
        let schema = server.freshSchema("sync\(repetition)\(side == .ours ? "o" : "p")")
        schemas.append(schema)
        let log = try server.openLog(schema: schema, list: "shared", notify: false)
        defer { log.close() }
        try log.append(history, expectedLastSeq: 0)
        switch side {
        case .ours:
            let directory = try context.scratch.freshDirectory("sync-push-\(repetition)")
            let mirror = directory + "/device.labellog"
            // The device: in sync with the list, then its offline edits, made as sync commands and kept in its outbox.
            var commands: [SyncCommand] = []
            do {
                let session = try SyncSession.open(mirrorPath: mirror, server: log)
                try session.sync()
                var state = session.serverState
                for entry in edits {
                    guard let command = LabelCommand(making: entry.event),
                        let made = try state.syncCommand(for: command, actor: entry.actor, note: entry.note)
                    else { continue }
                    state.applyPending(made)
                    commands.append(made)
                }
                try session.outbox.append(contentsOf: commands)
                session.close()
            }
            let session = try SyncSession.open(mirrorPath: mirror, server: log)
            defer { session.close() }
            var report: SyncSession.Report?
            let elapsed = try Statistics.time { report = try session.sync() }
            guard let report, report.pending == 0, report.done.count == commands.count else {
                throw BenchError("\(id): the sync left edits pending")
            }
            return Statistics.rate(events: commands.count, in: elapsed)
        case .sqlite:
            let elapsed = try Statistics.time {
                var at = 0
                while at < edits.count {
                    let group = Array(edits[at..<min(at + 1_024, edits.count)])
                    try log.append(group, expectedLastSeq: UInt64(Self.before + at))
                    at += group.count
                }
            }
            return Statistics.rate(events: edits.count, in: elapsed)
        }
    }

    private func measurePull(_ side: Side, repetition: Int, context: BenchContext) throws -> Double {
        guard let schema = pullSchema else { throw BenchError("\(id): not prepared") }
        let log = try server.openLog(schema: schema, list: "history", notify: false, create: false)
        defer { log.close() }
        var count = 0
        let elapsed: Duration
        switch side {
        case .ours:
            let directory = try context.scratch.freshDirectory("sync-pull-\(repetition)")
            elapsed = try Statistics.time {
                let session = try SyncSession.open(mirrorPath: directory + "/device.labellog", server: log)
                defer { session.close() }
                let report = try session.sync()
                guard report.provenHead?.seq == provenSeq else {
                    throw BenchError("\(id): the sync proved \(String(describing: report.provenHead)), not the head at seq \(provenSeq)")
                }
                count = report.pulled
            }
            context.scratch.remove(directory)
        case .sqlite:
            elapsed = try Statistics.time {
                var next: UInt64 = 1
                while true {
                    let records = try log.read(from: next, maxCount: 4_096)
                    if records.isEmpty { break }
                    count += records.count
                    next += UInt64(records.count)
                }
            }
        }
        guard count == eventCount else { throw BenchError("\(id): \(side.rawValue) read \(count) of \(eventCount) records") }
        return Statistics.rate(events: count, in: elapsed)
    }

    func finish(_ context: BenchContext) {
        for schema in schemas + [pullSchema].compactMap({ $0 }) { server.dropSchema(schema) }
        schemas = []
        pullSchema = nil
    }
}
#endif
