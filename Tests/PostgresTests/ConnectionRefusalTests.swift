#if Postgres
import EventLog
import Foundation
import LabelProjection
import LabelStorePostgres
import LabelStoreTestSupport
import Testing

/// A server that answers a connection attempt with a refusal (no `CONNECT`
/// privilege, a refused login, a missing database) is final at once, with the
/// server's reason; only an unreachable server is `connectionFailed`.
@Suite struct ConnectionRefusalTests {
    let server = PostgresTestServer.shared

    /// A fresh name for a role or database of this test.
    func fresh(_ prefix: String) -> String { "\(prefix)_\(UUID().uuidString.prefix(8).lowercased())" }

    /// A database whose `CONNECT` privilege is revoked from PUBLIC, and a login
    /// role granted everything on it (so it can create the store's schema).
    func privateDatabase() throws -> (database: String, role: String) {
        let database = fresh("refusal_db")
        let role = fresh("refusal_role")
        try server.psql("CREATE DATABASE \(database)")
        try server.psql("REVOKE CONNECT ON DATABASE \(database) FROM PUBLIC")
        try server.psql("CREATE ROLE \(role) LOGIN")
        try server.psql("GRANT ALL ON DATABASE \(database) TO \(role)")
        return (database, role)
    }

    @Test func aRoleWithoutConnectPrivilegeIsAccessDeniedWithTheServersReason() throws {
        let (database, _) = try privateDatabase()
        let stranger = fresh("refusal_stranger")
        try server.psql("CREATE ROLE \(stranger) LOGIN")
        let location = try PostgresLocation(connection: server.conninfo + " user=\(stranger) dbname=\(database)", list: "x")
        let error = #expect(throws: EventLogError.self) { try PostgresEventLog(location: location, options: .init(createIfMissing: true)) }
        #expect(error?.code == .accessDenied, "\(String(describing: error))")
        #expect(error?.message.contains("CONNECT privilege") == true, "\(String(describing: error))")
        #expect(error?.message.contains("SQLSTATE 42501") == true, "\(String(describing: error))")
        #expect(error.map { StoreError(.storage($0), "").kind } == .accessDenied)
    }

    @Test func aPrivilegeRevokedWhileOpenIsAccessDeniedOnReconnectNotRetried() throws {
        let (database, role) = try privateDatabase()
        let location = try PostgresLocation(connection: server.conninfo + " user=\(role) dbname=\(database)", list: "x")
        let log = try PostgresEventLog(
            location: location, options: .init(createIfMissing: true, reconnectTimeout: .seconds(20)))
        defer { log.close() }
        #expect(try log.refreshLastSeq() == 0)
        try server.psql("REVOKE CONNECT ON DATABASE \(database) FROM \(role)")
        try server.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '\(role)'")
        let error = #expect(throws: EventLogError.self) { try log.refreshLastSeq() }
        #expect(error?.code == .accessDenied, "\(String(describing: error))")
        #expect(error?.message.contains("CONNECT privilege") == true, "\(String(describing: error))")
    }

    @Test func aMissingDatabaseIsAServerErrorNotAnUnreachableServer() throws {
        let location = try PostgresLocation(connection: server.conninfo + " dbname=\(fresh("no_such_db"))", list: "x")
        let error = #expect(throws: EventLogError.self) { try PostgresEventLog(location: location) }
        #expect(error?.code == .serverError, "\(String(describing: error))")
        #expect(error?.message.contains("SQLSTATE 3D000") == true, "\(String(describing: error))")
        #expect(error?.message.contains("does not exist") == true, "\(String(describing: error))")
    }

    @Test func anUnknownRoleIsAuthenticationFailedBySQLState() throws {
        let location = try PostgresLocation(connection: server.conninfo + " user=\(fresh("nobody"))", list: "x")
        let error = #expect(throws: EventLogError.self) { try PostgresEventLog(location: location) }
        #expect(error?.code == .authenticationFailed, "\(String(describing: error))")
        #expect(error?.message.contains("SQLSTATE 28000") == true, "\(String(describing: error))")
    }

    /// A role that must log in with a password (a `pg_hba.conf` line for it alone, put first).
    func passwordRole() throws -> String? {
        guard let directory = server.directory else { return nil }
        let role = fresh("refusal_pw")
        try server.psql("CREATE ROLE \(role) LOGIN PASSWORD 'right-one'")
        let hba = directory + "/data/pg_hba.conf"
        let text = try String(contentsOfFile: hba, encoding: .utf8)
        try ("local all \(role) scram-sha-256\n" + text).write(toFile: hba, atomically: false, encoding: .utf8)
        try server.psql("SELECT pg_reload_conf()")
        // The reload is asynchronous: wait until a wrong password no longer logs in (under
        // trust it does, and finds no schema).
        let probe = try PostgresLocation(connection: server.conninfo + " user=\(role) password=probe", list: "x")
        for _ in 0..<500 {
            do {
                try PostgresEventLog(location: probe).close()
            } catch  where error.code != .schemaMissing && error.code != .listNotFound {
                return role
            } catch {}
            usleep(20_000)
        }
        return nil
    }

    @Test func aWrongOrMissingPasswordIsAuthenticationFailed() throws {
        guard let role = try passwordRole() else { return }
        let wrong = try PostgresLocation(connection: server.conninfo + " user=\(role) password=wrong-one", list: "x")
        let refused = #expect(throws: EventLogError.self) { try PostgresEventLog(location: wrong) }
        #expect(refused?.code == .authenticationFailed, "\(String(describing: refused))")
        #expect(refused?.message.contains("SQLSTATE 28P01") == true, "\(String(describing: refused))")
        #expect(refused?.description.contains("wrong-one") == false)
        let none = try PostgresLocation(connection: server.conninfo + " user=\(role) passfile=/nonexistent", list: "x")
        let missing = #expect(throws: EventLogError.self) { try PostgresEventLog(location: none) }
        #expect(missing?.code == .authenticationFailed, "\(String(describing: missing))")
        let right = try PostgresLocation(connection: server.conninfo + " user=\(role) password=right-one", list: "x")
        // The role may not create the schema, but the login itself succeeds.
        let opened = Result { () throws(EventLogError) in try PostgresEventLog(location: right, options: .init(createIfMissing: true)) }
        if case .failure(let error) = opened { #expect(error.code != .authenticationFailed, "\(error)") }
    }
}
#endif
