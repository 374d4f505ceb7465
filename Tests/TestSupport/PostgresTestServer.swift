#if Postgres
import EventLog
import Foundation
import LabelStorePostgres

/// A real PostgreSQL server for the tests: the one `LABELSTORE_TEST_POSTGRES`
/// names (with `LABELSTORE_PG_DIR` when it was started by
/// `scripts/pg-test-server`, as `.ci/run` does), or else one started here by
/// that script and stopped when the test process exits. Fault tests start a
/// private server each (``startPrivate()``), since they stop and restart it.
package final class PostgresTestServer: Sendable {
    /// The libpq connection string (Unix socket, trust authentication, user `postgres`).
    package let conninfo: String
    /// The server's temp directory (data in `DIR/data`), when known.
    package let directory: String?

    package init(conninfo: String, directory: String?) {
        self.conninfo = conninfo
        self.directory = directory
    }

    /// The shared server (from the environment, or started on first use).
    package static let shared: PostgresTestServer = {
        let environment = ProcessInfo.processInfo.environment
        if let conninfo = environment["LABELSTORE_TEST_POSTGRES"], !conninfo.isEmpty {
            return PostgresTestServer(conninfo: conninfo, directory: environment["LABELSTORE_PG_DIR"])
        }
        do {
            let server = try startPrivate()
            startedHere = server.directory
            atexit { if let directory = startedHere { _ = try? PostgresTestServer.script(["stop", directory]) } }
            return server
        } catch {
            fatalError(
                "no PostgreSQL server for the tests: set LABELSTORE_TEST_POSTGRES, or install Debian's postgresql package (\(error))")
        }
    }()
    nonisolated(unsafe) private static var startedHere: String?

    /// Starts a new throwaway server with `scripts/pg-test-server start`.
    package static func startPrivate(fsync: Bool = false) throws -> PostgresTestServer {
        let output = try script(["start"], environment: fsync ? ["PG_FSYNC": "on"] : [:])
        var values: [String: String] = [:]
        for line in output.split(separator: "\n") {
            // export NAME='value'
            guard let equals = line.firstIndex(of: "=") else { continue }
            let name = line[line.index(line.startIndex, offsetBy: 7)..<equals]
            values[String(name)] = String(line[line.index(after: equals)...].dropFirst().dropLast())
        }
        guard let conninfo = values["LABELSTORE_TEST_POSTGRES"], let directory = values["LABELSTORE_PG_DIR"] else {
            throw EventLogError(.ioError, "pg-test-server start printed no connection string: \(output)")
        }
        return PostgresTestServer(conninfo: conninfo, directory: directory)
    }

    /// `pg_ctl stop -m immediate`: the server dies as in a crash.
    package func crash() throws { _ = try Self.script(["crash", try requireDirectory()]) }
    /// Starts the server again after ``crash()``.
    package func restart() throws { _ = try Self.script(["restart", try requireDirectory()]) }
    /// Stops the server and deletes its directory.
    package func stop() { if let directory { _ = try? Self.script(["stop", directory]) } }

    /// A location on this server: a fresh list (and schema, if given).
    package func location(list: String = "t-\(UUID().uuidString.prefix(8))", schema: String = PostgresLocation.defaultSchema)
        -> PostgresLocation
    {
        try! PostgresLocation(connection: conninfo, list: list, schema: schema)
    }

    /// Opens a log on this server (creating the schema and list).
    package func open(_ location: PostgresLocation, notify: Bool = true, create: Bool = true, reconnect: Duration = .seconds(30)) throws
        -> PostgresEventLog
    {
        try PostgresEventLog(
            location: location,
            options: .init(createIfMissing: create, notify: notify, pollInterval: .milliseconds(50), reconnectTimeout: reconnect))
    }

    /// Runs `sql` through `psql` (for tests that damage rows or inspect the server).
    @discardableResult
    package func psql(_ sql: String) throws -> String {
        let psql =
            ["/usr/bin/psql", "/usr/local/bin/psql", "/opt/homebrew/bin/psql"].first { FileManager.default.isExecutableFile(atPath: $0) }
            ?? "psql"
        let result = try runCommand(psql, ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", conninfo, "-c", sql])
        guard result.status == 0 else { throw EventLogError(.ioError, "psql failed: \(result.errors)") }
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func requireDirectory() throws -> String {
        guard let directory else { throw EventLogError(.ioError, "this server's directory is unknown (set LABELSTORE_PG_DIR)") }
        return directory
    }

    /// The repository's `scripts/pg-test-server`.
    static var scriptPath: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/pg-test-server").path
    }

    @discardableResult
    static func script(_ arguments: [String], environment: [String: String] = [:]) throws -> String {
        let result = try runCommand(
            scriptPath, arguments, environment: ProcessInfo.processInfo.environment.merging(environment) { $1 })
        guard result.status == 0 else {
            throw EventLogError(.ioError, "pg-test-server \(arguments.joined(separator: " ")) failed: \(result.errors)")
        }
        return result.output
    }
}
#endif
