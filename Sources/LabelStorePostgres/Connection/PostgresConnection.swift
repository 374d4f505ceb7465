#if Postgres
import CLibPQ
import Foundation

/// One libpq connection (`PGconn`), with the statements prepared on it.
///
/// Not thread-safe (`@unchecked Sendable` only so it can live behind a lock): its owner uses it from one thread at a time (a
/// ``PostgresEventLog`` keeps each connection behind a lock). Statements run in
/// autocommit mode unless the caller sends `BEGIN`: a statement's result is
/// returned after the server committed it. Parameters and results are binary.
final class PostgresConnection: @unchecked Sendable {
    private var handle: OpaquePointer?
    /// Names of the statements prepared on this connection.
    var prepared: Set<String> = []
    /// The statements of the last pipeline whose outcomes are not read yet (``finishPipeline()``).
    var pendingStatements: [PipelineStatement] = []
    /// Whether the last read of a page on this connection filled it
    /// (``PostgresEventLog``'s reads): a reader going through a run of
    /// records, whose next read is sent ahead; one at the list's end (a
    /// follower) sends nothing ahead.
    var lastReadFilledItsPage = false
    /// Set when a statement failed without the server's answer (no SQLSTATE:
    /// the server closed the connection, a send failed): libpq may still call
    /// such a connection `CONNECTION_OK`, but it is not used again.
    var broken = false

    /// Opens a connection with the libpq connection string `conninfo` (key=value
    /// or URL). The connection string is never part of an error.
    ///
    /// - Throws: ``PostgresFailure`` with libpq's message and, when the server
    ///   answered, its SQLSTATE (``establish(_:)``): unreachable server,
    ///   refused login, no `CONNECT` privilege, unknown database, bad option.
    init(conninfo: String) throws(PostgresFailure) {
        handle = try Self.establish(conninfo)
    }

    deinit { close() }

    /// Closes the connection (idempotent).
    func close() {
        if let handle { PQfinish(handle) }
        handle = nil
        pendingStatements = []
    }

    /// Whether the connection is open and libpq considers it good (after
    /// reading what an earlier pipeline left, except a read sent ahead, which
    /// its next use takes or drops: ``statementAhead``).
    var isUsable: Bool {
        if statementAhead == nil { finishPipeline() }
        guard let handle, !broken else { return false }
        return PQstatus(handle) == CONNECTION_OK
    }

    /// The backend's process id (for `pg_terminate_backend` in tests and diagnostics).
    var backendPID: Int32 { handle.map { PQbackendPID($0) } ?? 0 }

    /// When the server this connection reached started (`pg_postmaster_start_time()`,
    /// read by ``PostgresEventLog``'s session setup; empty until then): with
    /// ``backendPID``, it names a backend across server restarts and failovers,
    /// where a process id alone may name another server's backend.
    var serverStartedAt = ""

    /// The backend this connection talks to, named so that another server's
    /// (or a restarted server's) backend of the same pid is not taken for it.
    var backend: PostgresBackend { PostgresBackend(pid: backendPID, server: serverStartedAt) }

    /// Whether the server says it is read-only: a hot standby (`in_hot_standby`)
    /// or `default_transaction_read_only` on. Both are reported by servers from
    /// version 14 as they change (a standby promoted says so), so this costs no
    /// round trip; older servers report neither, and a write there is refused
    /// with SQLSTATE `25006` instead (``PostgresFailure/isReadOnlyTransaction``).
    var isReadOnlyServer: Bool {
        guard let handle else { return false }
        for name in ["in_hot_standby", "default_transaction_read_only"] {
            if let value = PQparameterStatus(handle, name), String(cString: value) == "on" { return true }
        }
        return false
    }

    /// Whether libpq made this connection with `target_session_attrs=read-write`
    /// (it checked that the server accepted writes then).
    var connectedAsWritable = false

    /// Whether the server is known to accept writes (the list's authority in a
    /// failover): it does not say it is read-only, and either this connection
    /// was made for writing or the server reports `in_hot_standby = off`. A
    /// server before version 14 that was reached for reading reports neither:
    /// it may be a standby, so it is not known to accept writes.
    var isKnownWritable: Bool {
        guard let handle, !isReadOnlyServer else { return false }
        if connectedAsWritable { return true }
        guard let value = PQparameterStatus(handle, "in_hot_standby") else { return false }
        return String(cString: value) == "off"
    }

    /// The socket's file descriptor, or -1 when closed.
    var socket: Int32 { handle.map { PQsocket($0) } ?? -1 }

