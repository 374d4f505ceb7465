#if Postgres
import EventLog
import Foundation
import LabelProjection
import LabelStorePostgres
import LabelStoreTestSupport
import Synchronization

/// Writers and followers on a primary and its standby while the primary is
/// killed and the standby promoted (``FailoverTests``): what each writer had
/// acknowledged, what each follower read, and how long the writers waited.
final class FailoverRun: Sendable {
    /// An acknowledged record, and whether it was acknowledged after the primary was killed.
    struct Acknowledged: Sendable {
        var record: EventRecord
        var writer: Int
        var afterKill: Bool
    }

    /// What a follower read, in order, and how it stopped.
    struct Followed: Sendable {
        var name: String
        var records: [EventRecord] = []
        /// The history changed under it (records it read were lost): it stopped, as it must.
        var diverged: EventLogError?
        /// A seq that was not the one after the last (a gap or a repeat).
        var outOfOrder: [String] = []
        var transientErrors = 0
    }

    let pair: PostgresReplicaPair
    let location: PostgresLocation
    let acknowledged = Mutex<[Acknowledged]>([])
    let failures = Mutex<[String]>([])
    /// Writers that opened their log again after it said the history changed (records lost).
    let reopened = Atomic<Int>(0)
    let batchesFound = Atomic<Int>(0)
    let readOnlyRefusals = Atomic<Int>(0)
    let killedAt = Mutex<ContinuousClock.Instant?>(nil)
    let firstAfterKill = Mutex<ContinuousClock.Instant?>(nil)
    let followed = Mutex<[Followed]>([])
    /// How many times each handle (by name) found its server out of reach (`ConnectionEvent.lost`).
    let lostServer = Mutex<[String: Int]>([:])
    /// The titles a store's adds acknowledged (``startStoreWriter(perWriter:afterKill:)``).
    let storeAcknowledged = Mutex<[String]>([])
    /// Why the store writer stopped early: its history changed (records it had were lost).
    let storeStopped = Mutex<StoreError?>(nil)
    private let stopFollowing = Atomic<Bool>(false)
    /// Set when the kill or the promotion failed, or writing ran past ``writingLimit``:
    /// every writer stops, so a failed step ends the test instead of hanging it.
    private let abandoned = Atomic<Bool>(false)
    /// How long writers keep going at most (the whole failover takes seconds).
    private let writingLimit = Duration.seconds(180)

    /// Whether writers go on: not abandoned, and within ``writingLimit`` of `start` (else it is recorded).
    private func keepsWriting(since start: ContinuousClock.Instant, _ who: String) -> Bool {
        if abandoned.load(ordering: .relaxed) { return false }
        guard ContinuousClock.now - start < writingLimit else {
            failures.withLock { $0.append("\(who): still writing after \(writingLimit); gave up") }
            abandoned.store(true, ordering: .relaxed)
            return false
        }
        return true
    }
    private let followTarget = Atomic<Int>(Int.max)

