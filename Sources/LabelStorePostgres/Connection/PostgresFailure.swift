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

    /// A serialization failure or deadlock (`40001`, `40P01`): the transaction was
    /// rolled back and may be retried as it was.
    var isRetryableTransactionFailure: Bool { sqlState == "40001" || sqlState == "40P01" }
    /// The relation or schema does not exist (`42P01`, `3F000`).
    var isUndefinedTable: Bool { sqlState == "42P01" || sqlState == "3F000" }
    /// A unique constraint was violated (`23505`).
    var isUniqueViolation: Bool { sqlState == "23505" }
    /// The statement was cancelled by `statement_timeout` or a cancel request (`57014`).
    var isStatementTimeout: Bool { sqlState == "57014" }
    /// A lock could not be taken within `lock_timeout` (`55P03`).
    var isLockTimeout: Bool { sqlState == "55P03" }
    /// The login was refused: bad password or no such role (`28P01`, `28000`), or libpq says so.
    var isAuthenticationFailure: Bool {
        sqlState == "28P01" || sqlState == "28000" || message.contains("password authentication failed")
            || message.contains("authentication failed") || message.contains("role \"")
    }
    /// The server is shutting down or the backend was terminated (`57P01`, `57P02`, `57P03`),
    /// or the connection failed (class `08`).
    var isServerGone: Bool {
        connectionLost || sqlState?.hasPrefix("57P") == true || sqlState?.hasPrefix("08") == true
    }
}
#endif
