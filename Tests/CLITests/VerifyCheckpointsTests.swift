import EventLog
import Foundation
import LabelStoreTestSupport
import Testing

@testable import LabelProjection

/// `verify LOG --checkpoints`: every checkpoint of `LOG.checkpoints` compared
/// with the fold at its seq. The file `index` writes passes; one written for
/// another history is named as not usable; one bound to the log's records
/// but holding another list (a writer's bug, which no reader can tell) is
/// named with the label that differs — and `show --at` answers from it,
/// which is why it matters; `index --rebuild` mends it.
@Suite struct VerifyCheckpointsTests {
    let index = ["LABELREPLAY_TEST_INDEX": "always"]

    /// A log of `count` adds and renames with `LOG.checkpoints` every 16 records.
    func indexedLog(_ scratch: Scratch, count: Int = 60) async throws -> String {
        let log = scratch.path("l.labellog")
        try HistoryHeadCommandTests.history(at: log, count: count)
        let built = try await CLI.run(["index", log], environment: index)
        #expect(built.status == 0, "\(built)")
        return log
    }

    func report(_ log: String) async throws -> [String: Any] {
        try await CLI.run(["verify", log, "--checkpoints", "--json"]).json()
    }

    /// The message of `verify --checkpoints --json` on `log`, checked to be a
    /// checkpoint problem at `seq` of code `historyDiverged`.
    func divergedCheckpointMessage(_ log: String, seq: Int) async throws -> String {
        let found = try await report(log)
        let problem = found["problem"] as? [String: Any]
        #expect(problem?["kind"] as? String == "checkpoint" && problem?["seq"] as? Int == seq, "\(found)")
        #expect(problem?["code"] as? String == "historyDiverged", "\(found)")
        return problem?["message"] as? String ?? ""
    }

    /// Replaces `LOG.checkpoints` with a file of one full checkpoint, as a
    /// writer writes one: `list` after the record at `position`, with the
    /// removed labels' titles `removals`.
    func replaceCheckpoints(
        of log: String, logID: LabelID, with list: LabelList, at position: LogPosition, frontier: [HistoryHash],
        removals: CheckpointFile.PendingRemovals = CheckpointFile.PendingRemovals()
    ) throws {
        let path = CheckpointFile.path(for: log)
        try FileManager.default.removeItem(atPath: path)
        let (file, _) = try SystemFile.openCreating(path)
        defer { file.close() }
        let header = CheckpointFile.encodeHeader(logID: logID, interval: 16, firstSeq: 1)
        try header.withUnsafeBytes { try file.write($0, at: 0) }
        _ = try CheckpointFile.append(
            seq: position.seq, image: list.checkpointImageBytes(logID: logID, logPosition: position), isDelta: false,
            frontier: frontier, removals: removals, removalCount: UInt64(removals.count), to: file, at: CheckpointFile.headerLength)
    }

    @Test func theCheckpointsIndexWritesAreEachTheFold() async throws {
        let scratch = try Scratch()
        let log = try await indexedLog(scratch)
        let sound = try await report(log)
        #expect(sound["ok"] as? Bool == true, "\(sound)")
        #expect(sound["checkpointsChecked"] as? Int == 90 / 16, "\(sound)")
        let text = try await CLI.run(["verify", log, "--checkpoints"])
        #expect(text.stdout.contains("each of the 5 checkpoints of LOG.checkpoints is the fold of the records at its seq"), "\(text)")
        #expect(try await CLI.run(["verify", log, "--json"]).json()["checkpointsChecked"] == nil, "only when asked")
        let usage = try await CLI.run(["verify", log, "--checkpoints", "--quick"])
        #expect(usage.status == 64 && usage.stderr.contains("--quick"), "\(usage)")
    }

    /// The checkpoints of a forgery (another log with the same records but
    /// record 9's actor) beside the log: the file names another log, and is named.
    @Test func checkpointsOfAnotherHistoryAreNamedAsNotUsable() async throws {
        let scratch = try Scratch()
        let log = try await indexedLog(scratch)
        let forged = scratch.path("forged.labellog")
        try HistoryHeadCommandTests.forge(log, to: forged, changing: 9)
        #expect(try await CLI.run(["index", forged], environment: index).status == 0)
        try FileManager.default.removeItem(atPath: CheckpointFile.path(for: log))
        try FileManager.default.copyItem(atPath: CheckpointFile.path(for: forged), toPath: CheckpointFile.path(for: log))
        let found = try await report(log)
        let problem = found["problem"] as? [String: Any]
        #expect(found["ok"] as? Bool == false && problem?["kind"] as? String == "checkpoint", "\(found)")
        #expect((problem?["message"] as? String)?.contains("l.labellog.checkpoints") == true, "\(found)")
        #expect(found["lastSeq"] as? Int == 90, "the records are checked to the end: \(found)")
    }

