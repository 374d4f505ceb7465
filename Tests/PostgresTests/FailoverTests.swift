#if Postgres
import EventLog
import Foundation
import LabelStorePostgres
import LabelStoreTestSupport
import Synchronization
import Testing

/// A primary and a hot standby (two real servers, `scripts/pg-test-server
/// start --standby`): the primary is killed (`pg_ctl stop -m immediate`)
/// during appends from several hosts and the standby promoted. Writers use a
/// multi-host location (`host=a,b`, `target_session_attrs=read-write`) and
/// find the new primary; followers read from the standby, or switch to it
/// when the primary dies (issue 29, item 4). Each test starts its own pair.
@Suite(
    .serialized,
    .enabled(
        if: PostgresReplicaPair.isEnabled,
        "set LABELSTORE_TEST_FAILOVER=1 to run it (.ci/run does): each test starts a primary and a hot standby with scripts/pg-test-server start --standby"
    ))
struct FailoverTests {
    static let writers = 3
    static let perWriter = 100

    /// Runs three writers and two followers — one reading the standby
    /// (`prefer-standby`), one the primary first (`any`), which must switch
    /// servers — kills the primary once 120 records are acknowledged, promotes
    /// the standby 300 ms later, and lets everything finish: each writer
    /// appends 100 records, and 20 more after the kill.
    func failover(synchronous: Bool) throws -> (run: FailoverRun, stored: [EventRecord], storeHeard: [UInt64]) {
        let pair = try PostgresReplicaPair.start(synchronous: synchronous)
        defer { pair.stop() }
        let run = try FailoverRun(pair: pair)
        let onStandby = try run.startFollower("follow-standby", pair.hosts(standbyFirst: true, attributes: "prefer-standby"))
        let switching = try run.startFollower("follow-primary", pair.hosts(standbyFirst: false, attributes: "any"))
        let storeFollower = try run.startStoreFollower("store-follower", pair.hosts(standbyFirst: true, attributes: "prefer-standby"))
        let writing = try run.startWriters(Self.writers, perWriter: Self.perWriter, afterKill: 20)
        let storeWriting = try run.startStoreWriter(perWriter: 50, afterKill: 10)
        // The standby follower reads the standby: its sessions are there, not on the primary.
        let sessions = "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'follow-standby'"
        // Its session may still be connecting on a busy machine: wait for it (at most 30 s).
        let connected = ContinuousClock.now.advanced(by: .seconds(30))
        while try pair.psql(pair.standby, sessions) == "0", ContinuousClock.now < connected { Thread.sleep(forTimeInterval: 0.02) }
        #expect(try pair.psql(pair.standby, sessions) != "0", "the standby follower reads from the standby")
        #expect(try pair.psql(pair.primary, sessions) == "0")
        try run.killPrimaryAfter(120, pause: .milliseconds(300))
        writing.wait()
        storeWriting.wait()
        let stored = try run.stored()
        run.finishFollowing(at: stored.count)
        onStandby.wait()
        switching.wait()
        let errors = storeFollower.finish(at: stored.count)
        #expect(errors.isEmpty, "the store following the standby reported nothing: \(errors)")
        return (run, stored, storeFollower.heard.seqs.withLock { $0 })
    }

    /// The titles of the labels added by the store writer, as stored.
    func storeTitles(_ stored: [EventRecord]) -> [String] {
        stored.compactMap { record in
            guard case .added(_, let title, _, _) = record.event, title.hasPrefix("store #") else { return nil }
            return title
        }
    }

