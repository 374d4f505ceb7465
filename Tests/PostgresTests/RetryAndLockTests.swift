#if Postgres
import EventLog
import Foundation
import LabelProjection
import LabelStorePostgres
import LabelStoreTestSupport
import Synchronization
import Testing

/// The idempotent retry of an append whose commit the client did not see,
/// and pessimistic mode (the head row lock, its timeout).
@Suite struct RetryAndLockTests {
    let server = PostgresTestServer.shared

    @Test func anAppendWhoseConnectionDropsAfterTheCommitIsFoundNotDoubled() throws {
        let log = try server.open(server.location())
        defer { log.close() }
        try log.append([LogEntry(.added(id: testID(1), title: "one", isEnabled: true, index: 0))])
        log.faults.dropAfterSendingAppends.store(1, ordering: .relaxed)
        let records = try log.append(
            [LogEntry(.added(id: testID(2), title: "two", isEnabled: true, index: 0)), LogEntry(.toggled(id: testID(2), isEnabled: false))],
            expectedLastSeq: 1)
        #expect(records.map(\.seq) == [2, 3])
        #expect(log.statistics.batchesFound.load(ordering: .relaxed) == 1, "the retry found the committed batch")
        #expect(log.statistics.reconnects.load(ordering: .relaxed) >= 1)
        #expect(try log.read(from: 1, maxCount: 10).map(\.seq) == [1, 2, 3])
        #expect(try log.read(from: 2, maxCount: 10) == records)
    }

    @Test func pessimisticStoresOnOneListQueueInsteadOfConflicting() async throws {
        let location = server.location()
        var logs: [PostgresEventLog] = []
        var stores: [LabelStore] = []
        for _ in 0..<4 {
            let log = try PostgresEventLog(
                location: location, options: .init(createIfMissing: true, pessimistic: true, lockTimeout: .seconds(20)))
            logs.append(log)
            stores.append(try LabelStore(storage: log))
        }
        defer { for log in logs { log.close() } }
        let ids = (0..<4).map { testID(500 + $0) }
        for (i, id) in ids.enumerated() { try await stores[0].add("label \(i)", id: id) }
        let tally = Tally()
        await withTaskGroup(of: Void.self) { group in
            for (h, store) in stores.enumerated() {
                group.addTask {
                    var gen = SeededGenerator(seed: 77 &+ UInt64(h))
                    for step in 0..<30 {
                        let id = ids[Int(gen.next() % UInt64(ids.count))]
                        do {
                            switch gen.next() % 4 {
                            case 0: try await store.rename(id, to: "h\(h) s\(step)")
                            case 1: try await store.toggle(id)
                            case 2: try await store.remove(id)
                            default: try await store.add("again h\(h)", id: id)
                            }
                            tally.counts.withLock { $0["written", default: 0] += 1 }
                        } catch {
                            tally.counts.withLock { $0[(error as? StoreError)?.kind.rawValue ?? "other", default: 0] += 1 }
                        }
                    }
                }
            }
        }
        let counts = tally.counts.withLock { $0 }
        #expect(counts["written", default: 0] > 30, "\(counts)")
        #expect(counts["storage", default: 0] == 0 && counts["unavailable", default: 0] == 0, "\(counts)")
        #expect(logs.allSatisfy { $0.statistics.conflicts.load(ordering: .relaxed) == 0 }, "a locked append never conflicts")
        var fold = LabelList()
        for record in try logs[0].read(from: 1, maxCount: 10_000) { _ = try fold.apply(record) }
        for store in stores {
            try store.refresh()
            #expect(store.snapshot.labels == fold.labels)
        }
    }

    @Test func aPessimisticWriteGivesUpAfterTheLockTimeoutAndLeavesNothing() async throws {
        let location = server.location()
        let log = try PostgresEventLog(
            location: location, options: .init(createIfMissing: true, pessimistic: true, lockTimeout: .milliseconds(300)))
        defer { log.close() }
        let store = try LabelStore(storage: log)
        let id = try await store.add("held")
        // Another session holds the list until it is ended (not for a time: a busy machine must
        // not make the check below depend on a clock).
        let holderName = try ListWriteHolder.hold(location, on: server, name: "lock-holder-\(location.list)")
        let holding = "SELECT count(*) FROM pg_stat_activity WHERE application_name = '\(holderName)' AND query LIKE '%pg_sleep%'"
        let error = await #expect(throws: StoreError.self) { try await store.rename(id, to: "blocked") }
        #expect(error?.kind == .unavailable)
        if case .storage(let underlying)? = error?.code { #expect(underlying.code == .timedOut) }
        #expect(error?.message.contains("lock") == true)
        // It gave up while the lock was still held: after the lock timeout, not when the lock was released.
        #expect(try server.psql(holding).trimmingCharacters(in: .whitespacesAndNewlines) == "1")
        #expect(store.label(id)?.title == "held")
        #expect(try log.refreshLastSeq() == 1)
        _ = try server.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '\(holderName)'")
        try await store.rename(id, to: "free")
        #expect(store.label(id)?.title == "free")
    }

    @Test func aStatementTimeoutIsAClearErrorAndAppendsNothing() throws {
        let location = server.location()
        let log = try PostgresEventLog(location: location, options: .init(createIfMissing: true, statementTimeout: .milliseconds(300)))
        defer { log.close() }
        try log.append([LogEntry(.added(id: testID(1), title: "one", isEnabled: true, index: 0))])
        // Another session holds the list until it is ended; the append starts only once it
        // does (a busy machine must not make the check depend on a clock).
        let holderName = try ListWriteHolder.hold(location, on: server, name: "timeout-holder-\(location.list)")
        let error = #expect(throws: EventLogError.self) {
            try log.append([LogEntry(.toggled(id: testID(1), isEnabled: false))], expectedLastSeq: 1)
        }
        #expect(error?.code == .timedOut)
        #expect(error?.message.contains("timed out") == true)
        #expect(error?.message.contains(location.list) == true)
        _ = try server.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '\(holderName)'")
        #expect(try log.refreshLastSeq() == 1)
        #expect(try log.append([LogEntry(.toggled(id: testID(1), isEnabled: false))], expectedLastSeq: 1).map(\.seq) == [2])
    }
}
#endif
