import EventLog
import Foundation
import LabelProjection
import LabelStoreTestSupport
import Testing

/// `upgrade FILE`: a log rewritten in log format 4 is the same history — every
/// command answers as on the file before, heads included — in fewer bytes; an
/// archive is never rewritten.
@Suite struct UpgradeFileTests {
    /// The JSON object `upgrade --json` printed.
    static func report(_ result: CLIResult) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result)")
    }

    @Test func anUpgradedLogIsTheSameHistoryInFewerBytesAndEveryCommandAnswersAsBefore() async throws {
        let scratch = try Scratch()
        let (reference, ids) = try CutHistoryTests.reference(in: scratch, seed: 61, writes: CutHistoryTests.writes)
        let last = try LogReader.readAll(path: reference).0.last!.seq
        let head = try await CLI.run(["head", reference, "--at", String(last / 4)]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let fullHead = try await CLI.run(["head", reference]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let expected = try await CutHistoryTests.answers(reference, ids: ids, last: last, extending: head)
        try FileManager.default.createDirectory(atPath: scratch.path("four"), withIntermediateDirectories: true)
        let path = scratch.path("four/h.labellog")
        try FileManager.default.copyItem(atPath: reference, toPath: path)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let logID = try LogReader(path: path).header.logID

        let upgraded = try await CLI.run(["upgrade", path, "--json"])
        #expect(upgraded.status == 0, "\(upgraded)")
        let report = try Self.report(upgraded)
        #expect(report["kind"] as? String == "file" && report["changed"] as? Bool == true)
        #expect(report["fromVersion"] as? Int == 2 && report["toVersion"] as? Int == 4)
        #expect(report["records"] as? Int == Int(last))
        #expect(report["bytesBefore"] as? Int == before.count)
        let after = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(
            report["bytesAfter"] as? Int == after.count && after.count < before.count * 6 / 10, "\(after.count) of \(before.count) bytes")
        #expect(report["head"] as? String == fullHead)
        let header = try LogReader(path: path).header
        #expect(header.version == LogFormat.batchVersion && header.logID == logID)
        #expect(try LogReader.readAll(path: path).records == LogReader.readAll(path: reference).records)

        let got = try await CutHistoryTests.answers(path, ids: ids, last: last, extending: head)
        for (want, answer) in zip(expected, got) {
            #expect(FormatFourCommandTests.unpadded(answer) == FormatFourCommandTests.unpadded(want))
        }
        let verified = try await CLI.run(["verify", path, "--head", fullHead])
        #expect(verified.status == 0, "\(verified)")

        // Again: nothing to do, nothing changed.
        let again = try await CLI.run(["upgrade", path])
        #expect(again.status == 0 && again.stdout.contains("already"), "\(again)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == after)

        // A store opens it and writes on, in format 4.
        let store = try await LabelStore.open(path: path, options: .init(createIfMissing: false))
        try await store.add("after the upgrade")
        #expect(store.lastSeq == last + 1)
        await store.close()
        #expect(try LogReader(path: path).header.version == LogFormat.batchVersion)
        #expect(try await CLI.run(["verify", path]).status == 0)
    }

    @Test func anArchiveIsNeverUpgradedAndTheLogCutFromItIsUpgradedKeepingTheJoin() async throws {
        let scratch = try Scratch()
        let (reference, _) = try CutHistoryTests.reference(in: scratch, seed: 62, writes: 300)
        let records = try LogReader.readAll(path: reference).records
        let path = scratch.path("h.labellog")
        try FileManager.default.copyItem(atPath: reference, toPath: path)
        let archived = try await CLI.run(["archive", path, "--before", "120", "--json"])
        #expect(archived.status == 0, "\(archived)")
        let archive = try #require(try Self.report(archived)["archive"] as? String)
        let archiveBytes = try Data(contentsOf: URL(fileURLWithPath: archive))

        let refused = try await CLI.run(["upgrade", archive])
        #expect(refused.status == 1 && refused.stderr.contains("is the archive of"), "\(refused)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: archive)) == archiveBytes, "a refused upgrade changes nothing")

        let upgraded = try await CLI.run(["upgrade", path])
        #expect(upgraded.status == 0 && upgraded.stdout.contains("from log format 3 to 4"), "\(upgraded)")
        let header = try LogReader(path: path).header
        #expect(header.version == LogFormat.batchVersion && header.firstSeq == 120)
        let verified = try await CLI.run(["verify", path])
        #expect(verified.status == 0 && verified.stdout.contains("the archive joins the log"), "\(verified)")
        #expect(try LogReader.readAll(path: archive).records + LogReader.readAll(path: path).records == records)
    }

    /// In process: the upgrade leaves no handle or lock behind, so a store opens the log at once.
    @Test func aStoreOpensTheLogItUpgradedInTheSameProcess() async throws {
        let scratch = try Scratch()
        let (reference, _) = try CutHistoryTests.reference(in: scratch, seed: 63, writes: 200)
        let path = scratch.path("h.labellog")
        try FileManager.default.copyItem(atPath: reference, toPath: path)
        let report = try LabelStore.upgradeLog(path: path)
        #expect(report.changed && report.toVersion == LogFormat.batchVersion)
        let store = try await LabelStore.open(path: path, options: .init(createIfMissing: false))
        try await store.add("after the upgrade")
        #expect(try store.head.seq == report.head.seq + 1)
        await store.close()
        #expect(try LogReader.readAll(path: path).records.dropLast() == LogReader.readAll(path: reference).records[...])
    }

    @Test func whatIsNotALogIsRefusedAndChangesNothing() async throws {
        let scratch = try Scratch()
        let path = scratch.path("notes.txt")
        try Data("not a label log\n".utf8).write(to: URL(fileURLWithPath: path))
        let refused = try await CLI.run(["upgrade", path])
        #expect(refused.status == 1, "\(refused)")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "not a label log\n")
        let missing = try await CLI.run(["upgrade", scratch.path("none.labellog")])
        #expect(missing.status == 1 && missing.stderr.contains("no such file"), "\(missing)")
    }
}
