import EventLog
import Foundation
import LabelStoreTestSupport
import Testing

@testable import LabelProjection

/// One subscriber under test: what it depends on, what it received, and
/// from which seq it expects notifications.
final class TrackedSubscriber {
    let dependency: Dependency
    let from: UInt64
    let received = Collector<ChangeNotification>()
    var subscription: Subscription?
    var checked = 0
    var mirror: [LabelID] = []

    init(_ store: LabelStore, _ dependency: Dependency, from: UInt64?, history: [ModelList]) throws {
        self.dependency = dependency
        self.from = from ?? (store.lastSeq + 1)
        if case .view(let query) = dependency { mirror = history[Int(self.from - 1)].visible(query).map(\.id) }
        let received = self.received
        subscription =
            try from.map { try store.subscribe(to: dependency, from: $0) { received.append($0) } }
            ?? store.subscribe(to: dependency) { received.append($0) }
    }

    /// Seqs whose record changed the dependency's value, per the model (computed incrementally).
    var expectedSeqs: [UInt64] = []
    lazy var scannedThrough: UInt64 = from - 1

    /// Checks what was received since the last check against the model history:
    /// exactly the seqs whose record changed the dependency's value, with the right values.
    func check(history: [ModelList], lastSeq: UInt64) {
        while scannedThrough < lastSeq {
            scannedThrough += 1
            let seq = Int(scannedThrough)
            if history[seq - 1].value(of: dependency) != history[seq].value(of: dependency) { expectedSeqs.append(scannedThrough) }
        }
        let new = received.items(from: checked)
        let expected = Array(expectedSeqs[min(checked, expectedSeqs.count)...])
        #expect(new.map(\.seq) == expected, "\(dependency) from \(from): received other seqs than the model's changes")
        guard new.map(\.seq) == expected else {
            checked = received.count
            return
        }
        for notification in new {
            let before = history[Int(notification.seq - 1)], after = history[Int(notification.seq)]
            #expect(notification.dependency == dependency)
            switch dependency {
            case .title(let id):
                #expect(notification.title == ValueChange(id: id, old: before.row(id)?.title, new: after.row(id)?.title))
            case .isEnabled(let id):
                #expect(notification.isEnabled == ValueChange(id: id, old: before.row(id)?.isEnabled, new: after.row(id)?.isEnabled))
            case .label(let id):
                #expect(notification.label.old == before.row(id) && notification.label.new == after.row(id))
            case .enabledCount:
                #expect(notification.enabledCount == (before.enabledCount, after.enabledCount))
            case .view(let query):
                for change in notification.viewChanges {
                    change.apply(to: &mirror)
                    if case .updated(let id, let at) = change { #expect(mirror.indices.contains(at) && mirror[at] == id) }
                }
                #expect(
                    mirror == after.visible(query).map(\.id),
                    "view \(query) after seq \(notification.seq): applying the view changes does not give the model's rows")
            case .membership, .everything:
                #expect(notification.viewChanges.isEmpty)
            }
        }
        checked += new.count
    }
}

/// Seeded random command sequences applied to the store and to the plain-array
/// model; after every step the list, the views and every subscriber's
/// notifications must match the model.
@Suite struct ReferenceModelTests {
    static let queries = [ViewQuery("ring"), ViewQuery("cafe", enabledOnly: true), ViewQuery(enabledOnly: true), ViewQuery("o")]