    init(pair: PostgresReplicaPair) throws {
        self.pair = pair
        location = try PostgresLocation(connection: pair.failover, list: "failover-\(UUID().uuidString.prefix(8))")
        try PostgresEventLog(location: location, options: .init(createIfMissing: true)).close()
        // A reader of the standby can open the list once its creation has reached it (and been applied).
        let created = "SELECT count(*) FROM labelstore.lists WHERE list = '\(location.list)'"
        let deadline = ContinuousClock.now.advanced(by: .seconds(30))
        while (try? pair.psql(pair.standby, created)) != "1", ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.02) }
    }

    func entry(writer: Int, _ n: Int) -> LogEntry {
        LogEntry(
            .added(id: testID(100_000 * (writer + 1) + n), title: "w\(writer) #\(n)", isEnabled: true, index: 0), actor: "w\(writer)",
            note: "w\(writer)-\(n)")
    }

    func open(_ connection: String, _ name: String) throws -> PostgresEventLog {
        try PostgresEventLog(
            location: PostgresLocation(connection: connection + " application_name=\(name)", list: location.list),
            options: .init(
                pollInterval: .milliseconds(50), reconnectTimeout: .seconds(60),
                onConnectionEvent: { [self] event in
                    if case .lost = event { lostServer.withLock { $0[name, default: 0] += 1 } }
                }))
    }

    /// Starts `count` writers (one log each: several hosts), each appending
    /// one record at a time until `perWriter` are acknowledged, and at least
    /// `afterKill` of them after the primary was killed; returns a group to wait on.
    func startWriters(_ count: Int, perWriter: Int, afterKill: Int) throws -> DispatchGroup {
        let done = DispatchGroup()
        for w in 0..<count {
            let first = try open(pair.failover, "writer\(w)")
            done.enter()
            Thread { [self] in
                var log = first
                var n = 0
                var acknowledgedAfterKill = 0
                let start = ContinuousClock.now
                while (n < perWriter || acknowledgedAfterKill < afterKill) && keepsWriting(since: start, "writer\(w)") {
                    if n >= perWriter && killedAt.withLock({ $0 == nil }) {
                        // Its share is written: it waits for the kill instead of growing the history
                        // (on a busy machine the kill can take a while, and followers must catch up after).
                        Thread.sleep(forTimeInterval: 0.005)
                        continue
                    }
                    do throws(EventLogError) {
                        let records = try log.append([entry(writer: w, n)])
                        let now = ContinuousClock.now
                        let isAfterKill = killedAt.withLock { $0 != nil }
                        if isAfterKill {
                            firstAfterKill.withLock { $0 = $0 ?? now }
                            acknowledgedAfterKill += 1
                        }
                        acknowledged.withLock { list in
                            list += records.map { Acknowledged(record: $0, writer: w, afterKill: isAfterKill) }
                        }
                        n += 1
                    } catch {
                        if error.code == .listReplaced, let fresh = try? open(pair.failover, "writer\(w)") {
                            // Records it appended were lost with the old primary: it says so, and a new handle goes on.
                            tally(log)
                            log.close()
                            log = fresh
                            reopened.add(1, ordering: .relaxed)
                            continue
                        }
                        // Not acknowledged (and settled as not committed): the same entry is appended again.
                        failures.withLock { $0.append("w\(w)-\(n): \(error)") }
                        Thread.sleep(forTimeInterval: 0.05)
                    }
                }
                tally(log)
                log.close()
                done.leave()
            }.start()
        }
        return done
    }

    /// Starts a host that writes through a `LabelStore` in pessimistic mode
    /// (each write holding the head row lock: `appendExclusively`), adding a
    /// label titled `store #n` at a time until `perWriter` adds are
    /// acknowledged, and `afterKill` after the kill.
    func startStoreWriter(perWriter: Int, afterKill: Int) throws -> DispatchGroup {
        let log = try PostgresEventLog(
            location: PostgresLocation(connection: pair.failover + " application_name=store-writer", list: location.list),
            options: .init(pollInterval: .milliseconds(50), reconnectTimeout: .seconds(60), pessimistic: true))
        let store = try LabelStore(storage: log)
        let done = DispatchGroup()
        done.enter()
        Thread { [self] in
            var n = 0
            var acknowledgedAfterKill = 0
            let start = ContinuousClock.now
            while (n < perWriter || acknowledgedAfterKill < afterKill) && keepsWriting(since: start, "store writer") {
                if n >= perWriter && killedAt.withLock({ $0 == nil }) {
                    Thread.sleep(forTimeInterval: 0.005)
                    continue
                }
                do throws(StoreError) {
                    try store.add("store #\(n)")
                    if killedAt.withLock({ $0 != nil }) { acknowledgedAfterKill += 1 }
                    storeAcknowledged.withLock { $0.append("store #\(n)") }
                    n += 1
                } catch {
                    if error.kind == .logNotFound {
                        storeStopped.withLock { $0 = error }
                        break
                    }
                    // Not acknowledged (settled as not committed): the same title is added again.
                    failures.withLock { $0.append("store #\(n): \(error)") }
                    Thread.sleep(forTimeInterval: 0.05)
                }
            }
            store.close()
            log.close()
            done.leave()
        }.start()
        return done
    }

    /// A read-only host: a `LabelStore` opened through `connection` and
    /// following (`startFollowing`), its subscriber noting every seq it hears.
    final class StoreFollower: Sendable {
        let log: PostgresEventLog
        let store: LabelStore
        let heard = Heard()
        let errors = Tally()
        let subscription: Subscription

        init(_ log: PostgresEventLog) throws {
            self.log = log
            store = try LabelStore(storage: log)
            let heard = heard
            subscription = store.subscribe(to: .everything) { note in heard.seqs.withLock { $0.append(note.seq) } }
            let errors = errors
            store.startFollowing(wait: .milliseconds(100)) { error in
                errors.counts.withLock { $0["\(error.kind.rawValue): \(error.message)", default: 0] += 1 }
            }
        }

        /// Waits (up to 30 s) until the store has folded `count` records, then
        /// closes it; returns what its `onError` heard until then.
        func finish(at count: Int) -> [String: Int] {
            let deadline = ContinuousClock.now.advanced(by: .seconds(30))
            while store.lastSeq < UInt64(count), ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.02) }
            let reported = errors.counts.withLock { $0 }
            subscription.cancel()
            store.close()
            log.close()
            return reported
        }
    }

    /// Starts a ``StoreFollower`` reading through `connection`.
    func startStoreFollower(_ name: String, _ connection: String) throws -> StoreFollower {
        try StoreFollower(try open(connection, name))
    }

    private func tally(_ log: PostgresEventLog) {
        batchesFound.add(log.statistics.batchesFound.load(ordering: .relaxed), ordering: .relaxed)
        readOnlyRefusals.add(log.statistics.readOnlyRefusals.load(ordering: .relaxed), ordering: .relaxed)
    }

    /// Starts a follower reading through `connection`: `read(from: last + 1)`,
    /// then `waitForAppends(after: last)`, as a store's follower does.
    func startFollower(_ name: String, _ connection: String) throws -> DispatchGroup {
        let log = try open(connection, name)
        let done = DispatchGroup()
        done.enter()
        Thread { [self] in
            var state = Followed(name: name)
            defer {
                log.close()
                followed.withLock { $0.append(state) }
                done.leave()
            }
            var last: UInt64 = 0
            let deadline = ContinuousClock.now.advanced(by: .seconds(120))
            while ContinuousClock.now < deadline {
                if stopFollowing.load(ordering: .relaxed) && Int(last) >= followTarget.load(ordering: .relaxed) { return }
                do throws(EventLogError) {
                    let records = try log.read(from: last + 1, maxCount: 500)
                    for record in records {
                        if record.seq != last + 1 { state.outOfOrder.append("\(record.seq) after \(last)") }
                        last = record.seq
                    }
                    state.records += records
                    if records.isEmpty { _ = try log.waitForAppends(after: last, timeout: .milliseconds(200)) }
                } catch {
                    if error.code == .listReplaced {
                        state.diverged = error
                        return
                    }
                    state.transientErrors += 1
                    Thread.sleep(forTimeInterval: 0.05)
                }
            }
        }.start()
        return done
    }

    /// Lets the followers stop once they have read `count` records.
    func finishFollowing(at count: Int) {
        followTarget.store(count, ordering: .relaxed)
        stopFollowing.store(true, ordering: .relaxed)
    }

    /// Waits until `count` records are acknowledged, then kills the primary,
    /// waits `pause` (the writers keep trying), and promotes the standby.
    func killPrimaryAfter(_ count: Int, pause: Duration) throws {
        while acknowledged.withLock({ $0.count }) < count && !abandoned.load(ordering: .relaxed) {
            Thread.sleep(forTimeInterval: 0.002)
        }
        do {
            try pair.killPrimary()
            killedAt.withLock { $0 = .now }
            Thread.sleep(forTimeInterval: pause.timeInterval)
            try pair.promote()
        } catch {
            abandoned.store(true, ordering: .relaxed)
            throw error
        }
    }

    /// Everything on the new primary, read and checked (gapless, chained) by a new handle.
    func stored() throws -> [EventRecord] {
        let reader = try open(pair.failover, "checker")
        defer { reader.close() }
        return try reader.read(from: 1, maxCount: 1_000_000)
    }

    /// How long after the kill the first append was acknowledged (on the new primary).
    var failoverTime: Duration? {
        guard let killed = killedAt.withLock({ $0 }), let first = firstAfterKill.withLock({ $0 }) else { return nil }
        return first - killed
    }
}
#endif
