import EventLog

/// Creating and filling the two stores the way the workloads need, outside timed regions.
enum Fixtures {
    /// The log's file name in a measurement's directory.
    static let logName = "events.labellog"
    /// The SQLite database's file name in a measurement's directory.
    static let databaseName = "events.sqlite"

    /// Creates a new, empty log in `directory` with `durability`.
    static func createLog(in directory: String, durability: Durability, format: UInt16 = LogFormat.currentVersion) throws -> LogWriter {
        var options = LogWriter.Options(durability: durability, createIfMissing: true)
        options.newLogFormat = format
        return try LogWriter.open(path: "\(directory)/\(logName)", options: options)
    }

    /// Creates a new, empty SQLite database in `directory` (WAL, `synchronous`, the events table).
    static func createDatabase(in directory: String, synchronous: SQLiteEventDatabase.Synchronous) throws -> SQLiteConnection {
        try SQLiteEventDatabase.open(path: "\(directory)/\(databaseName)", synchronous: synchronous)
    }

    /// Writes `count` events of `stream` into a new log at `path`, in appends
    /// of 10,000, each synced: unsynced writes as a store's group commit
    /// leaves them (one unsynced write of the whole history would make every
    /// check that the log keeps a cached position read it from seq 1, as it
    /// does after a `labelreplay import` of that size: RELIABILITY.md, issue 25).
    static func writeLog(count: Int, stream: EventStream, path: String) throws {
        var stream = stream
        try appendLog(count: count, stream: &stream, path: path)
    }

    /// Appends `count` more events of `stream` (which goes on from where it
    /// stops) to the log at `path`, created when missing, as ``writeLog(count:stream:path:)``
    /// writes them. Returns the log's last seq.
    @discardableResult
    static func appendLog(count: Int, stream: inout EventStream, path: String) throws -> UInt64 {
        let log = try LogWriter.open(path: path, options: LogWriter.Options(durability: .noSync, createIfMissing: true))
        defer { log.close() }
        var written = 0
        while written < count {
            let entries = stream.next(min(10_000, count - written))
            try log.append(entries)
            try log.sync()
            written += entries.count
        }
        return log.lastSeq
    }

    /// Writes the same `count` events of the stream for `seed` into a new log
    /// at `logPath` and a new database at `databasePath`, generating the
    /// stream once, `chunk` events at a time (so ten million events need not
    /// be in memory at once). Fast settings: the log without syncs and one
    /// sync at the end; SQLite with `synchronous=OFF`, one transaction per
    /// chunk, then a checkpoint that empties the WAL.
    static func writeBoth(
        count: Int, seed: UInt64, logPath: String, databasePath: String, chunk: Int = 10_000, format: UInt16 = LogFormat.currentVersion,
        progress: (Int) -> Void = { _ in }
    ) throws {
        var options = LogWriter.Options(durability: .noSync, createIfMissing: true)
        options.newLogFormat = format
        let log = try LogWriter.open(path: logPath, options: options)
        defer { log.close() }
        let db = try SQLiteEventDatabase.open(path: databasePath, synchronous: .off)
        defer { db.close() }
        let inserter = try SQLiteEventWriter(connection: db)
        var stream = EventStream(seed: seed)
        var written = 0
        while written < count {
            let entries = stream.next(min(chunk, count - written))
            try log.append(entries)
            try inserter.insertTransaction(entries)
            written += entries.count
            if written % 1_000_000 == 0 { progress(written) }
        }
        try log.sync()
        try SQLiteEventDatabase.checkpoint(db)
        guard log.lastSeq == UInt64(count), try SQLiteEventDatabase.rowCount(db) == count else {
            throw BenchError(
                "fixture: expected \(count) events, the log has \(log.lastSeq) and SQLite \(try SQLiteEventDatabase.rowCount(db))")
        }
    }
}