    /// Sends the prepared statement `name` and closes the connection without
    /// reading its result, after `wait`: the server runs (and commits) the
    /// statement while its client believes the connection was lost. For fault
    /// injection in tests only.
    func sendAndDrop(prepared name: String, _ sql: String, _ parameters: [PostgresValue], wait: Duration) throws(PostgresFailure) -> Never {
        let handle = try preparedHandle(name, sql, parameters)
        _ = try? withParameters(parameters) { (_, values, lengths, formats) throws(PostgresFailure) -> Int32 in
            PQsendQueryPrepared(handle, name, Int32(parameters.count), values, lengths, formats, 1)
        }
        _ = PQflush(handle)
        Thread.sleep(forTimeInterval: wait.timeInterval)
        close()
        throw PostgresFailure(
            sqlState: nil, message: "the connection was dropped after the statement was sent (fault injection)", connectionLost: true)
    }

    /// Runs `script`, one or more statements separated by `;`, in one round trip
    /// (the simple query protocol: no parameters, text results; the result is the
    /// last statement's).
    @discardableResult
    func executeScript(_ script: String) throws(PostgresFailure) -> PostgresResult {
        let handle = try open()
        return try check(PQexec(handle, script), handle)
    }

    /// `text` as an SQL string literal, quoted and escaped by libpq for this connection.
    func literal(_ text: String) throws(PostgresFailure) -> String {
        let handle = try open()
        guard let escaped = PQescapeLiteral(handle, text, text.utf8.count) else {
            throw PostgresFailure(sqlState: nil, message: Self.errorMessage(handle), connectionLost: PQstatus(handle) != CONNECTION_OK)
        }
        defer { PQfreemem(escaped) }
        return String(cString: escaped)
    }

    /// Runs `sql` with `parameters` (`$1`, `$2`, …), unprepared.
    @discardableResult
    func execute(_ sql: String, _ parameters: [PostgresValue] = []) throws(PostgresFailure) -> PostgresResult {
        let handle = try open()
        return try withParameters(parameters) { (types, values, lengths, formats) throws(PostgresFailure) in
            let result = PQexecParams(handle, sql, Int32(parameters.count), types, values, lengths, formats, 1)
            return try check(result, handle)
        }
    }

    /// The open connection, with the statement `name` (`sql`) prepared on it (on first use).
    func preparedHandle(_ name: String, _ sql: String, _ parameters: [PostgresValue]) throws(PostgresFailure) -> OpaquePointer {
        let handle = try open()
        if !prepared.contains(name) {
            let types = parameters.map(\.type)
            let result = types.withUnsafeBufferPointer { PQprepare(handle, name, sql, Int32(types.count), $0.baseAddress) }
            _ = try check(result, handle)
            prepared.insert(name)
        }
        return handle
    }

    /// Runs the statement `name` (`sql`, prepared on this connection on first use) with `parameters`.
    @discardableResult
    func execute(prepared name: String, _ sql: String, _ parameters: [PostgresValue]) throws(PostgresFailure) -> PostgresResult {
        let handle = try preparedHandle(name, sql, parameters)
        return try withParameters(parameters) { (_, values, lengths, formats) throws(PostgresFailure) in
            let result = PQexecPrepared(handle, name, Int32(parameters.count), values, lengths, formats, 1)
            return try check(result, handle)
        }
    }

    /// Reads what the server sent without blocking and returns the notifications
    /// received so far (channel names). Notifications arrive only between transactions.
    func drainNotifications() throws(PostgresFailure) -> [String] {
        let handle = try open()
        if PQconsumeInput(handle) == 0 {
            let message = Self.errorMessage(handle)
            throw PostgresFailure(sqlState: nil, message: message, connectionLost: PQstatus(handle) != CONNECTION_OK)
        }
        var channels: [String] = []
        while let notify = PQnotifies(handle) {
            channels.append(String(cString: notify.pointee.relname))
            PQfreemem(notify)
        }
        return channels
    }

    /// The open connection, with the results of an earlier pipeline read (``finishPipeline()``).
    func open() throws(PostgresFailure) -> OpaquePointer {
        if !pendingStatements.isEmpty { finishPipeline() }
        guard let handle else {
            throw PostgresFailure(sqlState: nil, message: "the connection is closed", connectionLost: true)
        }
        return handle
    }

    /// The connection's handle, or `nil` once closed.
    var handleIfOpen: OpaquePointer? { handle }

    /// Turns a `PGresult` into a ``PostgresResult`` or a failure (and frees it then).
    func check(_ result: OpaquePointer?, _ handle: OpaquePointer) throws(PostgresFailure) -> PostgresResult {
        guard let result else {
            // No result at all: libpq could not send or read; the connection is not to be trusted.
            broken = true
            prepared.removeAll()
            throw PostgresFailure(sqlState: nil, message: Self.errorMessage(handle), connectionLost: true)
        }
        let status = PQresultStatus(result)
        if status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK {
            return PostgresResult(result)
        }
        let sqlState = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
        var message = PQresultErrorField(result, Int32(UInt8(ascii: "M"))).map { String(cString: $0) }
        if message == nil || message!.isEmpty { message = String(cString: PQresultErrorMessage(result)) }
        PQclear(result)
        // The server answers every error of its own with a SQLSTATE; a failure without one is libpq's
        // (the server closed the connection, a send failed), whatever PQstatus still says.
        let lost = PQstatus(handle) != CONNECTION_OK || sqlState == nil
        if lost {
            broken = true
            prepared.removeAll()
        }
        throw PostgresFailure(
            sqlState: sqlState, message: Self.oneLine(message ?? "unknown error"), connectionLost: lost)
    }

