import EventLog
import Foundation
import LabelProjection
import LabelStoreTestSupport
import Testing

/// `show --at`, `diff` and `trace` folding from the checkpoints `index` writes
/// (`LOG.checkpoints`): on seeded random histories, every answer equals the
/// answer of a scan from seq 1 — with the checkpoints current, missing,
/// truncated, bit-flipped, of another log, covering only a prefix of the log,
/// or of a history the log no longer holds (cut and written again).
@Suite struct CheckpointCommandTests {
    /// `LABELREPLAY_TEST_INDEX=always`: checkpoints every 16 records, trace --label through them, and a note on stderr.
    static let hook = ["LABELREPLAY_TEST_INDEX": "always"]

    /// The commands compared: show --at at many seqs, diff between random pairs, trace of random labels; JSON and text.
    static func commands(_ path: String, last: UInt64, ids: [LabelID], seed: UInt64, count: Int = 6) -> [[String]] {
        var rng = SeededGenerator(seed: seed)
        var commands: [[String]] = []
        for k in 0..<count {
            let seq = UInt64.random(in: 0...last, using: &rng)
            commands.append(["show", path, "--at", String(seq), "--no-pager"] + (k % 2 == 0 ? ["--json"] : []))
            let a = UInt64.random(in: 0...last, using: &rng)
            let b = UInt64.random(in: a...last, using: &rng)
            commands.append(["diff", path, String(a), String(b), "--color", "never"] + (k % 2 == 1 ? ["--json"] : []))
        }
        for k in 0..<max(1, count / 2) {
            let id = ids.randomElement(using: &rng)!.description
            let query = k % 2 == 0 ? ["--query", "label 1"] : []
            commands.append(["trace", path, "--label", id, "--no-pager", "--color", "never"] + query + (k % 2 == 0 ? ["--json"] : []))
        }
        commands.append(["trace", path, "--from", String(max(1, last - 40)), "--no-pager", "--color", "never", "--enabled-only"])
        commands.append(["show", path, "--at", String(last + 1), "--no-pager"])  // past the end: the same error
        return commands
    }

    /// Runs each command; with `hook`, through the checkpoints where it can.
    static func run(_ commands: [[String]], hook: Bool) async throws -> [CLIResult] {
        var results: [CLIResult] = []
        for command in commands { results.append(try await CLI.run(command, environment: hook ? Self.hook : [:])) }
        return results
    }

    /// Standard error without the notes the test hook adds.
    static func plainStderr(_ result: CLIResult) -> String {
        result.stderr.split(separator: "\n", omittingEmptySubsequences: false)
            .filter {
                !$0.hasPrefix("(from the checkpoint at seq") && $0 != "(read through the history index)"
                    && $0 != "(label ids from the history index)"
            }
            .joined(separator: "\n")
    }

