#if Postgres
import EventLog
import Foundation
import LabelProjection
import LabelStorePostgres
import LabelStoreTestSupport
import Testing

/// A server list that was cut reads as the history it was (issue 43): every
/// read command, and a joining host's history reads, answer on a list cut
/// once, twice or three times (its archives in a directory on this machine)
/// exactly as on the list before the cuts — for cuts at seq 2, a
/// checkpoint's seq and the seq after it, and several cuts. The file logs'
/// counterpart is CutHistoryTests (CLITests); the commands are the same.
@Suite(.serialized) struct ServerCutHistoryTests {
    let server = PostgresTestServer.shared
    static let writes = 240

    /// Every read command, with arguments reaching before, across and after the cuts.
    static func commands(_ url: String, one: LabelID, prefix: String, last: UInt64, times: [String], head: String) -> [[String]] {
        [
            ["show", url, "--json"], ["show", url, "--at", "0", "--json"], ["show", url, "--at", "1", "--json"],
            ["show", url, "--at-time", times[0], "--json"], ["show", url, "--at-time", times[1]],
            ["show", url, "--at", String(last / 3), "--enabled-only", "--json"],
            ["diff", url, "1", String(last), "--json"], ["diff", url, "3", String(last / 2)],
            ["log", url, "--json"], ["log", url, "--from", "2", "--to", String(last / 2)], ["log", url, "-n", "5"],
            ["log", url, "--label", one.description, "--json"], ["log", url, "--label", prefix], ["log", url, "--actor", "bob", "--json"],
            ["log", url, "--since", times[0], "--until", times[1], "--json"], ["log", url, "--kind", "removed"],
            ["trace", url, "--to", String(last / 2), "--json"], ["trace", url, "--label", prefix, "--json"],
            ["export", url], ["export", url, "--from", "1", "--to", String(last / 2)],
            ["head", url], ["head", url, "--at", "1"], ["head", url, "--at", String(last / 2)],
            ["prove", url, "1", "--json"], ["prove", url, String(last / 2), "--at", String(last - 1), "--json"],
            ["prove", url, "--extends", head, "--json"]
        ]
    }

    /// The outputs of `commands`, with `url` written as `LOG`.
    static func answers(_ commands: [[String]], url: String) throws -> [String] {
        var environment = ProcessInfo.processInfo.environment
        environment["LABELREPLAY_TEST_INDEX"] = "always"
        return try commands.map { arguments in
            let run = try runCommand(try CLIOverServerTests.executable(), arguments, environment: environment)
            #expect(run.status == 0, "\(arguments.dropFirst(2)): \(run)")
            return "\(arguments[0]) \(arguments.dropFirst(2).joined(separator: " ")) → \(run.status)\n"
                + run.output.replacingOccurrences(of: url, with: "LOG")
        }
    }

    @Test(arguments: [[2], [64], [65], [61, 151], [40, 120, 200]] as [[UInt64]])
    func everyCommandAnswersOnACutListAsOnTheUncutOne(cuts: [UInt64]) throws {
        let location = server.location()
        let log = try PostgresEventLog(location: location, options: .init(createIfMissing: true, checkpointInterval: 64))
        let store = try LabelStore(storage: log)
        var rng = SeededGenerator(seed: 43 + cuts[0])
        var added: [LabelID] = []
        for i in 0..<Self.writes {
            let options = WriteOptions(actor: i.isMultiple(of: 3) ? "bob" : "alice")
            let ids = store.snapshot.ids
            let choice = ids.count < 4 ? 0 : Int.random(in: 0..<10, using: &rng)
            let id = ids.isEmpty ? nil : ids[Int.random(in: 0..<ids.count, using: &rng)]
            switch (choice, id) {
            case (0...2, _), (_, nil): added.append(try store.add("label \(i)", options: options))
            case (3...4, let id?): try store.rename(id, to: "renamed \(i)", options: options)
            case (5...6, let id?): try store.toggle(id, options: options)
            case (7, let id?): try store.remove(id, options: options)
            case (_, let id?): try store.move(id, to: Int.random(in: 0..<ids.count, using: &rng), options: options)
            }
        }
        store.waitForHistoryFiles()
        let last = store.lastSeq
        let samples = Set([0, 1, 2, 63, 64, 65, last / 2, last] + cuts.flatMap { [$0 - 1, $0] }).filter { $0 <= last }.sorted()
        let states = try samples.map { try store.state(atSeq: $0) }
        let times = try [20, last / 2].map { try #require(try log.read(from: $0, maxCount: 1).first).timestamp.iso8601 }
        store.close()
        log.close()

        let url = CLIOverServerTests.url(list: location.list)
        let head = try CLIOverServerTests.cli(["head", url, "--at", String(last / 4)]).output.trimmingCharacters(
            in: .whitespacesAndNewlines)
        let commands = Self.commands(
            url, one: added[2], prefix: String(added[1].description.prefix(8)), last: last, times: times, head: head)
        let expected = try Self.answers(commands, url: url)

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("server-cut-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for before in cuts {
            let cut = try CLIOverServerTests.cli(["archive", url, "--before", String(before), "--to", directory])
            try #require(cut.status == 0, "\(cut)")
        }
        let got = try Self.answers(commands, url: url)
        for (want, answer) in zip(expected, got) { #expect(answer == want) }

        // A joining host's history reads: every sampled seq, through the archives.
        let joining = try PostgresEventLog(location: location, options: .init())
        defer { joining.close() }
        let joined = try LabelStore(storage: joining)
        defer { joined.close() }
        for (seq, state) in zip(samples, states) { #expect(try joined.state(atSeq: seq) == state, "state at \(seq)") }
        #expect(try joined.history().firstHeldSeq() == 1)
    }
}
#endif
