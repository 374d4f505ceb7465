#if Postgres
import EventLog
import Foundation
import LabelStorePostgres
import LabelStoreTestSupport
import Testing

/// `import` into a server list (issue 29, item 3): all-or-nothing batches of
/// 10,000, a bad line stops it between batches with the committed seqs named,
/// and `--resume` appends the rest and nothing twice; the list then holds
/// exactly what a file import of the same input holds.
@Suite(.serialized) struct ServerImportTests {
    /// `count` lines adding labels at the front, each with its own time; line `bad` (1-based), if
    /// given, renames a label no line added instead.
    func lines(_ count: Int, bad: Int? = nil) -> String {
        (1...count).map { n in
            let id = String(format: "00000000-0000-4000-8000-%012d", n)
            if n == bad {
                return
                    #"{"kind":"toggled","id":"00000000-0000-4000-9000-000000000001","isEnabled":false,"time":"2026-01-01T00:00:00.000Z"}"#
            }
            let ms = String(format: "%03d", n % 1000)
            return #"{"kind":"added","id":"\#(id)","title":"label \#(n)","isEnabled":true,"index":0,"time":"2026-01-01T00:00:01.\#(ms)Z"}"#
        }.joined(separator: "\n") + "\n"
    }

    func write(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("server-import-\(UUID().uuidString).jsonl").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func aBadLineStopsTheImportBetweenBatchesAndResumeAppendsTheRestOnce() throws {
        let url = CLIOverServerTests.url()
        #expect(try CLIOverServerTests.cli(["init", url]).status == 0)
        let bad = try write(lines(12_000, bad: 11_001))
        let good = try write(lines(12_000))
        defer { for path in [bad, good] { try? FileManager.default.removeItem(atPath: path) } }

        let stopped = try CLIOverServerTests.cli(["import", url, bad])
        #expect(stopped.status == 1, "\(stopped)")
        #expect(stopped.errors.contains("line 11001"), "the bad line is named: \(stopped.errors)")
        #expect(
            stopped.errors.contains("10000 records were committed as seq 1…10000"), "the committed batches are named: \(stopped.errors)")
        #expect(stopped.errors.contains("--resume"), "\(stopped.errors)")
        let shown = try CLIOverServerTests.cli(["show", url, "--json"])
        let tail = String(shown.output.suffix(40))
        #expect(tail.contains(#""seq":10000}"#), "one whole batch, nothing of the second: \(tail)")

        let resumed = try CLIOverServerTests.cli(["import", url, good, "--resume"])
        #expect(resumed.status == 0, "\(resumed)")
        #expect(resumed.output.contains("as seq 10001…12000 (skipped the first 10000 records"), "\(resumed.output)")
        let again = try CLIOverServerTests.cli(["import", url, good, "--resume"])
        #expect(again.status == 0 && again.output.contains("nothing to import"), "a second resume appends nothing: \(again)")

        // The list holds what a file import of the same input holds, record for record.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("server-import-\(UUID().uuidString).labellog").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        #expect(try CLIOverServerTests.cli(["import", file, good]).status == 0)
        let fromServer = try CLIOverServerTests.cli(["export", url])
        let fromFile = try CLIOverServerTests.cli(["export", file])
        #expect(fromServer.status == 0 && fromFile.status == 0)
        let same = fromServer.output == fromFile.output
        #expect(same, "the server list and the file hold the same records")
        #expect(fromServer.output.split(separator: "\n").count == 12_000)
    }

    @Test func aBadLineInTheFirstBatchImportsNothing() throws {
        let url = CLIOverServerTests.url()
        #expect(try CLIOverServerTests.cli(["init", url]).status == 0)
        let bad = try write(lines(300, bad: 120))
        defer { try? FileManager.default.removeItem(atPath: bad) }
        let stopped = try CLIOverServerTests.cli(["import", url, bad])
        #expect(stopped.status == 1, "\(stopped)")
        #expect(stopped.errors.contains("line 120") && stopped.errors.contains("nothing was imported"), "\(stopped.errors)")
        let shown = try CLIOverServerTests.cli(["show", url, "--json"])
        let empty = String(shown.output.suffix(40))
        #expect(empty.contains(#""seq":0"#), "\(empty)")
    }
}
#endif
