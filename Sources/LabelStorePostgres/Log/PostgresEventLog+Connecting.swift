#if Postgres
import EventLog
import Foundation

/// Connecting, reconnecting, and opening the list: checking (or creating)
/// the schema and reading (or creating) the list's head row.
extension PostgresEventLog {
    /// What opening found: the list's head row and the schema's version.
    struct Head {
        var logID: UUID
        var lastSeq: UInt64
        var lastCRC: UInt32
        var version: Int64
        /// Where the list starts (version 4: after its base, if its first records were cut off).
        var base: ListBase
    }

    /// A new connection to `location`, with the session settings of `options`.
    ///
    /// With `writable`, only a server that accepts writes is taken: libpq's
    /// `target_session_attrs=read-write` replaces whatever the location sets
    /// (`standby`, `prefer-standby`, …), so of a multi-host location
    /// (`host=a,b`) the first host that is a primary is used, and a location
    /// whose only hosts are standbys fails as unreachable (and is tried again
    /// within the reconnect window: a standby being promoted becomes one).
    static func connect(_ location: PostgresLocation, _ options: Options, writable: Bool = false) throws(EventLogError)
        -> PostgresConnection
    {
        let connection: PostgresConnection
        do {
            connection = try PostgresConnection(conninfo: conninfo(location, writable: writable))
            connection.connectedAsWritable = writable
        } catch {
            throw mapped(error, location: location, doing: "connect")
        }
        do {
            // Errors and notices in English words are not needed; the SQLSTATE is what is read.
            if let timeout = options.statementTimeout {
                let ms = max(1, timeout.wholeMilliseconds)
                try connection.execute("SET statement_timeout = \(ms)")
            }
            // The protocol's transactions run at READ COMMITTED, whatever the server, role or
            // connection string sets as the default (a `serializable` default made every append
            // fail with 40001): its statements check the row before and the list's end, and its
            // retries and conflict checks are written for that isolation.
            // The server's start time names it (with a backend's pid) across restarts and failovers;
            // an engine without the function (42883: CockroachDB) leaves it unknown.
            do {
                let setup = try connection.execute(
                    """
                    SELECT set_config('client_min_messages', 'warning', false), pg_postmaster_start_time()::text,
                           set_config('default_transaction_isolation', 'read committed', false)
                    """)
                connection.serverStartedAt = setup.text(0, 1) ?? ""
            } catch  where error.sqlState == "42883" {
                try connection.execute("SET client_min_messages = warning")
                try connection.execute("SET default_transaction_isolation = 'read committed'")
            }
        } catch {
            throw mapped(error, location: location, doing: "configure the session")
        }
        return connection
    }

    /// Connects and prepares the list for opening, retrying a server that
    /// cannot be reached (`connectionFailed`) within
    /// ``Options-swift.struct/reconnectTimeout``, as a reconnect does: the
    /// first failure is reported through ``Options-swift.struct/onConnectionEvent``
    /// as ``ConnectionEvent/lost(_:)`` and a success after it as
    /// ``ConnectionEvent/restored(after:)``. Any other failure is thrown at once.
    static func openSession(
        _ location: PostgresLocation, schema: PostgresSchema, options: Options
    ) throws(EventLogError) -> (PostgresConnection, Head) {
        let deadline = ContinuousClock.now.advanced(by: options.reconnectTimeout)
        var delay = Duration.milliseconds(20)
        var lostSince: ContinuousClock.Instant?
        while true {
            do throws(EventLogError) {
                let connection = try connect(location, options)
                do throws(EventLogError) {
                    let head = try prepare(connection, location: location, schema: schema, options: options)
                    if let lostSince { options.onConnectionEvent?(.restored(after: ContinuousClock.now - lostSince)) }
                    return (connection, head)
                } catch {
                    connection.close()
                    throw error
                }
            } catch {
                guard error.code == .connectionFailed, ContinuousClock.now < deadline else { throw error }
                if lostSince == nil {
                    lostSince = ContinuousClock.now
                    options.onConnectionEvent?(.lost(error))
                }
            }
            Thread.sleep(forTimeInterval: delay.timeInterval * Double.random(in: 0.5...1.0))
            delay = min(delay * 2, .seconds(1))
        }
    }

    /// The connection string libpq gets: the location's, with a 10 s connect timeout
    /// unless it sets one, and the application name `labelstore` unless it sets one;
    /// with `writable`, `target_session_attrs=read-write` last (libpq takes the
    /// last value of a parameter given twice, in a URL's query as in `key=value` pairs).
    static func conninfo(_ location: PostgresLocation, writable: Bool = false) -> String {
        let text = location.connection
        var extra: [(String, String)] = []
        if !text.contains("connect_timeout") { extra.append(("connect_timeout", "10")) }
        if !text.contains("application_name") { extra.append(("application_name", "labelstore")) }
        if writable { extra.append(("target_session_attrs", "read-write")) }
        if extra.isEmpty { return text }
        if PostgresLocation.isPostgresURL(text) {
            let query = extra.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
            return text + (text.contains("?") ? "&" : "?") + query
        }
        return text + " " + extra.map { "\($0.0)=\($0.1)" }.joined(separator: " ")
    }

