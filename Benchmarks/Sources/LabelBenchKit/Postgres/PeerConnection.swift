#if Postgres
import CLibPQPeer
import Foundation

/// A small libpq connection for the PostgreSQL peers (plain tables) and the
/// benchmark's own housekeeping (creating and dropping schemas, server settings).
///
/// One per thread: not thread-safe. Parameters are sent and results read in
/// binary (format 1), as the backend does, so both sides pay the same encoding.
final class PeerConnection {
    private var handle: OpaquePointer?

    /// Opens a connection with the libpq connection string `conninfo`.
    /// The connection string never appears in an error (it may hold a password).
    init(_ conninfo: String) throws {
        guard let handle = PQconnectdb(conninfo) else { throw BenchError("postgres: libpq could not allocate a connection") }
        self.handle = handle
        if PQstatus(handle) != CONNECTION_OK {
            let message = Self.message(handle)
            PQfinish(handle)
            self.handle = nil
            throw BenchError("postgres: cannot connect: \(message)")
        }
        // No NOTICE lines on stderr (e.g. what a DROP SCHEMA … CASCADE dropped).
        try execute("SET client_min_messages = warning")
    }

    deinit { close() }

    /// Closes the connection (idempotent).
    func close() {
        if let handle { PQfinish(handle) }
        handle = nil
    }

    /// The server's host (a socket directory or a name) and port, never a password.
    var serverAddress: String {
        guard let handle else { return "closed" }
        let host = PQhost(handle).map { String(cString: $0) } ?? "?"
        let port = PQport(handle).map { String(cString: $0) } ?? "?"
        return host.hasPrefix("/") ? "Unix socket \(host) (port \(port))" : "\(host):\(port)"
    }

    /// Runs `sql` (one or more statements, simple protocol, text results).
    @discardableResult
    func execute(_ sql: String) throws -> PeerResult {
        let handle = try open()
        return try check(PQexec(handle, sql), handle, sql)
    }

    /// Prepares `sql` as the statement `name` with parameters of `types` (OIDs).
    func prepare(_ name: String, _ sql: String, types: [UInt32]) throws {
        let handle = try open()
        let result = types.withUnsafeBufferPointer { PQprepare(handle, name, sql, Int32(types.count), $0.baseAddress) }
        _ = try check(result, handle, sql)
    }

    /// Runs the prepared statement `name` with `parameters`; binary results.
    @discardableResult
    func execute(prepared name: String, _ parameters: [PeerValue]) throws -> PeerResult {
        let handle = try open()
        let lengths = parameters.map { Int32($0.bytes?.count ?? 0) }
        let formats = [Int32](repeating: 1, count: parameters.count)
        // One buffer for every value, so each pointer stays valid during the call.
        var storage: [UInt8] = []
        storage.reserveCapacity(lengths.reduce(1) { $0 + Int($1) })
        var offsets: [Int?] = []
        offsets.reserveCapacity(parameters.count)
        for parameter in parameters {
            if let bytes = parameter.bytes {
                offsets.append(storage.count)
                storage += bytes
            } else {
                offsets.append(nil)
            }
        }
        storage.append(0)
        let result = storage.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            let base = UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self)
            let values: [UnsafePointer<CChar>?] = offsets.map { $0.map { base + $0 } }
            return values.withUnsafeBufferPointer { values in
                lengths.withUnsafeBufferPointer { lengths in
                    formats.withUnsafeBufferPointer { formats in
                        PQexecPrepared(
                            handle, name, Int32(parameters.count), values.baseAddress, lengths.baseAddress, formats.baseAddress, 1)
                    }
                }
            }
        }
        return try check(result, handle, name)
    }

    /// The first column of the first row of `sql`'s text result, e.g. a setting.
    func scalar(_ sql: String) throws -> String {
        let result = try execute(sql)
        guard result.rowCount >= 1 else { throw BenchError("postgres: '\(sql)' returned no row") }
        return result.text(0, 0) ?? ""
    }

    private func open() throws -> OpaquePointer {
        guard let handle else { throw BenchError("postgres: the connection is closed") }
        return handle
    }

    private func check(_ result: OpaquePointer?, _ handle: OpaquePointer, _ what: String) throws -> PeerResult {
        guard let result else { throw BenchError("postgres: \(what): \(Self.message(handle))") }
        let status = PQresultStatus(result)
        if status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK { return PeerResult(result) }
        let message = String(cString: PQresultErrorMessage(result)).trimmingCharacters(in: .whitespacesAndNewlines)
        PQclear(result)
        throw BenchError("postgres: \(what.prefix(80)): \(message)")
    }

    private static func message(_ handle: OpaquePointer) -> String {
        String(cString: PQerrorMessage(handle)).split(whereSeparator: \.isNewline).joined(separator: "; ")
    }
}

/// A statement's result (`PGresult`), freed when released.
final class PeerResult {
    private let result: OpaquePointer

    init(_ result: OpaquePointer) { self.result = result }
    deinit { PQclear(result) }

    /// The number of rows.
    var rowCount: Int { Int(PQntuples(result)) }
    /// The rows an `INSERT` affected, from its command tag.
    var affectedRows: Int { Int(String(cString: PQcmdTuples(result))) ?? 0 }

    /// The raw value at (`row`, `column`), valid as long as this result.
    func bytes(_ row: Int, _ column: Int) -> UnsafeRawBufferPointer {
        let length = Int(PQgetlength(result, Int32(row), Int32(column)))
        guard let pointer = PQgetvalue(result, Int32(row), Int32(column)) else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: pointer, count: length)
    }

    /// A binary `int8` value.
    func int64(_ row: Int, _ column: Int) -> Int64? {
        let raw = bytes(row, column)
        return raw.count == 8 ? Int64(bigEndian: raw.loadUnaligned(as: Int64.self)) : nil
    }

    /// A value as text (for text-format results), or `nil` when NULL.
    func text(_ row: Int, _ column: Int) -> String? {
        if PQgetisnull(result, Int32(row), Int32(column)) == 1 { return nil }
        return String(decoding: bytes(row, column), as: UTF8.self)
    }
}

/// A statement parameter in binary wire format (`nil` bytes: SQL NULL).
struct PeerValue {
    /// The bytes, or `nil` for NULL.
    var bytes: [UInt8]?

    /// The OIDs the peers use.
    enum OID {
        static let bool: UInt32 = 16
        static let bytea: UInt32 = 17
        static let int8: UInt32 = 20
        static let int2: UInt32 = 21
        static let text: UInt32 = 25
        static let uuid: UInt32 = 2950
    }

    static func bool(_ value: Bool) -> PeerValue { PeerValue(bytes: [value ? 1 : 0]) }
    static func int8(_ value: Int64) -> PeerValue { PeerValue(bytes: withUnsafeBytes(of: value.bigEndian) { Array($0) }) }
    static func int2(_ value: Int16) -> PeerValue { PeerValue(bytes: withUnsafeBytes(of: value.bigEndian) { Array($0) }) }
    static func text(_ value: String?) -> PeerValue { PeerValue(bytes: value.map { Array($0.utf8) }) }
    static func uuid(_ value: UUID?) -> PeerValue { PeerValue(bytes: value.map { id in withUnsafeBytes(of: id.uuid) { Array($0) } }) }
    static func bytea(_ value: [UInt8]) -> PeerValue { PeerValue(bytes: value) }
}
#endif