    /// Runs `steps` random steps against `store` (which must be empty) and returns the model history.
    @discardableResult
    static func run(_ store: LabelStore, seed: UInt64, steps: Int, recordRejections: Bool, catchUpEvery: Int = 97) throws -> [ModelList] {
        var generator = CommandGenerator(seed: seed)
        var model = ModelList()
        var history = [model]
        var subscribers = try [
            Dependency.membership, .enabledCount, .everything, .title(testID(1)), .isEnabled(testID(2)), .label(testID(3)),
            .label(testID(5))
        ]
        .map { try TrackedSubscriber(store, $0, from: nil, history: history) }
        subscribers += try queries.map { try TrackedSubscriber(store, .view($0), from: nil, history: history) }
        var rejected = 0, noOps = 0, written = 0

        for step in 0..<steps {
            let commands =
                generator.chance(10) ? (0..<generator.int(2...4)).map { _ in generator.command(model) } : [generator.command(model)]
            let expectation = generator.expectation(model)
            let options = WriteOptions(actor: "model", note: "step \(step)", expectation: expectation)
            let expected = model.events(for: commands, expectation: expectation)
            let outcome: Result<[EventRecord], StoreError>
            do throws(StoreError) {
                outcome = .success(
                    commands.count == 1
                        ? try store.execute(commands[0], options: options) : try store.execute(batch: commands, options: options))
            } catch {
                outcome = .failure(error)
            }
            switch (expected, outcome) {
            case (.success(let events), .success(let records)):
                #expect(records.map(\.event) == events, "step \(step): \(commands)")
                #expect(records.allSatisfy { $0.actor == "model" && $0.note == "step \(step)" })
                for event in events {
                    model.apply(event, seq: model.lastSeq + 1)
                    model.cacheViews(queries)
                    history.append(model)
                }
                if events.isEmpty { noOps += 1 } else { written += 1 }
            case (.failure(let failure), .failure(let error)):
                rejected += 1
                #expect(error.code == failure.code, "step \(step): \(commands) \(String(describing: expectation))")
                #expect(error.batchIndex == failure.batchIndex)
                if case .labelRemoved = failure.code { #expect(error.message.hasPrefix("Edit skipped: label was removed.")) }
                if recordRejections {
                    model.apply(.rejected(id: nil, command: "", reason: ""), seq: model.lastSeq + 1)
                    model.cacheViews(queries)
                    history.append(model)
                    #expect(error.auditSeq == model.lastSeq)
                } else {
                    #expect(error.auditSeq == nil)
                }
            default:
                Issue.record("step \(step): \(commands) \(String(describing: expectation)): model says \(expected), store says \(outcome)")
                return history
            }

            // The list and every view agree with the model.
            let snapshot = store.snapshot
            #expect(model.matches(snapshot), "step \(step): the store's list differs from the model")
            for query in queries { #expect(store.view(query) == model.visible(query), "step \(step): view \(query)") }
            // Every subscriber received exactly the model's changes.
            for subscriber in subscribers { subscriber.check(history: history, lastSeq: model.lastSeq) }
            // Now and then, a subscriber joins from an earlier seq (catch-up then live).
            if step % catchUpEvery == 0, model.lastSeq > 0 {
                let from = UInt64(generator.int(1...Int(model.lastSeq + 1)))
                let dependencies: [Dependency] = [
                    .membership, .everything, .enabledCount, .label(generator.target(model)), .view(queries[step % queries.count])
                ]
                let subscriber = try TrackedSubscriber(store, dependencies[generator.int(0...4)], from: from, history: history)
                subscriber.check(history: history, lastSeq: model.lastSeq)
                subscribers.append(subscriber)
            }
        }
        #expect(rejected > steps / 10 && noOps > 10 && written > steps / 3, "the generator must exercise refusals, no-ops and writes")
        // Time travel agrees with the history.
        for seq in stride(from: 0, through: model.lastSeq, by: max(1, Int(model.lastSeq) / 7)) {
            #expect(history[Int(seq)].matches(try store.state(atSeq: seq)), "state at seq \(seq)")
        }
        return history
    }

    @Test(arguments: [(11, false), (12, true)] as [(UInt64, Bool)])
    func randomCommandsMatchThePlainArrayModelInListViewsAndNotifications(seed: UInt64, recordRejections: Bool) throws {
        let log = InMemoryEventLog()
        let store = try makeStore(log, recordRejections: recordRejections)
        let history = try Self.run(store, seed: seed, steps: 3000, recordRejections: recordRejections)
        // Reopening the log reproduces the same state.
        let reopened = try makeStore(log)
        #expect(reopened.snapshot == store.snapshot)
        #expect(history.last!.matches(reopened.snapshot))
        if recordRejections {
            #expect(log.allRecords.contains { $0.event.kind == .rejected }, "rejections are visible to replay")
        } else {
            #expect(!log.allRecords.contains { $0.event.kind == .rejected })
        }
    }
}
