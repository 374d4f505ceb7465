#if Postgres
import EventLog
import Foundation
import LabelProjection
import LabelStorePostgres

/// Filling a server list with a fixture's history the way a writer does:
/// through a `LabelStore` over the list with the default checkpoint options,
/// one append per checkpoint interval, each append's checkpoint written
/// before the next (so every multiple of the interval gets one: a full image
/// one in `checkpointFullEvery`, storage deltas between — the chains a
/// long-running writer leaves).
enum PostgresStoreFill {
    /// Appends every record of the log at `path` to `log` (empty) through a
    /// store; returns the checkpoints' rows as `seq`, `delta_on`, bytes.
    static func fill(
        _ log: PostgresEventLog, from path: String, server: PostgresBenchServer, schema: String, context: BenchContext
    ) throws -> [(seq: UInt64, deltaOn: UInt64?, bytes: Int)] {
        let store = try LabelStore(storage: log)
        defer { store.close() }
        let reader = try LogReader(path: path)
        let interval = Int(log.checkpointInterval)
        var entries: [LogEntry] = []
        entries.reserveCapacity(interval)
        func flush() throws {
            guard !entries.isEmpty else { return }
            _ = try store.append(entries: entries)
            entries.removeAll(keepingCapacity: true)
            store.waitForHistoryFiles()
            if let failure = store.snapshotReport.lastWriteError { throw BenchError("a checkpoint was not stored: \(failure)") }
        }
        while let record = try reader.next() {
            entries.append(LogEntry(record.event, timestamp: record.timestamp, actor: record.actor, note: record.note))
            if entries.count == interval { try flush() }
            if record.seq % 1_000_000 == 0 { context.progress("    appended \(Int(record.seq).grouped) records") }
        }
        try flush()
        let connection = try server.connect()
        defer { connection.close() }
        try connection.execute("VACUUM ANALYZE \(schema).records")
        let result = try connection.execute(
            "SELECT seq, coalesce(delta_on, 0), octet_length(image) FROM \(schema).checkpoints WHERE list = 'history' ORDER BY seq")
        return (0..<result.rowCount).compactMap { row in
            guard let seq = result.text(row, 0).flatMap({ UInt64($0) }), let on = result.text(row, 1).flatMap({ UInt64($0) }),
                let bytes = result.text(row, 2).flatMap({ Int($0) })
            else { return nil }
            return (seq, on == 0 ? nil : on, bytes)
        }
    }

    /// One line on what `rows` hold: how many full images and deltas, and their sizes.
    static func describe(_ rows: [(seq: UInt64, deltaOn: UInt64?, bytes: Int)], interval: UInt64) -> String {
        let fulls = rows.filter { $0.deltaOn == nil }.map(\.bytes), deltas = rows.filter { $0.deltaOn != nil }.map(\.bytes)
        func range(_ sizes: [Int]) -> String {
            guard let low = sizes.min(), let high = sizes.max() else { return "none" }
            return low == high ? "\(low.grouped) bytes" : "\(low.grouped)–\(high.grouped) bytes"
        }
        return
            "\(rows.count) checkpoints, every \(Int(interval).grouped) records, kept in chains: \(fulls.count) full images (\(range(fulls))) and \(deltas.count) deltas (\(range(deltas)))"
    }
}
#endif
