#if Postgres
import EventLog

/// How a failure of the server or the connection becomes an `EventLogError`
/// naming the location (never its password), what was being done, and the SQLSTATE.
extension PostgresEventLog {
    static func mapped(_ failure: PostgresFailure, location: PostgresLocation, doing what: String) -> EventLogError {
        let place = location.description
        let state = failure.sqlState.map { " (SQLSTATE \($0))" } ?? ""
        if failure.isAuthenticationFailure {
            return EventLogError(
                .authenticationFailed, "\(place): the server refused the login: \(failure.message)\(state)", path: place)
        }
        if failure.isAccessDenied {
            return EventLogError(.accessDenied, "\(place): could not \(what): access denied: \(failure.message)\(state)", path: place)
        }
        if failure.isStatementTimeout {
            return EventLogError(.timedOut, "\(place): could not \(what): the statement timed out\(state)", path: place)
        }
        if failure.isLockTimeout {
            return EventLogError(
                .timedOut, "\(place): could not \(what): another writer held the list's lock past the lock timeout\(state)", path: place)
        }
        if failure.isReadOnlyTransaction {
            return EventLogError(
                .readOnlyServer,
                "\(place): could not \(what): no server that accepts writes was found: the one reached is read-only (a standby, or default_transaction_read_only is on); nothing was written: \(failure.message)\(state)",
                path: place)
        }
        if failure.isServerGone {
            return EventLogError(
                .connectionFailed,
                "\(place): could not \(what): the server cannot be reached or dropped the connection: \(failure.message)\(state)",
                path: place)
        }
        if failure.isUndefinedTable {
            return EventLogError(
                .schemaMissing,
                "\(place): could not \(what): the label store schema '\(location.schema)' is gone: \(failure.message)\(state)",
                path: place)
        }
        return EventLogError(.serverError, "\(place): could not \(what): \(failure.message)\(state)", path: place)
    }

    static func mapped(_ failure: PostgresStepFailure, location: PostgresLocation, doing what: String) -> EventLogError {
        switch failure {
        case .server(let failure): mapped(failure, location: location, doing: what)
        case .log(let error): error
        }
    }
}
#endif