    /// Checks or creates the schema, then reads or creates the list.
    static func prepare(
        _ connection: PostgresConnection, location: PostgresLocation, schema: PostgresSchema, options: Options
    ) throws(EventLogError) -> Head {
        do throws(PostgresStepFailure) {
            var state = try schema.inspect(connection, describe: location.description)
            if state == .missing {
                guard options.createIfMissing else {
                    throw PostgresStepFailure.log(
                        EventLogError(
                            .schemaMissing,
                            "\(location): the database has no label store schema '\(schema.name)' (create it with createIfMissing, or 'labelreplay init \(location)')",
                            path: location.description))
                }
                try createSchema(connection, schema)
                state = try schema.inspect(connection, describe: location.description)
            }
            guard case .present(let version) = state else {
                throw PostgresStepFailure.log(
                    EventLogError(.schemaMissing, "\(location): the schema '\(schema.name)' vanished while it was created"))
            }
            let statements = PostgresStatements(schema: schema.name, version: version)
            func head(_ result: PostgresResult) throws(PostgresStepFailure) -> Head? {
                guard result.rowCount == 1, let id = result.uuid(0, 0), let last = result.integer(0, 1), let crc = result.integer(0, 2)
                else { return nil }
                let base = try ListBase(row: result, column: 3, location: location)
                return Head(
                    logID: id, lastSeq: UInt64(max(0, last)), lastCRC: UInt32(truncatingIfNeeded: crc), version: version, base: base)
            }
            let found = try run { () throws(PostgresFailure) in
                try connection.execute(statements.openList, [.text(location.list)])
            }
            if let found = try head(found) { return found }
            if version < PostgresSchema.version {
                throw PostgresStepFailure.log(Self.readOnly(location, version: version, doing: "create the list"))
            }
            guard options.createIfMissing else {
                throw PostgresStepFailure.log(
                    EventLogError(
                        .listNotFound,
                        "\(location): there is no list '\(location.list)' in schema '\(schema.name)' (create it with createIfMissing, or 'labelreplay init \(location)')",
                        path: location.description))
            }
            _ = try run { () throws(PostgresFailure) in
                if let based = options.creationBase {
                    _ = try connection.execute(
                        statements.createBasedList,
                        [
                            .text(location.list), .uuid(based.logID.uuid), .int8(Int64(based.base.lastCutSeq)),
                            .int8(Int64(based.chainValue)),
                            .bytes(based.base.encoded())
                        ])
                } else {
                    _ = try connection.execute(statements.createList, [.text(location.list), .uuid(UUID())])
                }
            }
            let created = try run { () throws(PostgresFailure) in
                try connection.execute(statements.openList, [.text(location.list)])
            }
            guard let created = try head(created) else {
                throw PostgresStepFailure.log(
                    EventLogError(
                        .serverError, "\(location): the list '\(location.list)' was created but cannot be read back",
                        path: location.description))
            }
            return created
        } catch {
            throw mapped(error, location: location, doing: "open the list")
        }
    }

    /// The refusal of a write to a schema at an older `version` (read only until upgraded).
    static func readOnly(_ location: PostgresLocation, version: Int64, doing what: String) -> EventLogError {
        EventLogError(
            .unsupportedVersion,
            "\(location): cannot \(what): the schema '\(location.schema)' is at version \(version), which this build reads but does not write (\(readOnlyReason(version))); migrate it in place with labelreplay upgrade (docs/POSTGRES.md, \"Upgrading\")",
            path: location.description)
    }

    /// Why a schema at `version` cannot take this build's writes: what the next version added.
    private static func readOnlyReason(_ version: Int64) -> String {
        switch version {
        case ..<2: "its records have no checksums"
        case 2: "its appends keep a row per batch in a table of their own"
        case 3: "its lists have no base columns, which archiving writes"
        case 4: "its readers take the head row for the list's end, which this build's appends move only now and then"
        case 5: "its checkpoints have no history tree frontiers, which syncing devices prove"
        case 6: "its cuts keep no batch ids of the rows they remove, which syncing devices settle their pushes by"
        default: "its checkpoints cannot be chains of deltas, which this build's writers keep and thin whole"
        }
    }

