#if Postgres
import EventLog
import Foundation
import LabelProjection
import LabelStorePostgres
import LabelStoreTestSupport
import Synchronization
import Testing

/// Several stores, each with its own connection (as on several hosts),
/// writing and following one list on the server.
@Suite struct SharedListStoreTests {
    let server = PostgresTestServer.shared

    func store(_ location: PostgresLocation) throws -> (LabelStore, PostgresEventLog) {
        let log = try server.open(location)
        return (try LabelStore(storage: log), log)
    }

    @Test func anEditToALabelAnotherHostRemovedIsSkippedWithTheSeedsMessage() throws {
        let location = server.location()
        let (a, logA) = try store(location)
        let (b, logB) = try store(location)
        defer {
            logA.close()
            logB.close()
        }
        let id = try a.add("Groceries")
        try b.refresh()
        #expect(b.label(id)?.title == "Groceries")
        try a.remove(id)
        // b has not seen the removal: its write loses the race, catches up, and is validated again.
        let error = #expect(throws: StoreError.self) { try b.rename(id, to: "Shopping") }
        #expect(error?.kind == .labelRemoved)
        #expect(error?.message.hasPrefix("Edit skipped: label was removed.") == true)
        #expect(b.label(id) == nil)
        #expect(try logB.refreshLastSeq() == 2)
    }

    @Test func aFollowingStorePublishesOtherHostsRecordsToExactlyTheirSubscribers() async throws {
        let location = server.location()
        let (writer, writerLog) = try store(location)
        let (follower, followerLog) = try store(location)
        defer {
            writerLog.close()
            followerLog.close()
        }
        let watched = try await writer.add("watched")
        let other = try await writer.add("other")
        let heard = Mutex<[Dependency: [UInt64]]>([:])
        var subscriptions: [Subscription] = []
        for dependency in [Dependency.everything, .membership, .title(watched), .isEnabled(watched), .title(other)] {
            subscriptions.append(follower.subscribe(to: dependency) { n in heard.withLock { $0[dependency, default: []].append(n.seq) } })
        }
        let stream = try follower.changes(for: .title(watched), from: 1)
        follower.startFollowing(wait: .milliseconds(200))
        try await writer.rename(watched, to: "watched 2")  // 3
        try await writer.toggle(other)  // 4
        try await writer.rename(other, to: "other 2")  // 5
        try await writer.add("third")  // 6
        try await writer.toggle(watched)  // 7
        try await writer.rename(watched, to: "watched 3")  // 8
        try await writer.remove(other)  // 9
        let deadline = ContinuousClock.now.advanced(by: .seconds(20))
        while heard.withLock({ $0[.everything]?.last }) != 9, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let got = heard.withLock { $0 }
        // The follower opened at seq 0, so the adds (1, 2) reach it by following too.
        #expect(got[.everything] == [1, 2, 3, 4, 5, 6, 7, 8, 9])
        #expect(got[.membership] == [1, 2, 6, 9])
        #expect(got[.title(watched)] == [1, 3, 8])
        #expect(got[.isEnabled(watched)] == [1, 7])
        #expect(got[.title(other)] == [2, 5, 9])
        var streamed: [UInt64] = []
        for await notification in stream {
            streamed.append(notification.seq)
            if notification.seq == 8 { break }
        }
        #expect(streamed == [1, 3, 8])
        #expect(follower.snapshot.labels == writer.snapshot.labels)
        await follower.close()
        _ = subscriptions
    }

    /// Four stores on four connections write the same few labels from four
    /// threads (renames, removals, moves and toggles that conflict): every
    /// store ends equal to the fold of the stored history, and every store's
    /// subscribers heard each seq of their dependency once, in order.
    @Test(arguments: [UInt64(11), 12]) func concurrentStoresOnOneListAgreeWithTheFoldOfTheStoredHistory(seed: UInt64) async throws {
        let location = server.location()
        let hosts = 4
        var stores: [LabelStore] = []
        var logs: [PostgresEventLog] = []
        for _ in 0..<hosts {
            let (store, log) = try store(location)
            stores.append(store)
            logs.append(log)
        }
        defer { for log in logs { log.close() } }
        let ids = (0..<6).map { testID(1000 + $0) }
        for (i, id) in ids.enumerated() { try await stores[0].add("label \(i)", id: id) }
        let everything = (0..<hosts).map { _ in Heard() }
        let titles = (0..<hosts).map { _ in Heard() }
        var subscriptions: [Subscription] = []
        for (h, store) in stores.enumerated() {
            try store.refresh()
            subscriptions.append(store.subscribe(to: .everything) { n in everything[h].seqs.withLock { $0.append(n.seq) } })
            subscriptions.append(store.subscribe(to: .title(ids[0])) { n in titles[h].seqs.withLock { $0.append(n.seq) } })
            store.startFollowing(wait: .milliseconds(100))
        }
        let start = stores[0].snapshot.lastSeq
        let outcomes = Tally()
        await withTaskGroup(of: Void.self) { group in
            for (h, store) in stores.enumerated() {
                group.addTask {
                    var gen = SeededGenerator(seed: seed &* 31 &+ UInt64(h))
                    for step in 0..<40 {
                        let id = ids[Int(gen.next() % UInt64(ids.count))]
                        do {
                            switch gen.next() % 5 {
                            case 0: try await store.rename(id, to: "h\(h) s\(step)")
                            case 1: try await store.toggle(id)
                            case 2: try await store.move(id, to: Int(gen.next() % 4))
                            case 3: try await store.remove(id)
                            default: try await store.add("new h\(h) s\(step)", id: id)
                            }
                            outcomes.counts.withLock { $0["written", default: 0] += 1 }
                        } catch {
                            outcomes.counts.withLock { $0[(error as? StoreError)?.kind.rawValue ?? "other", default: 0] += 1 }
                        }
                    }
                }
            }
        }
        let counts = outcomes.counts.withLock { $0 }
        #expect(counts["written", default: 0] > 20, "\(counts)")
        #expect(counts["storage", default: 0] == 0, "no write may fail on the race itself: \(counts)")
        // The stored history, folded.
        let history = try logs[0].read(from: 1, maxCount: 100_000)
        #expect(history.map(\.seq) == Array(1...UInt64(history.count)))
        var fold = LabelList()
        var titleSeqs: [UInt64] = []
        for record in history {
            let change = try fold.apply(record)
            if change.labelID == ids[0], change.before?.title != change.after?.title, record.seq > start { titleSeqs.append(record.seq) }
        }
        let last = UInt64(history.count)
        for (h, store) in stores.enumerated() {
            try store.refresh()
            #expect(store.snapshot.labels == fold.labels, "host \(h) differs from the fold of the stored history")
            let deadline = ContinuousClock.now.advanced(by: .seconds(20))
            while everything[h].seqs.withLock({ $0.last }) != last, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(everything[h].seqs.withLock { $0 } == Array((start + 1)...last), "host \(h) did not hear every seq once, in order")
            #expect(titles[h].seqs.withLock { $0 } == titleSeqs, "host \(h)'s title subscriber heard other than its label's title changes")
        }
        for store in stores { await store.close() }
        _ = subscriptions
    }
}

/// How the writes of a run ended, by kind.
final class Tally: Sendable {
    let counts = Mutex<[String: Int]>([:])
}

/// What one host's subscriber heard.
final class Heard: Sendable {
    let seqs = Mutex<[UInt64]>([])
}
#endif