    /// Expects every checkpointed answer to be the scanned one; returns the checkpointed results.
    @discardableResult
    static func expectSameAnswers(
        _ commands: [[String]], scanned: [CLIResult], warning: String? = nil, _ what: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [CLIResult] {
        let checked = try await run(commands, hook: true)
        for (command, (a, b)) in zip(commands, zip(scanned, checked)) {
            #expect(
                a.stdout == b.stdout && a.status == b.status, "\(what): \(command.joined(separator: " "))", sourceLocation: sourceLocation)
            if let warning {
                #expect(
                    b.stderr.contains(warning), "\(what): \(command.joined(separator: " ")): \(b.stderr)", sourceLocation: sourceLocation)
            } else {
                #expect(a.stderr == plainStderr(b), "\(what): \(command.joined(separator: " "))", sourceLocation: sourceLocation)
            }
        }
        return checked
    }

    /// A seeded history through the store; `shuffledTimes` stamps records out of order (as imports may).
    static func makeHistory(at path: String, seed: UInt64, writes: Int, shuffledTimes: Bool = false) throws -> [LabelID] {
        var rng = SeededGenerator(seed: seed)
        var ids: [LabelID] = []
        try makeLog(at: path, recordRejections: true) { store in
            for i in 0..<writes {
                let time = shuffledTimes ? Int64.random(in: 0..<10_000, using: &rng) : Int64(i)
                let options = stamped(time, actor: ["alice", "bob", nil].randomElement(using: &rng)!)
                if ids.count < 40 && (ids.count < 5 || Int.random(in: 0..<4, using: &rng) == 0) {
                    ids.append(try store.add("label \(i)", isEnabled: Bool.random(using: &rng), options: options))
                    continue
                }
                let live = store.labels.map(\.id)
                guard let id = live.randomElement(using: &rng) else { continue }
                switch Int.random(in: 0..<12, using: &rng) {
                case 0..<4: try store.rename(id, to: "label \(i)", options: options)
                case 4..<7: try store.toggle(id, options: options)
                case 7..<9: try store.move(id, to: Int.random(in: 0..<live.count, using: &rng), options: options)
                case 9: try store.remove(id, options: options)
                case 10: _ = try? store.rename(ids.randomElement(using: &rng)!, to: "late \(i)", options: options)  // maybe a refused edit
                default: try store.reverse(options: options)
                }
            }
        }
        return ids
    }

    static func lastSeq(_ path: String) throws -> UInt64 {
        let reader = try LogReader(path: path)
        try reader.skip(toSeq: .max)
        return reader.nextSeq - 1
    }

    @Test(arguments: [(UInt64(21), false), (UInt64(22), true)])
    func checkpointedAnswersAreTheScannedAnswers(seed: UInt64, shuffledTimes: Bool) async throws {
        let scratch = try Scratch()
        let path = scratch.path("h.labellog")
        let ids = try Self.makeHistory(at: path, seed: seed, writes: 700, shuffledTimes: shuffledTimes)
        let last = try Self.lastSeq(path)
        let commands = Self.commands(path, last: last, ids: ids, seed: seed)
        let scanned = try await Self.run(commands, hook: false)
        #expect(scanned.contains { $0.stdout.contains("renamed") }, "the commands show nothing: the test proves nothing")

        let built = try await CLI.run(["index", path], environment: Self.hook)
        #expect(built.status == 0, "\(built)")
        #expect(built.stdout.contains("checkpoints (every 16 records)"), "\(built)")
        let checked = try await Self.expectSameAnswers(commands, scanned: scanned, "current checkpoints")
        #expect(
            checked.filter { $0.stderr.contains("(from the checkpoint at seq") }.count >= commands.count / 2, "checkpoints were not used")

        // Records appended after the checkpoints (a crash between an append and the update): a prefix is covered.
        try makeLog(at: path) { store in
            for i in 0..<10 { try store.add("late \(i)", options: stamped(20_000, actor: "late")) }
            for id in store.labels.map(\.id).prefix(10) { try store.toggle(id, options: stamped(20_001, actor: "late")) }
        }
        let longerLast = try Self.lastSeq(path)
        #expect(longerLast > last)
        let longer = Self.commands(path, last: longerLast, ids: ids, seed: seed + 100)
        try await Self.expectSameAnswers(longer, scanned: try await Self.run(longer, hook: false), "checkpoints of a prefix")

        // Extended, not rebuilt; --rebuild rebuilds.
        let extended = try await CLI.run(["index", path, "--json"], environment: Self.hook).json()
        let checkpoints = extended["checkpoints"] as? [String: Any]
        #expect(checkpoints?["previous"] as? String == "usable")
        #expect((checkpoints?["extendedFrom"] as? Int).map { $0 > 0 } == true, "\(extended)")
        #expect((checkpoints?["seqs"] as? [Int])?.last == Int(longerLast / 16 * 16))
        let rebuilt = try await CLI.run(["index", path, "--rebuild"], environment: Self.hook)
        #expect(rebuilt.stdout.contains("(built from seq 1)"), "\(rebuilt)")

        // Deleted: the scan, silently.
        try FileManager.default.removeItem(atPath: CheckpointFile.path(for: path))
        try await Self.expectSameAnswers(longer, scanned: try await Self.run(longer, hook: false), "no checkpoints")
    }

    @Test func damagedOrForeignCheckpointsAreReportedAndTheAnswerIsTheSame() async throws {
        let scratch = try Scratch()
        let path = scratch.path("h.labellog")
        let ids = try Self.makeHistory(at: path, seed: 31, writes: 300)
        let last = try Self.lastSeq(path)
        let commands = Array(Self.commands(path, last: last, ids: ids, seed: 31, count: 2).prefix(5))
        let scanned = try await Self.run(commands, hook: false)
        #expect(try await CLI.run(["index", path], environment: Self.hook).status == 0)
        let file = CheckpointFile.path(for: path)
        let good = try bytes(file)

        // Truncated every few bytes: header, directory, snapshots, removed sections.
        for cut in stride(from: 0, to: good.count, by: max(1, good.count / 9)) {
            try write(Array(good[..<cut]), to: file)
            try await Self.expectSameAnswers(commands, scanned: scanned, warning: "\(file): ", "cut at byte \(cut)")
        }
        // A bit flipped in the header, the directory, a snapshot, a removed section.
        var rng = SeededGenerator(seed: 32)
        for offset in [3, 20, 44, 60] + (0..<5).map({ _ in Int.random(in: 48..<good.count, using: &rng) }) {
            var flipped = good
            flipped[offset] ^= 0x10
            try write(flipped, to: file)
            let checked = try await Self.run(commands, hook: true)
            for (command, (a, b)) in zip(commands, zip(scanned, checked)) {
                #expect(a.stdout == b.stdout && a.status == b.status, "bit flip at \(offset): \(command.joined(separator: " "))")
            }
        }
        // Of another log.
        let other = scratch.path("other.labellog")
        _ = try Self.makeHistory(at: other, seed: 33, writes: 100)
        #expect(try await CLI.run(["index", other], environment: Self.hook).status == 0)
        try FileManager.default.copyItem(atPath: CheckpointFile.path(for: other), toPath: file + ".other")
        try FileManager.default.removeItem(atPath: file)
        try FileManager.default.moveItem(atPath: file + ".other", toPath: file)
        try await Self.expectSameAnswers(commands, scanned: scanned, warning: "checkpoints of another log", "foreign checkpoints")
    }

    @Test func checkpointsOfAHistoryTheLogNoLongerHoldsAreNotUsed() async throws {
        let scratch = try Scratch()
        let path = scratch.path("h.labellog")
        let ids = try Self.makeHistory(at: path, seed: 41, writes: 400)
        #expect(try await CLI.run(["index", path], environment: Self.hook).status == 0)
        let file = CheckpointFile.path(for: path)
        let kept = try bytes(file)
        // Cut back to seq 200 (as a repair would) and written again differently.
        let writer = try LogWriter.open(path: path)
        try writer.discardRecords(after: 200)
        writer.close()
        try makeLog(at: path) { store in
            for (i, id) in store.labels.map(\.id).enumerated() { try store.rename(id, to: "again \(i)", options: stamped(9_000)) }
        }
        try write(kept, to: file)
        let last = try Self.lastSeq(path)
        let commands = Self.commands(path, last: last, ids: ids, seed: 42, count: 4)
        let scanned = try await Self.run(commands, hook: false)
        let checked = try await Self.run(commands, hook: true)
        for (command, (a, b)) in zip(commands, zip(scanned, checked)) {
            #expect(a.stdout == b.stdout && a.status == b.status, "rewritten log: \(command.joined(separator: " "))")
        }
        let reported = checked.contains { $0.stderr.contains("is of a history the log does not hold") }
        #expect(reported || checked.allSatisfy { !$0.stderr.contains("(from the checkpoint at seq 2") }, "a stale checkpoint was used")
    }

    @Test func indexProcessesRunningAtOnceLeaveTheCheckpointsARebuildWrites() async throws {
        let scratch = try Scratch()
        let path = scratch.path("h.labellog")
        let ids = try Self.makeHistory(at: path, seed: 51, writes: 500)
        #expect(try await CLI.run(["index", path], environment: Self.hook).status == 0)
        try makeLog(at: path) { store in
            for i in 0..<150 { try store.add("late \(i)", options: stamped(20_000, actor: "late")) }
        }
        // Four updaters at once, in four processes, two of them with the default interval (each rewrites the
        // file from seq 1 while the others append): each waits for the file's lock.
        let running = try (0..<4).map { k in
            try CLI.start(["index", path] + (k == 3 ? ["--rebuild"] : []), environment: k % 2 == 0 ? Self.hook : [:])
        }
        for process in running {
            let result = try await process.wait()
            #expect(result.status == 0, "\(result)")
        }
        let file = CheckpointFile.path(for: path)
        let written = try bytes(file)
        let interval = written.count >= 40 ? written[32..<40].reversed().reduce(0) { $0 << 8 | UInt64($1) } : 0
        #expect(interval == 16 || interval == CheckpointFile.defaultInterval)
        let rebuilt = try await CLI.run(["index", path, "--rebuild"], environment: interval == 16 ? Self.hook : [:])
        #expect(rebuilt.status == 0 && rebuilt.stderr.isEmpty, "\(rebuilt)")
        #expect(try bytes(file) == written, "the file is the one a rebuild writes")
        #expect(try await CLI.run(["index", path], environment: Self.hook).status == 0)
        let last = try Self.lastSeq(path)
        let commands = Array(Self.commands(path, last: last, ids: ids, seed: 52, count: 2).prefix(4))
        try await Self.expectSameAnswers(commands, scanned: try await Self.run(commands, hook: false), "after concurrent updates")
    }
}
