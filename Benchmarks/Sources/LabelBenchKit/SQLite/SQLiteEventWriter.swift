import EventLog

/// Inserts log entries into the peer's table through one reusable prepared
/// statement, either one transaction per row or many rows per transaction.
final class SQLiteEventWriter {
    /// The connection written through.
    let connection: SQLiteConnection
    private let insertStatement: SQLiteStatement
    private let beginStatement: SQLiteStatement
    private let beginImmediateStatement: SQLiteStatement
    private let commitStatement: SQLiteStatement
    private var orderBytes: [UInt8] = []

    /// Prepares the statements on `connection` (whose table exists).
    init(connection: SQLiteConnection) throws(SQLiteError) {
        self.connection = connection
        insertStatement = try connection.prepare(SQLiteEventDatabase.insert)
        beginStatement = try connection.prepare("BEGIN")
        beginImmediateStatement = try connection.prepare("BEGIN IMMEDIATE")
        commitStatement = try connection.prepare("COMMIT")
    }

    /// Inserts one entry as its own transaction (autocommit).
    func insert(_ entry: LogEntry) throws(SQLiteError) {
        bind(entry)
        defer { insertStatement.reset() }
        try insertStatement.step()
    }

    /// Inserts `entries` in one transaction. With `immediate`, the write lock
    /// is taken at `BEGIN IMMEDIATE` (waiting for it as the busy timeout allows, then retrying).
    func insertTransaction(_ entries: some Collection<LogEntry>, immediate: Bool = false) throws(SQLiteError) {
        let begin = immediate ? beginImmediateStatement : beginStatement
        while true {
            do throws(SQLiteError) {
                defer { begin.reset() }
                try begin.step()
                break
            } catch  where error.isBusy {
                continue
            }
        }
        do throws(SQLiteError) {
            for entry in entries { try insert(entry) }
            defer { commitStatement.reset() }
            try commitStatement.step()
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }

    private func bind(_ entry: LogEntry) {
        let s = insertStatement
        s.clearBindings()  // every column NULL but what is bound below
        s.bind(entry.timestamp?.millisecondsSince1970 ?? EventTimestamp.now().millisecondsSince1970, at: 1)
        s.bind(Int64(entry.event.kind.code), at: 2)
        s.bind(entry.actor, at: 10)
        s.bind(entry.note, at: 11)
        switch entry.event {
        case .added(let id, let title, let isEnabled, let index), .removed(let id, let index, let title, let isEnabled):
            bind(id, at: 3)
            s.bind(title, at: 4)
            s.bind(isEnabled ? 1 : 0, at: 6)
            s.bind(Int64(index), at: 7)
        case .renamed(let id, let oldTitle, let newTitle):
            bind(id, at: 3)
            s.bind(newTitle, at: 4)
            s.bind(oldTitle, at: 5)
        case .toggled(let id, let isEnabled):
            bind(id, at: 3)
            s.bind(isEnabled ? 1 : 0, at: 6)
        case .moved(let id, let from, let to):
            bind(id, at: 3)
            s.bind(Int64(from), at: 8)
            s.bind(Int64(to), at: 9)
        case .reordered(let order):
            orderBytes.removeAll(keepingCapacity: true)
            for id in order { withUnsafeBytes(of: id.uuid.uuid) { orderBytes.append(contentsOf: $0) } }
            orderBytes.withUnsafeBytes { s.bind(blob: $0, at: 12) }
        case .rejected(let id, let command, let reason):
            if let id { bind(id, at: 3) }
            s.bind(command, at: 4)
            s.bind(reason, at: 13)
        }
    }

    private func bind(_ id: LabelID, at index: Int32) {
        withUnsafeBytes(of: id.uuid.uuid) { insertStatement.bind(blob: $0, at: index) }
    }
}
