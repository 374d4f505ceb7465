import Dispatch
import EventLog
import Foundation
import LabelStoreTestSupport
import Synchronization
import Testing

@testable import LabelProjection

/// `close()` never drops a notification owed for a record applied before it,
/// whatever the target and whoever is delivering: every interleaving of the
/// close with the writes and with a drainer held inside another subscriber's
/// handler (seeded, reproducible), for the writer's thread, a queue, an
/// actor, a live stream and a stream with history.
@Suite struct CloseDeliveryTests {
    /// A gate a handler waits at until the test opens it.
    final class Gate: Sendable {
        private let opened = DispatchSemaphore(value: 0)
        private let arrived = DispatchSemaphore(value: 0)
        private let armed = Atomic<Bool>(true)

        /// Called by the handler: the first call waits until ``open()``.
        func pass() {
            guard armed.exchange(false, ordering: .acquiringAndReleasing) else { return }
            arrived.signal()
            opened.wait()
        }

        /// Waits until a handler is held at the gate.
        func waitForArrival() { arrived.wait() }
        func open() { opened.signal() }
    }

    struct Scenario: CustomStringConvertible {
        let writesBefore: Int  // before the drainer is held
        let writesWhileHeld: Int  // queued behind it
        let historyFrom: UInt64  // where the history stream starts
        let holdOnSeq: UInt64  // the notification the blocker holds at
        var description: String { "before \(writesBefore), while held \(writesWhileHeld), history from \(historyFrom)" }
    }

    static func scenarios(seed: UInt64, count: Int) -> [Scenario] {
        var random = SeededGenerator(seed: seed)
        return (0..<count).map { _ in
            let before = Int.random(in: 1...40, using: &random)
            return Scenario(
                writesBefore: before, writesWhileHeld: Int.random(in: 0...60, using: &random),
                historyFrom: UInt64.random(in: 1...UInt64(before), using: &random), holdOnSeq: UInt64(before + 1))
        }
    }

    @Test(arguments: [0x0C10_5E, 0xDE11_7E4])
    func everyNotificationForARecordAppliedBeforeCloseIsDeliveredWhateverTheTarget(seed: UInt64) async throws {
        for scenario in Self.scenarios(seed: UInt64(seed), count: 12) {
            try await Self.run(scenario)
        }
    }

    /// What one scenario's subscribers received.
    struct Run {
        let store: LabelStore
        let last: UInt64
        let callback: Collector<UInt64>, queued: Collector<UInt64>, history: Collector<UInt64>
        let auditor: Auditor
        let live: AsyncStream<ChangeNotification>, withHistory: AsyncStream<ChangeNotification>
        let subscriptions: [Subscription]
    }

    /// Subscribes every target, holds the drainer inside the blocker's
    /// handler, writes behind it, closes, then lets the drainer go. Synchronous
    /// writes and close (no async overloads): the interleaving is the test's.
    static func drive(_ scenario: Scenario) throws -> Run {
        let store = try makeStore()
        for n in 0..<scenario.writesBefore { try store.add("before \(n)") }
        let gate = Gate()
        let callback = Collector<UInt64>(), queued = Collector<UInt64>(), history = Collector<UInt64>()
        let auditor = Auditor()
        let blocker = store.subscribe(to: .everything) { if $0.seq == scenario.holdOnSeq { gate.pass() } }
        let writer = store.subscribe(to: .everything) { callback.append($0.seq) }
        let queue = store.subscribe(to: .everything, on: .queue(DispatchQueue(label: "close-test"))) { queued.append($0.seq) }
        let onActor = store.subscribe(to: .everything, on: .actor(auditor)) { auditor, notification in
            auditor.record(notification.seq, receivedActor: auditor)
        }
        let fromHistory = try store.subscribe(to: .everything, from: scenario.historyFrom) { history.append($0.seq) }
        let live = store.changes(for: .everything)
        let withHistory = try store.changes(for: .everything, from: scenario.historyFrom)

        // A thread writes the record whose delivery the blocker holds: that thread is now the
        // drainer, stuck; every later write queues behind it.
        let held = Thread { _ = try? store.add("held") }
        held.start()
        gate.waitForArrival()
        for n in 0..<scenario.writesWhileHeld { try store.add("while held \(n)") }
        let last = store.lastSeq
        store.close()
        gate.open()
        return Run(
            store: store, last: last, callback: callback, queued: queued, history: history, auditor: auditor, live: live,
            withHistory: withHistory, subscriptions: [blocker, writer, queue, onActor, fromHistory])
    }

    static func run(_ scenario: Scenario) async throws {
        let run = try drive(scenario)
        let (last, callback, queued, history, auditor) = (run.last, run.callback, run.queued, run.history, run.auditor)
        let comment = Comment(rawValue: "\(scenario)")
        let appliedBefore = UInt64(scenario.writesBefore)
        #expect(await eventually { callback.count == Int(last - appliedBefore) }, comment)
        #expect(callback.all == Array(appliedBefore + 1...last), comment)
        #expect(await eventually { queued.count == Int(last - appliedBefore) }, comment)
        #expect(queued.all == Array(appliedBefore + 1...last), comment)
        #expect(await eventually { auditor.seqs.count == Int(last - appliedBefore) }, comment)
        #expect(auditor.seqs.all == Array(appliedBefore + 1...last), comment)
        #expect(await eventually { history.count == Int(last - scenario.historyFrom + 1) }, comment)
        #expect(history.all == Array(scenario.historyFrom...last), comment)
        var streamed: [UInt64] = []
        for await notification in run.live { streamed.append(notification.seq) }
        #expect(streamed == Array(appliedBefore + 1...last), comment)
        streamed = []
        for await notification in run.withHistory { streamed.append(notification.seq) }
        #expect(streamed == Array(scenario.historyFrom...last), comment)
        #expect(run.subscriptions.allSatisfy { !$0.isCancelled }, comment)
    }
}