    /// No record is stored twice, and writers went on on the new primary.
    func checkNoDoublesAndWritersContinued(_ run: FailoverRun, _ stored: [EventRecord]) {
        let notes = stored.compactMap(\.note)
        #expect(Set(notes).count == notes.count, "an append was stored twice")
        let titles = storeTitles(stored)
        #expect(Set(titles).count == titles.count, "a store's add was stored twice")
        #expect(stored.map(\.seq) == Array(1...UInt64(stored.count)), "the stored seqs are gapless from 1")
        let acknowledged = run.acknowledged.withLock { $0 }
        for writer in 0..<Self.writers {
            #expect(
                acknowledged.contains { $0.writer == writer && $0.afterKill },
                "writer \(writer) appended on the new primary after the old one was killed")
        }
        #expect(acknowledged.count >= Self.writers * Self.perWriter)
    }

    @Test func synchronousStandbyLosesNoAcknowledgedRecordWhenThePrimaryIsKilledAndPromoted() throws {
        let (run, stored, storeHeard) = try failover(synchronous: true)
        #expect(storeHeard == Array(1...UInt64(stored.count)), "the store following the standby heard every seq once, in order")
        checkNoDoublesAndWritersContinued(run, stored)
        let bySeq = Dictionary(uniqueKeysWithValues: stored.map { ($0.seq, $0) })
        let acknowledged = run.acknowledged.withLock { $0 }
        for ack in acknowledged {
            #expect(
                bySeq[ack.record.seq] == ack.record, "acknowledged seq \(ack.record.seq) (\(ack.record.note ?? "")) is stored unchanged")
        }
        let storeAcknowledged = run.storeAcknowledged.withLock { $0 }
        #expect(Set(storeTitles(stored)) == Set(storeAcknowledged), "every add the store acknowledged is stored, once")
        #expect(
            stored.count == acknowledged.count + storeAcknowledged.count,
            "every acknowledged append once, and no failed one (\(run.failures.withLock { $0.count }) failures)")
        #expect(run.reopened.load(ordering: .relaxed) == 0, "no writer saw its history change")
        #expect(run.storeStopped.withLock { $0 } == nil, "the store writer went on")
        for follower in run.followed.withLock({ $0 }) {
            #expect(follower.outOfOrder.isEmpty, "\(follower.name) read no gap or repeat: \(follower.outOfOrder)")
            if follower.name == "follow-standby" {
                // A standby cannot LISTEN: its follower polls, without an error, and never finds its
                // server (which stays up throughout) out of reach.
                #expect(follower.transientErrors == 0, "\(follower.name) waited on the standby without an error")
                #expect(run.lostServer.withLock { $0[follower.name] } == nil, "\(follower.name) never lost the standby")
            }
            #expect(follower.diverged == nil, "\(follower.name): \(follower.diverged?.message ?? "")")
            #expect(follower.records == stored, "\(follower.name) read every stored record once, in order, unchanged")
        }
        print(
            "failover (synchronous): first append acknowledged \(run.failoverTime.map { "\($0)" } ?? "never") after the kill (the promotion came 300 ms after it); \(run.batchesFound.load(ordering: .relaxed)) appends whose reply was lost were found by batch id; \(run.failures.withLock { $0.count }) appends failed and were sent again \(run.failures.withLock { $0 })"
        )
    }

    @Test func asynchronousStandbyMayLoseAcknowledgedRecordsButNeverDoublesOrMixesHistories() throws {
        let (run, stored, storeHeard) = try failover(synchronous: false)
        // It read the standby, which never had the records that may have been lost.
        #expect(storeHeard == Array(1...UInt64(stored.count)), "the store following the standby heard every seq once, in order")
        checkNoDoublesAndWritersContinued(run, stored)
        let bySeq = Dictionary(uniqueKeysWithValues: stored.map { ($0.seq, $0) })
        let storedNotes = Set(stored.compactMap(\.note))
        let acknowledged = run.acknowledged.withLock { $0 }
        var lost: [EventRecord] = []
        for ack in acknowledged where bySeq[ack.record.seq] != ack.record {
            // Lost with the old primary: not in the new history at all (not moved, not half there).
            lost.append(ack.record)
            #expect(
                !storedNotes.contains(ack.record.note ?? ""),
                "acknowledged \(ack.record.note ?? "") is either stored at its seq or lost, never moved")
        }
        for follower in run.followed.withLock({ $0 }) {
            #expect(follower.outOfOrder.isEmpty, "\(follower.name) read no gap or repeat: \(follower.outOfOrder)")
            if let diverged = follower.diverged {
                // It had read records that were lost: it stopped and said so, and what it read before them stands.
                let good = Int(diverged.lastGoodSeq ?? 0)
                #expect(Array(follower.records.prefix(good)) == Array(stored.prefix(good)), "\(follower.name): \(diverged.message)")
                #expect(!lost.isEmpty, "\(follower.name) stopped though nothing was lost: \(diverged.message)")
            } else {
                #expect(follower.records == stored, "\(follower.name) read every stored record once, in order, unchanged")
            }
        }
        print(
            "failover (asynchronous): \(lost.count) of \(acknowledged.count) acknowledged records were lost (seqs \(lost.map(\.seq))); \(run.reopened.load(ordering: .relaxed)) writers were told their history changed and opened it again; the store writer \(run.storeStopped.withLock { $0 }.map { "stopped: \($0.message)" } ?? "went on"); followers stopped on a changed history: \(run.followed.withLock { $0.filter { $0.diverged != nil }.map(\.name) }); first append on the new primary \(run.failoverTime.map { "\($0)" } ?? "never") after the kill"
        )
    }

    @Test func aWriterNeverWritesThroughAReadOnlyServerAndFindsThePromotedStandby() throws {
        let pair = try PostgresReplicaPair.start(synchronous: true)
        defer { pair.stop() }
        let run = try FailoverRun(pair: pair)
        // Opened through the standby first (`any`): reads are served there; the append goes to the primary.
        let log = try run.open(pair.hosts(standbyFirst: true, attributes: "any"), "standby-first")
        defer { log.close() }
        let first = try log.append([run.entry(writer: 0, 0)])
        #expect(
            try pair.psql(pair.primary, "SELECT coalesce(max(seq), 0) FROM labelstore.records WHERE list = '\(run.location.list)'") == "1")
        // The primary is fenced (read-only, as a failover tool does), then the standby promoted.
        try pair.psql(pair.primary, "ALTER SYSTEM SET default_transaction_read_only = on")
        try pair.psql(pair.primary, "SELECT pg_reload_conf()")
        let appended = Mutex<[EventRecord]>(first)
        let failed = Mutex<[EventLogError]>([])
        let done = DispatchGroup()
        done.enter()
        Thread {
            defer { done.leave() }
            for n in 1..<6 {
                do throws(EventLogError) {
                    let records = try log.append([run.entry(writer: 0, n)])
                    appended.withLock { $0 += records }
                } catch { failed.withLock { $0.append(error) } }
            }
        }.start()
        Thread.sleep(forTimeInterval: 1)
        let onOldPrimary = try pair.psql(
            pair.primary, "SELECT coalesce(max(seq), 0) FROM labelstore.records WHERE list = '\(run.location.list)'")
        try pair.promote()
        done.wait()
        #expect(failed.withLock { $0 }.isEmpty, "no append failed: \(failed.withLock { $0.map(\.message) })")
        let stored = try run.stored()
        #expect(stored == appended.withLock { $0 }, "every acknowledged append is on the new primary once, in order")
        #expect(stored.count == 6)
        // Nothing more was written on the fenced primary after it said it was read-only.
        #expect(
            try pair.psql(pair.primary, "SELECT coalesce(max(seq), 0) FROM labelstore.records WHERE list = '\(run.location.list)'")
                == onOldPrimary)
        // What the fenced primary took before its sessions read the new setting (a session reloads
        // its configuration between statements) is the new history's beginning, not a fork of it.
        let rows = { (conninfo: String) in
            try pair.psql(
                conninfo,
                "SELECT string_agg(seq || ':' || crc, ',' ORDER BY seq) FROM labelstore.records WHERE list = '\(run.location.list)' AND seq <= \(onOldPrimary)"
            )
        }
        #expect(try rows(pair.primary) == rows(pair.standby), "the fenced primary's records are the new primary's first ones")
    }
}
#endif