    /// Creates the schema in one transaction. Another process creating it at the
    /// same moment makes this one fail on a duplicate; the schema is then checked again.
    private static func createSchema(_ connection: PostgresConnection, _ schema: PostgresSchema) throws(PostgresStepFailure) {
        do {
            try connection.execute("BEGIN")
            for statement in schema.creation { try connection.execute(statement) }
            try connection.execute("COMMIT")
        } catch {
            _ = try? connection.execute("ROLLBACK")
            // 23505 / 42P06 / 42P07: someone else created it first.
            if error.isUniqueViolation || error.sqlState == "42P06" || error.sqlState == "42P07" { return }
            throw .server(error)
        }
    }

    /// Runs `body` on the session connection (or the one in `slot`), reconnecting first if it was lost.
    /// With `retrying`, a lost connection is reconnected and `body` run again
    /// until ``Options-swift.struct/reconnectTimeout`` passes (only for steps
    /// that may run twice: reads, and appends through their batch check).
    ///
    /// With `writing`, the step needs a server that accepts writes (the
    /// primary): a connection to a server that says it is read-only (a standby
    /// the location led to, or a primary turned read-only) is dropped first,
    /// the new one is made with `target_session_attrs=read-write`, and a step
    /// the server refused as read-only (SQLSTATE `25006`: nothing of it took
    /// effect) is run again on a new connection, within the same window — so
    /// after a failover a writer finds the promoted standby.
    func withSession<R>(
        on slot: Locked<PostgresConnection?>? = nil, retrying: Bool, writing: Bool = false, doing what: String = "read the list",
        _ body: (PostgresConnection) throws(PostgresStepFailure) -> R,
        retryIf: (PostgresStepFailure) -> Bool = { _ in false }
    ) throws(EventLogError) -> R {
        let deadline = ContinuousClock.now.advanced(by: options.reconnectTimeout)
        var delay = Duration.milliseconds(20)
        // A write that finds only read-only servers: what the location's server said (asked once).
        var readOnly: ReadOnlyServer?
        var askedReadOnly = false
        func checkReadOnly() throws(EventLogError) {
            if !askedReadOnly {
                askedReadOnly = true
                readOnly = Self.readOnlyServer(location, options)
            }
            guard let readOnly else { return }
            if readOnly.final { throw readOnlyError(readOnly, doing: what, waited: nil) }
            if ContinuousClock.now >= deadline { throw readOnlyError(readOnly, doing: what, waited: options.reconnectTimeout) }
        }
        while true {
            let outcome = try (slot ?? session).withLock { (connection) throws(EventLogError) -> Result<R, PostgresStepFailure>? in
                if closed.load(ordering: .acquiring) {
                    throw EventLogError(.closed, "\(location): the log was closed", path: location.description)
                }
                if connection == nil || connection?.isUsable == false || (writing && connection?.isReadOnlyServer == true) {
                    if connection != nil { statistics.reconnects.add(1, ordering: .relaxed) }
                    connection?.close()
                    connection = nil
                    do throws(EventLogError) {
                        connection = try Self.connect(location, options, writable: writing)
                    } catch {
                        // No writable server among those reached: read-only ones are named, and the
                        // wait ends at once when it cannot help.
                        if writing, error.code == .connectionFailed { try checkReadOnly() }
                        if error.code == .connectionFailed {
                            noteUnreachable(readOnly.map { readOnlyError($0, doing: what, waited: nil) } ?? error)
                        }
                        if !retrying || error.code != .connectionFailed || ContinuousClock.now >= deadline { throw error }
                        return nil
                    }
                    noteReachable()
                }
                do throws(PostgresStepFailure) {
                    return .success(try body(connection!))
                } catch {
                    if writing, case .server(let failure) = error, failure.isReadOnlyTransaction {
                        // Not this server: the next turn connects to one that accepts writes.
                        statistics.readOnlyRefusals.add(1, ordering: .relaxed)
                        connection?.close()
                        connection = nil
                    }
                    return .failure(error)
                }
            }
            switch outcome {
            case .success(let value)?:
                return value
            case .failure(.server(let failure))? where failure.isServerGone && retrying && ContinuousClock.now < deadline:
                break  // reconnect and run again
            case .failure(.server(let failure))? where failure.isReadOnlyTransaction && writing:
                // A server that accepts writes is looked for, within the window, unless waiting cannot help.
                try checkReadOnly()
                if ContinuousClock.now >= deadline { throw Self.mapped(failure, location: location, doing: what) }
            case .failure(let failure)? where retryIf(failure):
                break
            case .failure(let failure)?:
                throw Self.mapped(failure, location: location, doing: what)
            case nil:
                break
            }
            Thread.sleep(forTimeInterval: delay.timeInterval * Double.random(in: 0.5...1.0))
            delay = min(delay * 2, .seconds(1))
        }
    }
}
#endif