    func withParameters<R>(
        _ parameters: [PostgresValue],
        _ body: (UnsafePointer<UInt32>?, UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?)
            throws(PostgresFailure) -> R
    ) throws(PostgresFailure) -> R {
        let types = parameters.map(\.type)
        let lengths = parameters.map { Int32($0.bytes?.count ?? 0) }
        let formats = [Int32](repeating: 1, count: parameters.count)
        // One buffer for all values, so every pointer stays valid during the call.
        var storage: [UInt8] = []
        storage.reserveCapacity(parameters.reduce(0) { $0 + ($1.bytes?.count ?? 0) } + 1)
        var offsets: [Int?] = []
        for parameter in parameters {
            if let bytes = parameter.bytes {
                offsets.append(storage.count)
                storage += bytes
            } else {
                offsets.append(nil)
            }
        }
        storage.append(0)
        let result: Result<R, PostgresFailure> = storage.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self)
            let values: [UnsafePointer<CChar>?] = offsets.map { $0.map { base + $0 } }
            return types.withUnsafeBufferPointer { types in
                values.withUnsafeBufferPointer { values in
                    lengths.withUnsafeBufferPointer { lengths in
                        formats.withUnsafeBufferPointer { formats in
                            Result { () throws(PostgresFailure) -> R in
                                try body(types.baseAddress, values.baseAddress, lengths.baseAddress, formats.baseAddress)
                            }
                        }
                    }
                }
            }
        }
        return try result.get()
    }

    static func errorMessage(_ handle: OpaquePointer) -> String {
        oneLine(String(cString: PQerrorMessage(handle)))
    }

    /// libpq's messages end in a newline and sometimes span lines; errors here are one line.
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: "; ")
    }
}

/// A backend process of one server: its pid and when its server started
/// (``PostgresConnection/serverStartedAt``). A failover or a restart makes
/// another server, whose pids say nothing about the old one's.
struct PostgresBackend: Sendable, Equatable {
    /// The backend's process id (0: none).
    var pid: Int32
    /// When its server started.
    var server: String
}

/// A successful statement's rows, read in binary. Frees the `PGresult` when released.
final class PostgresResult {
    private let result: OpaquePointer

    init(_ result: OpaquePointer) { self.result = result }
    deinit { PQclear(result) }

    /// The number of rows.
    var rowCount: Int { Int(PQntuples(result)) }
    /// The rows the statement affected (`INSERT`, `UPDATE`, …), from its command tag.
    var affectedRows: Int { Int(String(cString: PQcmdTuples(result))) ?? 0 }

    /// Whether the value at (`row`, `column`) is NULL.
    func isNull(_ row: Int, _ column: Int) -> Bool { PQgetisnull(result, Int32(row), Int32(column)) == 1 }

    /// The raw binary value at (`row`, `column`), valid as long as this result.
    func bytes(_ row: Int, _ column: Int) -> UnsafeRawBufferPointer {
        let length = Int(PQgetlength(result, Int32(row), Int32(column)))
        guard let pointer = PQgetvalue(result, Int32(row), Int32(column)) else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: pointer, count: length)
    }

    /// An `int8`/`int4`/`int2` value (binary, big-endian), or `nil` when NULL or of another width.
    func integer(_ row: Int, _ column: Int) -> Int64? {
        if isNull(row, column) { return nil }
        let raw = bytes(row, column)
        switch raw.count {
        case 8: return Int64(bigEndian: raw.loadUnaligned(as: Int64.self))
        case 4: return Int64(Int32(bigEndian: raw.loadUnaligned(as: Int32.self)))
        case 2: return Int64(Int16(bigEndian: raw.loadUnaligned(as: Int16.self)))
        default: return nil
        }
    }

    /// A `text` value, or `nil` when NULL.
    func text(_ row: Int, _ column: Int) -> String? {
        if isNull(row, column) { return nil }
        return String(decoding: bytes(row, column), as: UTF8.self)
    }

    /// A `uuid` value, or `nil` when NULL or not 16 bytes.
    func uuid(_ row: Int, _ column: Int) -> UUID? {
        if isNull(row, column) { return nil }
        let raw = bytes(row, column)
        guard raw.count == 16 else { return nil }
        return UUID(uuid: raw.loadUnaligned(as: uuid_t.self))
    }

    /// A `bool` value, or `nil` when NULL.
    func bool(_ row: Int, _ column: Int) -> Bool? {
        if isNull(row, column) { return nil }
        return bytes(row, column).first.map { $0 != 0 }
    }
}
#endif
