import EventLog
import Foundation
import LabelProjection
import LabelStoreTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `verify`, `repair`, and every command's behaviour on damaged, foreign or missing files.
@Suite struct IntegrityTests {
    /// A 7-record log (see ``ReadCommandTests/history(at:)``).
    static func sevenRecords(at path: String) throws { try ReadCommandTests.history(at: path) }

    @Test func verifyPassesASoundLog() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try Self.sevenRecords(at: log)
        async let text = CLI.run(["verify", log])
        async let json = CLI.run(["verify", log, "--json"])
        let result = try await text
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result)")
        #expect(result.stdout.contains("ok: framing, checksums, seq continuity and every event are sound"))
        let report = try await json.json()
        #expect(report["ok"] as? Bool == true && report["records"] as? Int == 7 && report["lastSeq"] as? Int == 7)
        #expect(report["fileSize"] as? Int == report["validLength"] as? Int)
        #expect(report["count"] as? Int == 2 && report["enabledCount"] as? Int == 1)
        #expect((report["header"] as? [String: Any])?["version"] as? Int == 2)
        #expect(report["problem"] == nil && report["tornTail"] == nil)
    }

    @Test func aTornTailIsAWarningAndRepairCutsItKeepingABackup() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try Self.sevenRecords(at: log)
        let whole = try bytes(log)
        let torn = Array(whole.dropLast(3))
        try write(torn, to: log)

        async let verify = CLI.run(["verify", log])
        async let json = CLI.run(["verify", log, "--json"])
        async let show = CLI.run(["show", log, "--json"])
        let checked = try await verify
        #expect(checked.status == 0, "a torn tail alone still exits 0: \(checked)")
        #expect(checked.stderr.contains("warning:") && checked.stderr.contains("torn tail"), "\(checked)")
        let report = try await json.json()
        let tail = try #require(report["tornTail"] as? [String: Any])
        #expect(report["ok"] as? Bool == true && report["lastSeq"] as? Int == 6)
        #expect(tail["bytes"] as? Int == torn.count - (report["validLength"] as? Int ?? 0))
        let shown = try await show
        let shownList = try shown.json()
        #expect(shown.status == 0 && shownList["seq"] as? Int == 6)
        #expect(shown.stderr.contains("not a complete record"))

        let repair = try await CLI.run(["repair", log])
        #expect(repair.status == 0, "\(repair)")
        let backups = scratch.files.filter { $0.hasPrefix("l.labellog.bak-") }
        try #require(backups.count == 1, "\(scratch.files)")
        #expect(try bytes(scratch.path(backups[0])) == torn, "the backup holds the original bytes")
        #expect(try bytes(log).count == tail["offset"] as? Int)
        #expect(repair.stdout.contains(backups[0]))
        let after = try await CLI.run(["verify", log])
        #expect(after.status == 0 && after.stderr.isEmpty)
        let again = try await CLI.run(["repair", log])
        #expect(again.status == 0 && again.stdout.contains("nothing to repair"))
        #expect(scratch.files.filter { $0.hasPrefix("l.labellog.bak-") }.count == 1)
    }

    @Test func aFlippedByteInTheMiddleIsCorruption() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try Self.sevenRecords(at: log)
        var damaged = try bytes(log)
        damaged[damaged.count / 2] ^= 0x5A
        try write(damaged, to: log)

        async let verify = CLI.run(["verify", log])
        async let json = CLI.run(["verify", log, "--json"])
        async let show = CLI.run(["show", log])
        async let logged = CLI.run(["log", log])
        async let stats = CLI.run(["stats", log])
        async let written = CLI.run(["rename", log, testID(1).description, "X"])
        let checked = try await verify
        #expect(checked.status == 1)
        #expect(checked.stderr.contains("error:") && checked.stderr.contains("byte offset") && checked.stderr.contains("seq"), "\(checked)")
        let report = try await json.json()
        #expect(report["ok"] as? Bool == false)
        let problem = try #require(report["problem"] as? [String: Any])
        #expect(problem["kind"] as? String == "frame" && problem["code"] as? String == "corruptRecord")
        let offset = try #require(problem["offset"] as? Int)
        #expect(offset > 64 && offset <= damaged.count / 2)
        #expect(problem["seq"] as? Int == (report["lastSeq"] as? Int ?? -1) + 1)
        for result in [try await show, try await logged, try await stats, try await written] {
            #expect(result.status == 1, "\(result)")
            #expect(result.stderr.contains("byte offset \(offset)"), "names the offset: \(result)")
        }

        let refused = try await CLI.run(["repair", log])
        #expect(refused.status == 1 && refused.stderr.contains("--salvage"), "\(refused)")
        #expect(try bytes(log) == damaged, "repair without --salvage touches nothing")
        let salvaged = try await CLI.run(["repair", log, "--salvage"])
        #expect(salvaged.status == 0, "\(salvaged)")
        #expect(try bytes(log).count == offset)
        let backup = try #require(scratch.files.first { $0.hasPrefix("l.labellog.bak-") })
        #expect(try bytes(scratch.path(backup)) == damaged)
        #expect(scratch.files.contains { $0.hasPrefix("l.labellog.salvaged-") })
        #expect(try await CLI.run(["verify", log]).status == 0)
    }

    @Test func anEventThatContradictsTheStateIsFoundByVerify() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try makeContradictingLog(at: log)
        let report = try await CLI.run(["verify", log, "--json"]).json()
        let problem = try #require(report["problem"] as? [String: Any])
        #expect(problem["kind"] as? String == "event" && problem["seq"] as? Int == 4 && problem["code"] as? String == "titleMismatch")
        // The offset is the contradicting record's frame (verify reads records decoded in place).
        let reader = try LogReader(path: log)
        for _ in 0..<3 { _ = try reader.next() }
        #expect(problem["offset"] as? Int == Int(reader.offset), "\(problem)")
        let text = try await CLI.run(["verify", log])
        #expect(text.status == 1 && text.stderr.contains("seq 4") && text.stderr.contains("contradicts"), "\(text)")
        let show = try await CLI.run(["show", log])
        #expect(show.status == 1 && show.stderr.contains("seq 4"), "\(show)")
        let listed = try await CLI.run(["log", log])
        #expect(listed.status == 0 && listed.lines.count == 5, "log still lists every event: \(listed)")
    }

    @Test func preallocatedZerosAreNotATornTailButZerosBeforeGoodRecordsAreCorruption() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try makeGridTileRing(at: log)
        let sound = try bytes(log)
        // A writer that died leaves its preallocated space: zeros after the records.
        try Data(sound + [UInt8](repeating: 0, count: 4096)).write(to: URL(fileURLWithPath: log))
        let verify = try await CLI.run(["verify", log, "--json"]).json()
        #expect(verify["ok"] as? Bool == true && verify["tornTail"] == nil, "\(verify)")
        let stats = try await CLI.run(["stats", log, "--json"]).json()
        #expect(stats["tailBytes"] as? Int == 0)
        // The same zeros followed by a good record: the zeros hide damage.
        try Data(sound + [UInt8](repeating: 0, count: 64) + sound[64...]).write(to: URL(fileURLWithPath: log))
        let damaged = try await CLI.run(["verify", log])
        #expect(damaged.status == 1 && damaged.stderr.contains("byte offset \(sound.count)"), "\(damaged)")
    }

    @Test func repairNeverOverwritesAnExistingBackup() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try makeGridTileRing(at: log)
        var torn = try bytes(log)
        torn += [7, 0, 0, 0, 1, 2]
        try Data(torn).write(to: URL(fileURLWithPath: log))
        let backup = scratch.path("precious.bak")
        try Data("an older backup".utf8).write(to: URL(fileURLWithPath: backup))
        let refused = try await CLI.run(["repair", log, "--backup", backup])
        #expect(refused.status == 1 && refused.stderr.contains("never overwrites"), "\(refused)")
        #expect(try String(contentsOfFile: backup, encoding: .utf8) == "an older backup")
        #expect(try bytes(log) == torn, "a refused repair changed the log")
        let fresh = scratch.path("fresh.bak")
        let repaired = try await CLI.run(["repair", log, "--backup", fresh])
        #expect(repaired.status == 0, "\(repaired)")
        #expect(try bytes(fresh) == torn)
    }

    @Test func repairRefusesAnInconsistentEventAndSalvageKeepsTheRecordsBeforeIt() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try makeGridTileRing(at: log)
        let writer = try LogWriter.open(path: log)
        try writer.append([
            LogEntry(.renamed(id: testID(1), oldTitle: "Not Grid", newTitle: "X")),
            LogEntry(.toggled(id: testID(1), isEnabled: false))
        ])
        writer.close()
        let damaged = try bytes(log)
        let refused = try await CLI.run(["repair", log])
        #expect(refused.status == 1 && refused.stderr.contains("seq 4") && refused.stderr.contains("--salvage"), "\(refused)")
        #expect(try bytes(log) == damaged, "a refused repair changed the file")
        let salvaged = try await CLI.run(["repair", log, "--salvage"])
        #expect(salvaged.status == 0 && salvaged.stdout.contains("ends at seq 3"), "\(salvaged)")
        let backup = try #require(scratch.files.first { $0.hasPrefix("l.labellog.bak-") })
        #expect(try bytes(scratch.path(backup)) == damaged)
        #expect(try await CLI.run(["verify", log]).status == 0)
        #expect(try await CLI.run(["show", log, "--json"]).json()["count"] as? Int == 3)
    }

    /// Regression: a salvage of a log with an inconsistent event (seq 4) and later framing damage
    /// (seq 6, with seq 7 good after it) reopened the log in the default recovery mode, which refuses
    /// mid-log damage, so it exited 1 and left a new backup file on every attempt.
    @Test func salvageKeepsThePrefixBeforeAnInconsistentEventFollowedByFramingDamageInOneAttempt() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try makeGridTileRing(at: log)
        let writer = try LogWriter.open(path: log)
        try writer.append([LogEntry(.renamed(id: testID(1), oldTitle: "Not Grid", newTitle: "X"))])
        for enabled in [false, true, false] { try writer.append([LogEntry(.toggled(id: testID(2), isEnabled: enabled))]) }
        writer.close()
        var offsets: [UInt64: Int] = [:]
        let reader = try LogReader(path: log)
        while true {
            let offset = Int(reader.offset)
            guard let record = try reader.next() else { break }
            offsets[record.seq] = offset
        }
        #expect(offsets.count == 7)
        var damaged = try bytes(log)
        let six = try #require(offsets[6]), seven = try #require(offsets[7])
        damaged[(six + seven) / 2] ^= 0x5A
        try write(damaged, to: log)

        let refused = try await CLI.run(["repair", log])
        #expect(refused.status == 1 && refused.stderr.contains("seq 4") && refused.stderr.contains("--salvage"), "\(refused)")
        #expect(try bytes(log) == damaged && scratch.files == ["l.labellog"], "a refused repair changed nothing")
        let salvaged = try await CLI.run(["repair", log, "--salvage"])
        #expect(salvaged.status == 0 && salvaged.stdout.contains("ends at seq 3"), "\(salvaged)")
        #expect(salvaged.stdout.contains("seq 4") && salvaged.stdout.contains("damage at byte offset \(six)"), "\(salvaged)")
        let backups = scratch.files.filter { $0.hasPrefix("l.labellog.bak-") }
        #expect(backups.count == 1, "one backup: \(scratch.files)")
        if let backup = backups.first { #expect(try bytes(scratch.path(backup)) == damaged) }
        #expect(try bytes(log).count == (offsets[4] ?? 0))
        #expect(try await CLI.run(["verify", log]).status == 0)
        #expect(try await CLI.run(["show", log, "--json"]).json()["count"] as? Int == 3)
        let again = try await CLI.run(["repair", log, "--salvage"])
        #expect(again.status == 0 && again.stdout.contains("nothing to repair"), "\(again)")
        #expect(scratch.files.filter { $0.hasPrefix("l.labellog.bak-") }.count == 1)
    }

    /// A repair that fails after copying the backup (here: another writer holds the log's lock)
    /// changed nothing, so it must not leave the copy behind either.
    @Test func aFailedRepairLeavesNoBackupBehind() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try makeGridTileRing(at: log)
        let sound = try bytes(log)
        let inconsistent: [UInt8] = try {
            let writer = try LogWriter.open(path: log)
            try writer.append([LogEntry(.renamed(id: testID(1), oldTitle: "Not Grid", newTitle: "X"))])
            writer.close()
            return try bytes(log)
        }()
        var corrupt = sound
        corrupt[sound.count - 20] ^= 0x5A
        corrupt += sound[64...]
        let torn = sound + [7, 0, 0, 0, 1, 2]
        for (content, arguments) in [(torn, ["repair"]), (corrupt, ["repair", "--salvage"]), (inconsistent, ["repair", "--salvage"])] {
            try write(content, to: log)
            let holder = try SystemFile.open(log, .readWrite)
            defer { holder.close() }
            // The previous round's lock can outlive its close() for a moment: a child process
            // another test is spawning at that instant (clone, then exec) holds a copy of every
            // descriptor until its exec closes them, flock's included. So wait for it briefly.
            var locked = try holder.tryLockExclusive()
            for _ in 0..<500 where !locked {
                try await Task.sleep(for: .milliseconds(10))
                locked = try holder.tryLockExclusive()
            }
            #expect(locked, "the test could not take the log's lock to play the other writer")
            let failed = try await CLI.run(arguments + [log])
            #expect(failed.status == 1 && failed.stderr.contains("in use"), "\(failed)")
            #expect(scratch.files == ["l.labellog"], "\(arguments): \(scratch.files)")
            #expect(try bytes(log) == content)
        }
    }

    /// Regression: a log path naming a FIFO made every reading command block forever in `open`.
    /// A FIFO or a directory is refused at once, by every command, naming the path and what it is.
    @Test(arguments: ["FIFO", "directory"])
    func aLogPathThatIsNotARegularFileIsRefusedByEveryCommandWithoutBlocking(_ kind: String) async throws {
        let scratch = try Scratch()
        let path = scratch.path("special.labellog")
        if kind == "FIFO" {
            try #require(mkfifo(path, 0o644) == 0)
        } else {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        }
        let commands = [
            ["verify", path], ["show", path], ["log", path], ["log", path, "--follow"], ["stats", path],
            ["export", path], ["trace", path], ["diff", path, "0", "1"], ["repair", path],
            ["repair", path, "--salvage"], ["add", path, "X"], ["snapshot", path], ["import", path, "-"]
        ]
        try await withThrowingTaskGroup(of: CLIResult.self) { group in
            for command in commands {
                group.addTask {
                    try await CLI.run(
                        command, stdin: Data(#"{"kind":"toggled","id":"00000000-0000-4000-8000-000000000001","isEnabled":true}"#.utf8),
                        atMost: .seconds(30))
                }
            }
            for try await result in group {
                #expect(result.status == 1, "\(result)")
                #expect(
                    result.stderr.contains(path) && result.stderr.contains("not a regular file") && result.stderr.contains(kind),
                    "\(result)")
            }
        }
        let json = try await CLI.run(["verify", path, "--json"], atMost: .seconds(30)).json()
        let problem = json["problem"] as? [String: Any]
        #expect(problem?["kind"] as? String == "file" && problem?["code"] as? String == "notARegularFile", "\(json)")
        #expect(scratch.files == ["special.labellog"], "nothing was created beside it: \(scratch.files)")
    }

    @Test(arguments: [
        ("notalog", "not a label log"),
        ("", "the file is empty"),
        ("LABELLOG" + String(repeating: "\u{0}", count: 56), "header checksum")
    ])
    func foreignFilesAreRefusedClearly(_ content: String, _ message: String) async throws {
        let scratch = try Scratch()
        let path = scratch.path("foreign.labellog")
        try write(Array(content.utf8), to: path)
        for command in [
            ["show", path], ["log", path], ["verify", path], ["stats", path], ["export", path],
            ["rename", path, "abcd", "X"], ["add", path, "X"], ["repair", path]
        ] {
            let result = try await CLI.run(command)
            #expect(result.status == 1, "\(result)")
            #expect(result.stderr.contains(message) && result.stderr.contains(path), "\(result)")
        }
        #expect(try bytes(path) == Array(content.utf8), "nothing touched the file")
        let report = try await CLI.run(["verify", path, "--json"]).json()
        #expect((report["problem"] as? [String: Any])?["kind"] as? String == "header")
    }

    @Test func missingFilesAreNamed() async throws {
        let scratch = try Scratch()
        let path = scratch.path("nope.labellog")
        for command in [
            ["show", path], ["log", path], ["diff", path, "0", "1"], ["trace", path], ["verify", path],
            ["stats", path], ["export", path], ["repair", path], ["import", scratch.path("x.labellog"), path]
        ] {
            let result = try await CLI.run(command)
            #expect(result.status == 1, "\(result)")
            #expect(result.stderr.contains("\(path): no such file"), "\(result)")
        }
        #expect(scratch.files.isEmpty)
    }

    @Test func progressStaysOffWhenStderrIsNotATerminal() async throws {
        let scratch = try Scratch()
        let log = scratch.path("big.labellog")
        try makeLog(at: log) { store in
            try store.execute(batch: (0..<20_000).map { .add(title: "Label \($0)", isEnabled: $0 % 2 == 0) })
            try store.reverse()
        }
        async let verify = CLI.run(["verify", log])
        async let stats = CLI.run(["stats", log, "--json"])
        async let show = CLI.run(["show", log, "--query", "Label 19999", "--json"])
        let verified = try await verify
        #expect(verified.status == 0 && verified.stderr.isEmpty, "\(verified.stderr)")
        #expect(try await stats.json()["records"] as? Int == 20_001)
        let shown = try await show
        #expect(shown.stderr.isEmpty)
        #expect((try shown.json()["labels"] as? [[String: Any]])?.first?["position"] as? Int == 0)
    }
}
