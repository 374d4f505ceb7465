import EventLog
import Foundation
import LabelProjection
import LabelStoreTestSupport
import Testing

/// A based log's `LOG.checkpoints` (docs/SNAPSHOTS.md, "The base image of a
/// based log"): after `archive`, `index` writes checkpoints from the log's
/// first seq on, and `show --at`, `diff` and `trace` folding from them give,
/// for every seq the log still holds, the answers of a fold from the base —
/// for `show` and `diff`, the answers the log gave before the cut.
@Suite struct BasedLogCheckpointCommandTests {
    /// Commands over seqs from `cut` to `last` only (the ones a based log answers).
    static func commands(_ path: String, cut: UInt64, last: UInt64, ids: [LabelID], seed: UInt64) -> [[String]] {
        var rng = SeededGenerator(seed: seed)
        var commands: [[String]] = []
        for k in 0..<6 {
            let seq = UInt64.random(in: cut...last, using: &rng)
            commands.append(["show", path, "--at", String(seq), "--no-pager"] + (k % 2 == 0 ? ["--json"] : []))
            let a = UInt64.random(in: cut...last, using: &rng)
            let b = UInt64.random(in: a...last, using: &rng)
            commands.append(["diff", path, String(a), String(b), "--color", "never"] + (k % 2 == 1 ? ["--json"] : []))
        }
        commands.append(["trace", path, "--from", String(cut + 30), "--no-pager", "--color", "never"])
        commands.append(["trace", path, "--from", String(max(cut + 1, last - 40)), "--no-pager", "--color", "never", "--json"])
        return commands
    }

    @Test(arguments: [41, 42] as [UInt64])
    func aBasedLogsCheckpointsGiveTheAnswersOfTheLogBeforeTheCut(seed: UInt64) async throws {
        let scratch = try Scratch()
        let path = scratch.path("h.labellog")
        let ids = try CheckpointCommandTests.makeHistory(at: path, seed: seed, writes: 700)
        let last = try CheckpointCommandTests.lastSeq(path)
        let cut = last / 3
        let commands = Self.commands(path, cut: cut, last: last, ids: ids, seed: seed)
        let before = try await CheckpointCommandTests.run(commands, hook: false)
        #expect(before.allSatisfy { $0.status == 0 }, "\(before.filter { $0.status != 0 })")

        let archived = try await CLI.run(["archive", path, "--before", String(cut + 1)])
        #expect(archived.status == 0, "\(archived)")
        let built = try await CLI.run(["index", path], environment: CheckpointCommandTests.hook)
        #expect(built.status == 0 && built.stdout.contains("(built from seq \(cut + 1))"), "\(built)")
        let directory = try #require(CheckpointFile.load(for: LogReader(path: path)).directory)
        #expect(directory.firstSeq == cut + 1 && directory.entries.first?.seq == (cut / 16 + 1) * 16, "\(directory.entries.map(\.seq))")

        // Scanned from the base: `show` and `diff` answer as before the cut; `trace` too, except that a label
        // removed before the cut has no title to print (the base keeps removed labels' ids and seqs, not titles).
        let scanned = try await CheckpointCommandTests.run(commands, hook: false)
        for (command, (a, b)) in zip(commands, zip(before, scanned)) where command[0] != "trace" {
            #expect(a.stdout == b.stdout && a.status == b.status, "\(command.joined(separator: " "))")
        }
        let checked = try await CheckpointCommandTests.expectSameAnswers(commands, scanned: scanned, "a based log's checkpoints")
        #expect(
            checked.filter { $0.stderr.contains("(from the checkpoint at seq") }.count >= commands.count / 2, "checkpoints were not used")
    }
}
