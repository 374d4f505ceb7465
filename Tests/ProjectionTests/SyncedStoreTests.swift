import EventLog
import Foundation
import LabelStoreTestSupport
import Synchronization
import Testing

@testable import LabelProjection

/// Stores on devices, synced through one shared list (in memory here): the
/// app's view of sync — writes, subscriptions, refusals, status, background
/// syncing.
@Suite("Synced stores")
struct SyncedStoreTests {
    func titles(_ store: LabelStore) -> [String] { store.labels.map(\.title) }

    /// Runs `body` with two devices on one shared list, then closes them.
    func withTwoDevices(_ body: (SyncedStore, SyncedStore, InMemoryEventLog) throws -> Void) throws {
        let dir = TemporaryDirectory()
        let server = InMemoryEventLog()
        let a = try SyncedStore.open(mirrorPath: dir.file("a.labellog"), server: server)
        let b = try SyncedStore.open(mirrorPath: dir.file("b.labellog"), server: server)
        defer {
            a.close()
            b.close()
        }
        try body(a, b, server)
    }

    @Test func anEditOnOneDeviceReachesTheOthersSubscribersAfterBothSync() throws {
        try withTwoDevices { a, b, server in
            let heard = Mutex<[UInt64]>([])
            let subscription = b.store.subscribe(to: .membership) { n in heard.withLock { $0.append(n.seq) } }
            defer { subscription.cancel() }
            let id = try a.store.add("Groceries")
            #expect(titles(a.store) == ["Groceries"], "the device shows its edit at once")
            #expect(a.status.pending == 1)
            try a.sync()
            #expect(a.status.pending == 0 && a.status.lastSyncedSeq == 1)
            #expect(heard.withLock { $0 }.isEmpty)
            try b.sync()
            #expect(b.store.label(id)?.title == "Groceries")
            #expect(heard.withLock { $0.count } == 1, "B's membership subscriber heard the other device's add once")
            try b.sync()
            #expect(heard.withLock { $0.count } == 1, "a round that changes nothing publishes nothing")
        }
    }

    @Test func aRefusedOfflineEditIsUndoneOnTheDeviceAndReported() throws {
        try withTwoDevices { a, b, server in
            let id = try a.store.add("Groceries")
            try a.sync()
            try b.sync()
            // Offline: A removes it, B renames it.
            try a.store.remove(id)
            try b.store.rename(id, to: "Shopping")
            #expect(b.store.label(id)?.title == "Shopping")
            let refusals = Mutex<[SyncedStore.Refusal]>([])
            b.onRefusal { refusal in refusals.withLock { $0.append(refusal) } }
            let titleChanges = Mutex<Int>(0)
            let subscription = b.store.subscribe(to: .title(id)) { _ in titleChanges.withLock { $0 += 1 } }
            defer { subscription.cancel() }
            try a.sync()
            try b.sync()
            #expect(b.store.label(id) == nil, "the label is gone on B too")
            #expect(titleChanges.withLock { $0 } == 1, "B's row heard the removal")
            let refused = refusals.withLock { $0 }
            #expect(refused.map(\.refusal.reason) == [.labelRemoved])
            #expect(refused.first?.refusal.message == "Edit skipped: label was removed.")
            #expect(b.status.lastRefusal == refused.first)
            #expect(server.allRecords.count == 3, "add, remove, and the refusal record")
        }
    }

    @Test func aBatchWriteIsKeptForSyncAsOneAndReachesTheOtherDeviceWhole() throws {
        try withTwoDevices { a, b, server in
            let first = LabelID()
            try a.store.execute(batch: [
                .add(title: "one", id: first), .add(title: "two"), .rename(id: first, title: "one, renamed")
            ])
            #expect(a.status.pending == 3)
            try a.sync()
            try b.sync()
            #expect(titles(b.store) == ["one, renamed", "two"])
            #expect(server.allRecords.count == 3)
        }
    }

    @Test func pendingEditsSurviveAReopenAndShowAtOnce() throws {
        let dir = TemporaryDirectory()
        let server = InMemoryEventLog()
        let path = dir.file("d.labellog")
        do {
            let device = try SyncedStore.open(mirrorPath: path, server: nil)
            try device.store.add("offline one")
            try device.store.add("offline two", isEnabled: false)
            device.close()
        }
        let device = try SyncedStore.open(mirrorPath: path, server: server)
        defer { device.close() }
        #expect(titles(device.store) == ["offline one", "offline two"])
        #expect(device.status.pending == 2)
        try device.sync()
        #expect(server.allRecords.count == 2)
        #expect(titles(device.store) == ["offline one", "offline two"])
    }

    @Test func aFailedRoundIsInTheStatusUntilOneSucceeds() throws {
        let dir = TemporaryDirectory()
        let server = FaultyServer()
        let device = try SyncedStore.open(mirrorPath: dir.file("d.labellog"), server: server)
        defer { device.close() }
        try device.store.add("waits")
        server.down = true
        #expect(throws: StoreError.self) { try device.sync() }
        #expect(device.status.lastError?.contains("unreachable") == true, "\(device.status)")
        #expect(device.status.pending == 1)
        server.down = false
        try device.sync()
        #expect(device.status.lastError == nil)
        #expect(device.status.pending == 0)
    }

    @Test func backgroundSyncingCarriesAnEditToTheOtherDevice() throws {
        try withTwoDevices { a, b, server in
            a.startSyncing(every: .milliseconds(50))
            b.startSyncing(every: .milliseconds(50))
            let id = try a.store.add("travels")
            let deadline = ContinuousClock.now + .seconds(10)
            while b.store.label(id) == nil, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.02) }
            #expect(b.store.label(id)?.title == "travels")
            a.stopSyncing()
            b.stopSyncing()
        }
    }
}