    /// A checkpoint file bound to the log's records whose one checkpoint holds
    /// a title the records never gave: readers use it; verify names it.
    @Test func aCheckpointHoldingAnotherListIsNamedWithTheLabelThatDiffers() async throws {
        let scratch = try Scratch()
        let log = try await indexedLog(scratch)
        let reader = try LogReader(path: log)
        var list = LabelList()
        var tree = HistoryTreeBuilder()
        var position: LogPosition?
        var victim: LabelID?
        while let record = try reader.next(), record.seq <= 32 {
            var forged = record
            if record.seq == 3, case .added(let id, _, let isEnabled, let index) = record.event {
                forged.event = .added(id: id, title: "never given", isEnabled: isEnabled, index: index)
                victim = id
            }
            try list.replay(forged)
            tree.append(payload: try record.storedPayload())
            position = reader.lastPosition
        }
        let id = try #require(victim)
        try replaceCheckpoints(of: log, logID: reader.header.logID, with: list, at: try #require(position), frontier: tree.frontier)

        let shown = try await CLI.run(["show", log, "--at", "32", "--json"], environment: index)
        #expect(shown.stdout.contains("never given"), "a reader starts from it: \(shown)")
        let message = try await divergedCheckpointMessage(log, seq: 32)
        #expect(message.contains("label \(id)") && message.contains("never given") && message.contains("index --rebuild"), "\(message)")
        #expect(try await CLI.run(["index", log, "--rebuild"], environment: index).status == 0)
        #expect(try await report(log)["ok"] as? Bool == true, "mended by the rebuild")
    }

    /// A checkpoint file whose checkpoint keeps, for a label removed before
    /// it, a title that label's removal never stated: its list is the fold,
    /// so only the removed titles tell it apart. `verify` compares each
    /// label removed since the checkpoint before with its removal.
    @Test func aCheckpointKeepingAnotherTitleForARemovedLabelIsNamed() async throws {
        let scratch = try Scratch()
        let log = scratch.path("r.labellog")
        // Adds at 1–20, renames at 21–26, removals at 27–36, adds at 37–48: checkpoints at 16, 32 and 48.
        try makeLog(at: log) { store in
            for n in 0..<20 { _ = try store.add("Label \(n)") }
            for label in store.labels.prefix(6) { try store.rename(label.id, to: label.title + " renamed") }
            for label in store.labels.prefix(10) { try store.remove(label.id) }
            for n in 20..<32 { _ = try store.add("Label \(n)") }
        }
        #expect(try await CLI.run(["index", log], environment: index).status == 0)
        let sound = try await report(log)
        #expect(sound["ok"] as? Bool == true && sound["checkpointsChecked"] as? Int == 3, "\(sound)")

        // The checkpoint at 32 as index writes it, but for the label removed at seq 29 a title no record gave.
        let reader = try LogReader(path: log)
        var list = LabelList()
        var tree = HistoryTreeBuilder()
        var removals = CheckpointFile.PendingRemovals()
        var position: LogPosition?
        var victim: (id: LabelID, title: String)?
        while let record = try reader.next(), record.seq <= 32 {
            try list.replay(record)
            tree.append(payload: try record.storedPayload())
            position = reader.lastPosition
            if case .removed(let id, _, let title, let isEnabled) = record.event, let slot = list.slot(of: id) {
                if record.seq == 29 { victim = (id, title) }
                removals.append(slot: slot, id: id, seq: record.seq, title: record.seq == 29 ? "never given" : title, isEnabled: isEnabled)
            }
        }
        let (id, title) = try #require(victim)
        try replaceCheckpoints(
            of: log, logID: reader.header.logID, with: list, at: try #require(position), frontier: tree.frontier, removals: removals)

        let diffed = try await CLI.run(["diff", log, "20", "32"], environment: index)
        #expect(diffed.stdout.contains("never given"), "a reader prints it: \(diffed)")
        let message = try await divergedCheckpointMessage(log, seq: 32)
        #expect(
            message.contains("label \(id)") && message.contains("\"never given\"") && message.contains("\"\(title)\"")
                && message.contains("removed at seq 29"), "\(message)")
        #expect(try await CLI.run(["index", log, "--rebuild"], environment: index).status == 0)
        #expect(try await report(log)["ok"] as? Bool == true, "mended by the rebuild")
    }
}
