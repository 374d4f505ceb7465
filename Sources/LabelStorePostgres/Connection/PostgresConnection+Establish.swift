#if Postgres
import CLibPQ
import Foundation

/// Making the connection, so that a refusal by the server keeps its SQLSTATE.
///
/// libpq gives the fields of an error (`PQresultErrorField`) only for a
/// statement's result; a failed connection has only its message. So the
/// connection is made step by step (`PQconnectStart`, `PQconnectPoll`) with
/// the error verbosity set to `PQERRORS_VERBOSE` before the first step: the
/// server's error then reads `FATAL:  42501: permission denied …`, and the
/// SQLSTATE is read from there — in any language the server or libpq words
/// the message in, since libpq writes the SQLSTATE itself after
/// `SEVERITY:  `. ``PostgresFailure/refused`` is then set for any SQLSTATE
/// that is not transient, and for `PQconnectionNeedsPassword`.
///
/// libpq's own blocking connect (`PQconnectdb`) applies `connect_timeout` to
/// each host in turn; here it bounds the whole attempt (at least 2 s, as in
/// libpq; none when it is 0 or absent).
extension PostgresConnection {
    /// A connected `PGconn`, or the failure: libpq's message, and the server's
    /// SQLSTATE when it answered.
    static func establish(_ conninfo: String) throws(PostgresFailure) -> OpaquePointer {
        guard let handle = PQconnectStart(conninfo) else {
            throw PostgresFailure(sqlState: nil, message: "libpq could not allocate a connection", connectionLost: true)
        }
        PQsetErrorVerbosity(handle, PQERRORS_VERBOSE)
        let deadline = connectTimeout(handle).map { ContinuousClock.now.advanced(by: .seconds(max(2, $0))) }
        var status = PQstatus(handle) == CONNECTION_BAD ? PGRES_POLLING_FAILED : PGRES_POLLING_WRITING
        while status != PGRES_POLLING_OK && status != PGRES_POLLING_FAILED {
            let remaining = deadline.map { ContinuousClock.now.duration(to: $0) }
            if let remaining, remaining <= .zero {
                PQfinish(handle)
                throw PostgresFailure(sqlState: nil, message: "timeout expired (connect_timeout)", connectionLost: true)
            }
            let milliseconds = Int32(min(1000, remaining.map { max(1, $0.wholeMilliseconds) } ?? 1000))
            let socket = PQsocket(handle)
            // No socket yet (libpq between hosts): let libpq go on at once.
            if socket < 0 || SocketWait.ready(socket, forWriting: status == PGRES_POLLING_WRITING, milliseconds: milliseconds) {
                status = PQconnectPoll(handle)
            }
        }
        if status == PGRES_POLLING_OK && PQstatus(handle) == CONNECTION_OK {
            PQsetErrorVerbosity(handle, PQERRORS_DEFAULT)
            // The server's notices and warnings ("terminating connection due to immediate shutdown")
            // are not written to the process's standard error, as libpq's default processor does:
            // what matters reaches the caller as an error.
            PQsetNoticeProcessor(handle, { _, _ in }, nil)
            return handle
        }
        let failure = failure(
            verboseMessage: String(cString: PQerrorMessage(handle)), needsPassword: PQconnectionNeedsPassword(handle) == 1)
        PQfinish(handle)
        throw failure
    }

    /// The failure a connection attempt's verbose message describes: its last
    /// SQLSTATE (the one of the last host tried), and the message without the
    /// SQLSTATE and the server's source location.
    static func failure(verboseMessage text: String, needsPassword: Bool) -> PostgresFailure {
        var sqlState: String?
        var lines: [String] = []
        for line in text.split(whereSeparator: \.isNewline) {
            if line.hasPrefix("LOCATION:") { continue }
            var line = String(line)
            // `…failed: FATAL:  42501: permission denied…`: libpq writes the severity and two spaces, then the code.
            if let match = line.firstMatch(of: #/:  ([0-9A-Z]{5}): /#) {
                sqlState = String(match.1)
                line.replaceSubrange(match.range, with: ":  ")
            }
            lines.append(line)
        }
        var failure = PostgresFailure(sqlState: sqlState, message: oneLine(lines.joined(separator: "\n")), connectionLost: true)
        failure.passwordMissing = needsPassword
        failure.refused = needsPassword || sqlState.map { !PostgresFailure.isTransient(sqlState: $0) } == true
        return failure
    }

    /// The `connect_timeout` libpq read for `handle`, in seconds (`nil`: none).
    private static func connectTimeout(_ handle: OpaquePointer) -> Int64? {
        guard let options = PQconninfo(handle) else { return nil }
        defer { PQconninfoFree(options) }
        var option = options
        while let keyword = option.pointee.keyword {
            if String(cString: keyword) == "connect_timeout", let value = option.pointee.val {
                let seconds = Int64(String(cString: value).trimmingCharacters(in: .whitespaces)) ?? 0
                return seconds > 0 ? seconds : nil
            }
            option += 1
        }
        return nil
    }
}
#endif
