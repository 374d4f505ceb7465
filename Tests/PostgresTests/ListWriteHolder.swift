#if Postgres
import Foundation
import LabelStorePostgres
import LabelStoreTestSupport

/// Another session that holds a list against every writer until it is
/// ended: it takes the list's write lock (what pessimistic appends wait for)
/// and inserts, uncommitted, a row at the list's next seq (what an
/// optimistic append's insert waits for, on the records' key).
enum ListWriteHolder {
    /// The first key of the list's advisory lock, as the backend takes it (docs/POSTGRES.md, "Appending").
    static let lockClass = 0x4C42_5354

    /// Starts the holding session for `location` on `server` and returns its
    /// application name once it holds the list (end it with `pg_terminate_backend`).
    static func hold(_ location: PostgresLocation, on server: PostgresTestServer, name: String) throws -> String {
        let list = location.list
        Thread {
            _ = try? server.psql(
                """
                SET application_name = '\(name)'; BEGIN;
                SELECT pg_advisory_xact_lock(\(lockClass), hashtext('\(location.schema).\(list)'));
                INSERT INTO \(location.schema).records (list, seq, time_ms, kind, crc, payload)
                    SELECT '\(list)', coalesce(max(seq), 0) + 1, 0, 3, 0, '\\x00'::bytea FROM \(location.schema).records WHERE list = '\(list)';
                SELECT pg_sleep(600); COMMIT
                """)
        }.start()
        // Sleeping, so the lock is taken and the row inserted: the whole script is one query, whose text names
        // pg_sleep from its start, so only the wait event says the sleep has begun.
        let holding = "SELECT count(*) FROM pg_stat_activity WHERE application_name = '\(name)' AND wait_event = 'PgSleep'"
        while try server.psql(holding).trimmingCharacters(in: .whitespacesAndNewlines) != "1" { usleep(20_000) }
        return name
    }
}
#endif
