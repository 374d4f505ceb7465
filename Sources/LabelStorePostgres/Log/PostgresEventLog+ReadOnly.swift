#if Postgres
import EventLog

/// A write that finds no server accepting writes (docs/POSTGRES.md,
/// "Replicas and failover"): `readOnlyServer`, its own code, at once when
/// waiting cannot help, else after the reconnect window in which a failover
/// may make a server writable.
extension PostgresEventLog {
    /// What a location's server says about writes, when it accepts none.
    struct ReadOnlyServer {
        /// Waiting cannot help: the connection string makes every session
        /// read-only, or its one host is a standby. (A primary fenced by its
        /// configuration, or one of several hosts, may become writable in a failover.)
        let final: Bool
        /// What the server said, for the message: "a standby (in recovery)", …
        let what: String
    }

    /// Connects to `location` without asking for a writable server and asks
    /// whether it accepts writes; `nil` when it does, or cannot be reached
    /// (the failure is then not a read-only server).
    static func readOnlyServer(_ location: PostgresLocation, _ options: Options) -> ReadOnlyServer? {
        guard let connection = try? PostgresConnection(conninfo: conninfo(location, writable: false)) else { return nil }
        defer { connection.close() }
        guard
            let result = try? connection.execute(
                """
                SELECT pg_is_in_recovery()::text, current_setting('transaction_read_only'),
                       (SELECT source FROM pg_settings WHERE name = 'default_transaction_read_only')
                """),
            result.rowCount == 1
        else { return nil }
        let inRecovery = result.text(0, 0) == "true"
        let readOnly = result.text(0, 1) == "on"
        guard inRecovery || readOnly else { return nil }
        // `client`: the connection string's options (or PGOPTIONS) ask for it; waiting changes nothing.
        let askedBySession = !inRecovery && ["client", "session"].contains(result.text(0, 2) ?? "")
        let hosts = (PostgresLocation.options(location.connection) ?? []).first { $0.keyword == "host" || $0.keyword == "hostaddr" }
        let oneHost = !(hosts?.value.contains(",") ?? false)
        let what =
            inRecovery
            ? "a standby (in recovery)"
            : askedBySession
                ? "read-only for this session: the connection string sets default_transaction_read_only"
                : "a primary whose configuration sets default_transaction_read_only (fenced)"
        return ReadOnlyServer(final: askedBySession || (inRecovery && oneHost), what: what)
    }

    /// The error for a write that found only `server`, read-only (after `waited`, when it waited).
    func readOnlyError(_ server: ReadOnlyServer, doing what: String, waited: Duration?) -> EventLogError {
        let after = waited.map { " within the reconnect window (\(Int($0.timeInterval)) s)" } ?? ""
        return EventLogError(
            .readOnlyServer,
            "\(location): could not \(what): no server that accepts writes was found\(after): the one reached is \(server.what); nothing was written",
            path: location.description)
    }
}
#endif
