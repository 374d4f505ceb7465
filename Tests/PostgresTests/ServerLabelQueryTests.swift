#if Postgres
import EventLog
import Foundation
import LabelProjection
import LabelStorePostgres
import LabelStoreTestSupport
import Testing

/// `log --label` and id prefixes over a server list read through the
/// server's indexes (the label index, the unlabelled records' index, an id
/// range scan), not every record: each answer is the one the same history
/// gives as a file read from seq 1.
@Suite struct ServerLabelQueryTests {
    let server = PostgresTestServer.shared
    let checkpoints = ServerCheckpointTests()

    /// A list with adds, renames, toggles, removals, moves, two reorders and
    /// a refused edit; its labels, and a file copy of it (the reference).
    func makeList(_ scratch: TemporaryDirectory) throws -> (url: String, file: String, ids: [LabelID]) {
        let list = "query-\(UUID().uuidString.prefix(8))"
        let log = try checkpoints.open(server.location(list: list), interval: 0)
        defer { log.close() }
        let store = try LabelStore(storage: log)
        try checkpoints.write(80, to: store, seed: 51)
        try store.reorder(store.snapshot.ids.reversed())
        try checkpoints.write(80, to: store, seed: 52)
        var rng = SeededGenerator(seed: 9)
        try store.reorder(store.snapshot.ids.shuffled(using: &rng))
        try checkpoints.write(40, to: store, seed: 53)
        let removed = try log.read(from: 1, maxCount: 1_000).compactMap { record -> LabelID? in
            if case .removed(let id, _, _, _) = record.event { return id }
            return nil
        }
        if let gone = removed.first { _ = try? store.rename(gone, to: "too late") }
        let url = CLIOverServerTests.url(list: list)
        let file = scratch.file("copy.labellog")
        let copy = try runCommand(try CLIOverServerTests.executable(), ["copy", url, file])
        #expect(copy.status == 0, "\(copy)")
        var ids = Array(store.snapshot.ids.prefix(3)) + removed.prefix(2)
        ids += try log.read(from: 1, maxCount: 1_000).compactMap(\.event.labelID).filter { !ids.contains($0) }.prefix(2)
        return (url, file, ids)
    }

    /// Output with runs of spaces collapsed (the text columns' widths follow the log's size, which a server list counts in records).
    func collapsed(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
            .joined(separator: "\n")
    }

    @Test func logByLabelOverAServerPrintsWhatTheFileCopyPrintsFromSeqOne() throws {
        let scratch = TemporaryDirectory()
        let (url, file, ids) = try makeList(scratch)
        var selections: [[String]] = []
        for (k, id) in ids.enumerated() {
            selections.append(["--label", id.description])
            selections.append(["--label", String(id.description.prefix(8 + k)), "--json"])
        }
        selections += [
            ["--label", ids[0].description, "--label", ids[3].description, "--last", "3", "--json"],
            ["--label", ids[1].description, "--kind", "reordered", "--json"],
            ["--label", ids[2].description, "--from", "60", "--to", "170"],
            ["--label", ids[0].description, "--actor", "nobody"],
            ["--label", ids[3].description, "--kind", "rejected", "--json"],
            ["--label", ids[1].description, "--from", "end"]
        ]
        for selection in selections {
            let onServer = try runCommand(try CLIOverServerTests.executable(), ["log", url] + selection + ["--no-pager"])
            let fromFile = try runCommand(try CLIOverServerTests.executable(), ["log", file] + selection + ["--no-pager"])
            #expect(onServer.status == fromFile.status, "\(selection): \(onServer) vs \(fromFile)")
            #expect(collapsed(onServer.output) == collapsed(fromFile.output), "\(selection)")
            #expect(onServer.errors == fromFile.errors, "\(selection)")
        }
        // The reorders are among the records printed for a live label (so the comparison above covered them).
        let reorders = try runCommand(
            try CLIOverServerTests.executable(), ["log", url, "--label", ids[0].description, "--kind", "reordered"])
        #expect(reorders.output.split(separator: "\n").contains { $0.contains("reordered") }, "\(reorders)")
    }

    @Test func anIdPrefixOverAServerIsResolvedByTheServerAndAnAmbiguousOneNamesItsCandidates() throws {
        let scratch = TemporaryDirectory()
        let (url, file, ids) = try makeList(scratch)
        var environment = ProcessInfo.processInfo.environment
        environment["LABELREPLAY_TEST_INDEX"] = "always"
        for id in ids.prefix(4) {
            let prefix = String(id.description.prefix(6))
            let byPrefix = try runCommand(
                try CLIOverServerTests.executable(), ["trace", url, "--label", prefix, "--json"], environment: environment)
            let byID = try runCommand(try CLIOverServerTests.executable(), ["trace", url, "--label", id.description, "--json"])
            #expect(byPrefix.status == 0 && byPrefix.output == byID.output, "\(prefix): \(byPrefix)")
            #expect(byPrefix.errors.contains("(label ids from the server)"), "\(byPrefix.errors)")
        }
        // A prefix no id has, and one two ids share (forced by a label added with a chosen id).
        let none = try runCommand(try CLIOverServerTests.executable(), ["log", url, "--label", "0000000000"])
        let noneFile = try runCommand(try CLIOverServerTests.executable(), ["log", file, "--label", "0000000000"])
        #expect(none.status == 1 && none.errors.contains("no label id starts with '0000000000'"), "\(none)")
        #expect(noneFile.status == 1)
        let twin = LabelID(UUID(uuidString: ids[0].description.prefix(8) + "-0000-4000-8000-000000000000")!)
        let log = try PostgresEventLog(location: try PostgresLocation(url: url))
        defer { log.close() }
        try log.append([LogEntry(.added(id: twin, title: "twin", isEnabled: true, index: 0))], expectedLastSeq: log.lastSeq)
        let ambiguous = try runCommand(try CLIOverServerTests.executable(), ["log", url, "--label", String(ids[0].description.prefix(8))])
        #expect(ambiguous.status == 1 && ambiguous.errors.contains("is ambiguous: it matches 2 labels"), "\(ambiguous)")
        #expect(ambiguous.errors.contains("\"twin\""), "the candidates are named with their titles: \(ambiguous.errors)")
    }
}
#endif
