#if Postgres
import EventLog
import Foundation
import LabelStorePostgres
import LabelStoreTestSupport
import Testing

/// Adaptive locking (issue 29, item 1): a log whose optimistic appends keep
/// losing the race prefers the head row lock, and goes back once nobody else
/// appends between its turns; and where an append's batch id is kept.
@Suite struct AdaptiveLockingTests {
    let server = PostgresTestServer.shared

    func entry(_ i: Int) -> LogEntry { LogEntry(.added(id: testID(i), title: "label \(i)", isEnabled: true, index: 0)) }

    /// Makes `log` lose the race twice in a row: `other` appends, then `log`
    /// appends expecting the head it knew before.
    func loseTwice(_ log: PostgresEventLog, to other: PostgresEventLog) throws {
        for round in 0..<2 {
            let stale = try log.refreshLastSeq()
            try other.append([entry(100 + round)])
            #expect(throws: EventLogError.self) { try log.append([entry(200 + round)], expectedLastSeq: stale) }
        }
    }

    @Test func twoConflictsInARowTurnALogToTheLockAndQuietLockedTurnsTurnItBack() throws {
        let location = server.location()
        let log = try server.open(location)
        let other = try server.open(location)
        defer {
            log.close()
            other.close()
        }
        #expect(!log.prefersExclusiveAppends)
        try loseTwice(log, to: other)
        #expect(log.prefersExclusiveAppends, "two conflicts in a row turn the log to the head row lock")
        #expect(log.statistics.switchesToLocking.load(ordering: .relaxed) == 1)
        // Nobody else appends: the first turn finds the head where `other` left it, the next four where this log did.
        for i in 0..<PostgresEventLogTestLimits.quietTurns + 1 {
            #expect(log.prefersExclusiveAppends, "still locking before turn \(i)")
            _ = try log.appendExclusively { _ in [entry(300 + i)] }
        }
        #expect(!log.prefersExclusiveAppends, "quiet locked turns turn it back to optimistic appends")
        #expect(log.statistics.switchesToOptimistic.load(ordering: .relaxed) == 1)
        #expect(try log.refreshLastSeq() == 2 + UInt64(PostgresEventLogTestLimits.quietTurns + 1))
    }

    @Test func lockedTurnsInterleavedWithAnotherWriterKeepTheLock() throws {
        let location = server.location()
        let log = try server.open(location)
        let other = try server.open(location)
        defer {
            log.close()
            other.close()
        }
        try loseTwice(log, to: other)
        for i in 0..<2 * PostgresEventLogTestLimits.quietTurns {
            _ = try log.appendExclusively { _ in [entry(300 + i)] }
            try other.append([entry(400 + i)])
        }
        #expect(log.prefersExclusiveAppends, "another writer between every turn: the contention goes on")
        #expect(log.statistics.switchesToOptimistic.load(ordering: .relaxed) == 0)
    }

    @Test func withoutAdaptiveLockingConflictsNeverSwitchAndPessimisticAlwaysLocks() throws {
        let location = server.location()
        try server.open(location).close()
        let fixed = try PostgresEventLog(location: location, options: .init(adaptiveLocking: false))
        let pessimistic = try PostgresEventLog(location: location, options: .init(pessimistic: true))
        let other = try server.open(location, create: false)
        defer {
            fixed.close()
            pessimistic.close()
            other.close()
        }
        try loseTwice(fixed, to: other)
        #expect(!fixed.prefersExclusiveAppends && fixed.statistics.switchesToLocking.load(ordering: .relaxed) == 0)
        for i in 0..<PostgresEventLogTestLimits.quietTurns + 1 { _ = try pessimistic.appendExclusively { _ in [entry(500 + i)] } }
        #expect(pessimistic.prefersExclusiveAppends && pessimistic.statistics.switchesToOptimistic.load(ordering: .relaxed) == 0)
    }

    @Test func anAppendsBatchIDIsOnItsFirstRecordOnly() throws {
        let location = server.location()
        let log = try server.open(location)
        defer { log.close() }
        try log.append([entry(1)])
        try log.append([entry(2), entry(3), entry(4)])
        _ = try log.appendExclusively { _ in [entry(5), entry(6)] }
        let rows = try server.psql(
            "SELECT string_agg(seq || ':' || (batch_id IS NOT NULL), ',' ORDER BY seq) FROM labelstore.records WHERE list = '\(location.list)'"
        )
        #expect(rows == "1:true,2:true,3:false,4:false,5:true,6:false")
        #expect(try server.psql("SELECT count(DISTINCT batch_id) FROM labelstore.records WHERE list = '\(location.list)'") == "3")
    }
}

/// The adaptive locking thresholds the tests count on (docs/POSTGRES.md, "Adaptive locking").
enum PostgresEventLogTestLimits {
    /// Locked turns in a row with nobody else appending between them before the log turns back.
    static let quietTurns = 4
}
#endif
