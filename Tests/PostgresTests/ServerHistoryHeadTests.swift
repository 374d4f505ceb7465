#if Postgres
import EventLog
import Foundation
import LabelStorePostgres
import LabelStoreTestSupport
import Testing

/// Heads of server lists: the same records have the same head as in a file;
/// a row edited by hand (which the server's own checks do not see) makes
/// `verify --head` fail, and an honest append after the head does not.
@Suite(.serialized) struct ServerHistoryHeadTests {
    @Test func aServerListHasItsFilesHeadAndAnEditedRowFailsVerifyHead() throws {
        let server = PostgresTestServer.shared
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("server-heads-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("l.labellog").path
        let writer = try LogWriter.open(path: file, options: .init(durability: .noSync, createIfMissing: true))
        for n in 0..<20 {
            _ = try writer.append(LogEntry(.added(id: LabelID(), title: "Label \(n)", isEnabled: true, index: 0), actor: "ana"))
        }
        writer.close()

        let list = "heads-\(UUID().uuidString.prefix(8).lowercased())"
        let url = CLIOverServerTests.url(list: list)
        let copied = try CLIOverServerTests.cli(["copy", file, url])
        #expect(copied.status == 0, "\(copied)")
        let fileHead = try HistoryProver.head(of: HistoryRecords(path: file), atSeq: 15)
        let serverHead = try CLIOverServerTests.cli(["head", url, "--at", "15"])
        #expect(
            serverHead.status == 0 && serverHead.output.trimmingCharacters(in: .whitespacesAndNewlines) == fileHead.description,
            "\(serverHead)")
        let log = try server.open(server.location(list: list), create: false)
        #expect(try HistoryProver.head(of: HistoryRecords(storage: log, name: list), atSeq: 15) == fileHead)
        log.close()
        let extends = try CLIOverServerTests.cli(["verify", url, "--head", fileHead.description])
        #expect(extends.status == 0, "\(extends)")

        // One letter of record 7's title, changed by hand on the server.
        try server.psql(
            """
            UPDATE labelstore.records SET payload = overlay(payload placing convert_to('M', 'UTF8')
                from position(convert_to('Label 6', 'UTF8') in payload) for 1)
            WHERE list = '\(list)' AND seq = 7
            """)
        // The row's chained checksum no longer matches: the read names it before any head is compared.
        let caught = try CLIOverServerTests.cli(["verify", url, "--head", fileHead.description])
        #expect(caught.status == 1 && caught.errors.contains("the row of seq 7 was altered"), "\(caught)")
        let proof = try CLIOverServerTests.cli(["prove", url, "3", "--head", fileHead.description])
        #expect(proof.status == 1, "\(proof)")
    }
}
#endif
