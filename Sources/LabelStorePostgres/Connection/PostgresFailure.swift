#if Postgres
/// A failure of one libpq call: the server's SQLSTATE and message, or a
/// connection that could not be made or was lost.
struct PostgresFailure: Error {
    /// The SQLSTATE the server reported (`40001`, `57014`, …), if it reported one.
    var sqlState: String?
    /// libpq's or the server's message, one line.
    var message: String
    /// Whether the connection is unusable now (never made, dropped, or reset by the server).
    var connectionLost: Bool
    /// Whether the server answered a connection attempt and refused it (a
    /// SQLSTATE outside classes `08`, `53` and `57P`: a login refused, no
    /// `CONNECT` privilege, no such database), or libpq had no password to
    /// give: trying again gets the same answer, so it is final.
    var refused = false
    /// Whether the server asked for a password and libpq had none (`PQconnectionNeedsPassword`).
    var passwordMissing = false

    /// A serialization failure or deadlock (`40001`, `40P01`): the transaction was
    /// rolled back and may be retried as it was.
    var isRetryableTransactionFailure: Bool { sqlState == "40001" || sqlState == "40P01" }
    /// The relation or schema does not exist (`42P01`, `3F000`).
    var isUndefinedTable: Bool { sqlState == "42P01" || sqlState == "3F000" }
    /// The server refused a write because it is read-only (`25006`,
    /// read_only_sql_transaction): a hot standby, or a primary with
    /// `default_transaction_read_only` on (fenced by a failover tool). Nothing of
    /// the statement took effect; a writer looks for a server that accepts writes.
    var isReadOnlyTransaction: Bool { sqlState == "25006" }
    /// A unique constraint was violated (`23505`).
    var isUniqueViolation: Bool { sqlState == "23505" }
    /// The statement was cancelled by `statement_timeout` or a cancel request (`57014`).
    var isStatementTimeout: Bool { sqlState == "57014" }
    /// A lock could not be taken within `lock_timeout` (`55P03`).
    var isLockTimeout: Bool { sqlState == "55P03" }
    /// The login was refused: bad password or no such role (class `28`: `28P01`,
    /// `28000`), no password to give, or (with no SQLSTATE: a refusal by libpq
    /// itself, e.g. of an authentication method) libpq says so.
    var isAuthenticationFailure: Bool {
        sqlState?.hasPrefix("28") == true || passwordMissing
            || (sqlState == nil && connectionLost && message.contains("authentication"))
    }
    /// The role lacks a privilege (`42501`): no `CONNECT` on the database, or
    /// no right to a schema or table.
    var isAccessDenied: Bool { sqlState == "42501" }
    /// Whether a SQLSTATE the server answered a connection attempt with is one
    /// that may pass (class `08` connection exception, `53` insufficient
    /// resources such as too many connections, `57P` shutting down or starting up).
    static func isTransient(sqlState: String) -> Bool {
        sqlState.hasPrefix("08") || sqlState.hasPrefix("53") || sqlState.hasPrefix("57P")
    }
    /// The server is shutting down or the backend was terminated (`57P01`, `57P02`, `57P03`),
    /// or the connection failed (class `08`) — unless the server refused it (``refused``).
    var isServerGone: Bool {
        !refused && (connectionLost || sqlState?.hasPrefix("57P") == true || sqlState?.hasPrefix("08") == true)
    }
}
#endif
