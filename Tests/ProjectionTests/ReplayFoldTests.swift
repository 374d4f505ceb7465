import EventLog
import Foundation
import LabelStoreTestSupport
import Testing

@testable import LabelProjection

/// `replay(_:)` is `apply(_:)` without the change description: the same
/// state after every record and the same error for every bad one.
@Suite struct ReplayFoldTests {
    @Test(arguments: [7, 8] as [UInt64])
    func replayAndApplyAgreeOnEveryStepAndEveryRefusal(seed: UInt64) throws {
        var generator = LargeListReferenceTests.Generator(rng: SeededGenerator(seed: seed), target: 60)
        var model = ModelList()
        var applied = LabelList(), replayed = LabelList()
        var rng = SeededGenerator(seed: seed ^ 0xFF)
        for _ in 0..<2000 {
            let event = generator.event(model)
            let seq = model.lastSeq + 1
            // Now and then, a record the fold must refuse: a stale title, a wrong seq or an unknown id.
            let bad: EventRecord? =
                switch Int.random(in: 0..<12, using: &rng) {
                case 0: model.rows.first.map { record(seq, .renamed(id: $0.id, oldTitle: $0.title + "?", newTitle: "x")) }
                case 1: record(seq + 1, event)
                case 2: record(seq, .toggled(id: testID(999_999), isEnabled: true))
                default: nil
                }
            if let bad {
                let a = catching { () throws(ProjectionError) in _ = try applied.apply(bad) }
                let r = catching { () throws(ProjectionError) in try replayed.replay(bad) }
                #expect(a != nil && a == r, "apply threw \(String(describing: a)), replay \(String(describing: r))")
            }
            try applied.apply(record(seq, event))
            try replayed.replay(record(seq, event))
            model.apply(event, seq: seq)
            #expect(applied == replayed)
        }
        replayed._checkInvariants()
        #expect(model.matches(replayed))
    }

    func catching(_ body: () throws(ProjectionError) -> Void) -> ProjectionError? {
        do throws(ProjectionError) { try body() } catch { return error }
        return nil
    }
}

/// Folding records decoded in place (`EventRecordView`) is the same fold.
@Suite struct ViewFoldTests {
    @Test func foldingViewsOfALogEqualsFoldingItsRecordsStepByStep() throws {
        var generator = LargeListReferenceTests.Generator(rng: SeededGenerator(seed: 77), target: 80)
        var model = ModelList()
        var entries: [LogEntry] = []
        for _ in 0..<3000 {
            let event = generator.event(model)
            model.apply(event, seq: model.lastSeq + 1)
            entries.append(
                LogEntry(
                    event, timestamp: EventTimestamp(millisecondsSince1970: 1_767_571_200_000 + Int64(entries.count)),
                    actor: entries.count % 7 == 0 ? "actor with a name over fifteen bytes" : nil))
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("viewfold-\(UUID().uuidString).labellog").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try LogWriter.open(path: path, options: .init(durability: .noSync, createIfMissing: true))
        let records = try writer.append(entries)
        writer.close()

        var fromViews = LabelList(), fromRecords = LabelList()
        var step = 0
        let visited = try LogReader(path: path).forEachView { view in
            try fromViews.replay(view)
            try fromRecords.replay(records[step])
            step += 1
            if step % 97 == 0 { #expect(fromViews == fromRecords, "after seq \(view.seq)") }
        }
        #expect(visited == 3000 && fromViews == fromRecords && model.matches(fromViews))
        fromViews._checkInvariants()
    }

    @Test func aViewTheFoldRefusesFailsWithTheRecordsError() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("viewfold-\(UUID().uuidString).labellog").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try LogWriter.open(path: path, options: .init(durability: .noSync, createIfMissing: true))
        let records = try writer.append([
            LogEntry(.added(id: testID(1), title: "Amber, a title longer than fifteen", isEnabled: true, index: 0)),
            LogEntry(.renamed(id: testID(1), oldTitle: "Not its title", newTitle: "x"))
        ])
        writer.close()
        var viaRecords = LabelList(), viaViews = LabelList()
        try viaRecords.replay(records[0])
        var recordError: ProjectionError?
        do throws(ProjectionError) { try viaRecords.replay(records[1]) } catch { recordError = error }
        var viewError: ProjectionError?
        _ = try LogReader(path: path).forEachView { view in
            do throws(ProjectionError) { try viaViews.replay(view) } catch { viewError = error }
        }
        #expect(recordError != nil && recordError == viewError)
        #expect(recordError?.code == .titleMismatch)
        #expect(viaViews == viaRecords)
    }
}
