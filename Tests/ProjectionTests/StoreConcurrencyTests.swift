import EventLog
import Foundation
import LabelStoreTestSupport
import Testing

@testable import LabelProjection

/// Many tasks editing one store: the final state is the fold of the
/// acknowledged records in seq order, and the log holds exactly those.
/// CI also runs this suite under ThreadSanitizer.
@Suite struct StoreConcurrencyTests {
    @Test func manyTasksEditingOneStoreEndInTheFoldOfTheAcknowledgedRecords() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("concurrent-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("log").path
        let store = try await LabelStore.open(
            path: path, options: .init(durability: .noSync, createIfMissing: true, recordRejections: true))
        let notified = Collector<UInt64>()
        let subscription = store.subscribe(to: .everything) { notified.append($0.seq) }

        let tasks = 8, steps = 150
        let acknowledged = try await withThrowingTaskGroup(of: [EventRecord].self) { group in
            for t in 0..<tasks {
                group.addTask {
                    var rng = SeededGenerator(seed: UInt64(t + 1))
                    var mine: [EventRecord] = []
                    for step in 0..<steps {
                        let labels = store.labels
                        let command: LabelCommand
                        switch Int.random(in: 0..<6, using: &rng) {
                        case 0 where labels.count < 40, 1 where labels.count < 40:
                            command = .add(
                                title: "t\(t) s\(step)", isEnabled: Bool.random(using: &rng), id: nil,
                                at: Int.random(in: 0...labels.count, using: &rng))
                        case 2 where !labels.isEmpty:
                            command = .rename(id: labels.randomElement(using: &rng)!.id, title: "t\(t) r\(step)")
                        case 3 where !labels.isEmpty:
                            command = .toggle(id: labels.randomElement(using: &rng)!.id)
                        case 4 where !labels.isEmpty:
                            command = .move(id: labels.randomElement(using: &rng)!.id, to: Int.random(in: 0..<labels.count, using: &rng))
                        case 5 where labels.count > 5:
                            command = .remove(id: labels.randomElement(using: &rng)!.id)
                        default:
                            command = .reverse
                        }
                        do throws(StoreError) {
                            mine += try store.execute(command, options: WriteOptions(actor: "task \(t)"))
                        } catch {
                            // Another task got there first (removed the label, moved the end): a refusal, never a crash.
                            #expect(error.isRejection, "\(error)")
                        }
                    }
                    return mine
                }
            }
            var all: [EventRecord] = []
            for try await mine in group { all += mine }
            return all
        }
        let logged: [EventRecord] = try store.storage.read(from: 1, maxCount: .max)
        let acknowledgedSeqs = Set(acknowledged.map(\.seq))
        // Every acknowledged record is in the log as acknowledged; the rest are audit records of refusals.
        for record in logged where acknowledgedSeqs.contains(record.seq) {
            #expect(acknowledged.first { $0.seq == record.seq } == record)
        }
        #expect(logged.filter { !acknowledgedSeqs.contains($0.seq) }.allSatisfy { (record: EventRecord) in record.event.kind == .rejected })
        let folded = try LabelList(replaying: logged)
        #expect(folded == store.snapshot)
        await store.close()
        subscription.cancel()
        #expect(Set(notified.all).isSubset(of: Set(logged.map(\.seq))))
        #expect(notified.all == notified.all.sorted(), "notifications arrive in seq order")
        let reopened = try await LabelStore.open(path: path)
        #expect(reopened.snapshot == folded)
        await reopened.close()
    }
}
