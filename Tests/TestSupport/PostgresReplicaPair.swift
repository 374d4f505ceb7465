#if Postgres
import EventLog
import Foundation
import LabelStorePostgres

/// A primary and a hot standby on one machine, for the failover tests:
/// `scripts/pg-test-server start --standby [--async]` (the standby made by
/// `pg_basebackup -R` through a replication slot, streaming; synchronous
/// through `synchronous_standby_names` unless asynchronous), both on Unix
/// sockets in one temp directory (ports 5432 and 5433). Each test starts its
/// own pair: killing the primary and promoting the standby uses it up.
package final class PostgresReplicaPair: Sendable {
    /// The environment variable that says this machine runs the failover suite
    /// (`.ci/run` sets it): the PostgreSQL server binaries, `pg_basebackup`
    /// included, are installed and two servers may be started per test.
    package static let environmentKey = "LABELSTORE_TEST_FAILOVER"

    /// Whether ``environmentKey`` is set (to anything but empty or `0`).
    package static var isEnabled: Bool {
        let value = ProcessInfo.processInfo.environment[environmentKey] ?? ""
        return !value.isEmpty && value != "0"
    }

    /// The temp directory (primary in `DIR/data`, standby in `DIR/standby`, sockets in `DIR`).
    package let directory: String
    /// The primary alone.
    package let primary: String
    /// The standby alone.
    package let standby: String
    /// Both hosts, primary first, with `target_session_attrs=read-write`: what writers use.
    package let failover: String
    /// Whether commits wait for the standby (`synchronous_standby_names`).
    package let synchronous: Bool

    private init(directory: String, primary: String, standby: String, failover: String, synchronous: Bool) {
        self.directory = directory
        self.primary = primary
        self.standby = standby
        self.failover = failover
        self.synchronous = synchronous
    }

    /// Starts a new pair (fsync on when `fsync`).
    package static func start(synchronous: Bool, fsync: Bool = false) throws -> PostgresReplicaPair {
        let output = try PostgresTestServer.script(
            ["start", "--standby"] + (synchronous ? [] : ["--async"]), environment: fsync ? ["PG_FSYNC": "on"] : [:])
        var values: [String: String] = [:]
        for line in output.split(separator: "\n") where line.hasPrefix("export ") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            let name = line[line.index(line.startIndex, offsetBy: 7)..<equals]
            values[String(name)] = String(line[line.index(after: equals)...].dropFirst().dropLast())
        }
        guard let directory = values["LABELSTORE_PG_DIR"], let primary = values["LABELSTORE_TEST_POSTGRES"],
            let standby = values["LABELSTORE_TEST_POSTGRES_STANDBY"], let failover = values["LABELSTORE_TEST_POSTGRES_FAILOVER"]
        else {
            throw EventLogError(.ioError, "pg-test-server start --standby printed no connection strings: \(output)")
        }
        return PostgresReplicaPair(
            directory: directory, primary: primary, standby: standby, failover: failover, synchronous: synchronous)
    }

    /// Both hosts in the order given, with `target_session_attrs` (`any`,
    /// `prefer-standby`, …): for readers.
    package func hosts(standbyFirst: Bool, attributes: String) -> String {
        let ports = standbyFirst ? "5433,5432" : "5432,5433"
        return "host=\(directory),\(directory) port=\(ports) user=postgres dbname=postgres target_session_attrs=\(attributes)"
    }

    /// Kills the primary: `pg_ctl stop -m immediate` (no shutdown checkpoint, connections cut).
    package func killPrimary() throws { try PostgresTestServer.script(["crash", directory]) }
    /// Promotes the standby (`pg_ctl promote`), which then accepts writes alone.
    package func promote() throws { try PostgresTestServer.script(["promote", directory]) }
    /// Stops the standby's streaming (its `primary_conninfo` emptied and
    /// reloaded: the walreceiver stops) and waits until the primary sees no
    /// standby; returns the setting, for ``attachStandby(_:)``.
    package func detachStandby() throws -> String {
        let setting = try psql(standby, "SHOW primary_conninfo")
        try psql(standby, "ALTER SYSTEM SET primary_conninfo = ''")
        try psql(standby, "SELECT pg_reload_conf()")
        let deadline = ContinuousClock.now.advanced(by: .seconds(10))
        while try psql(primary, "SELECT count(*) FROM pg_stat_replication") != "0", ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.02)
        }
        return setting
    }

    /// Lets the standby stream again with `setting` (from ``detachStandby()``).
    package func attachStandby(_ setting: String) throws {
        try psql(standby, "ALTER SYSTEM SET primary_conninfo = '\(setting.replacingOccurrences(of: "'", with: "''"))'")
        try psql(standby, "SELECT pg_reload_conf()")
    }

    /// Stops both servers and deletes the directory.
    package func stop() { _ = try? PostgresTestServer.script(["stop", directory]) }

    /// Runs `sql` through `psql` on `conninfo` (one of this pair's).
    @discardableResult
    package func psql(_ conninfo: String, _ sql: String) throws -> String {
        try PostgresTestServer(conninfo: conninfo, directory: directory).psql(sql)
    }
}
#endif
