import EventLog
import Foundation
import LabelProjection
import LabelStoreTestSupport
import Testing

/// A history that was cut reads as the history it was: every read command,
/// and the store's history reads, answer on a log cut once, twice or three
/// times (with its archives beside it) exactly as on an uncut copy of it —
/// for cuts at seq 1, 2, a checkpoint's seq and the seqs around it, and the
/// last seq. The commands are listed once here: a command added to the tool
/// belongs in ``commands(_:ids:last:)``.
@Suite struct CutHistoryTests {
    static let writes = 400

    /// Every read command, with arguments reaching before, across and after the cuts.
    static func commands(_ path: String, ids: [LabelID], last: UInt64) -> [[String]] {
        let one = ids[2].description
        let prefix = String(ids[1].description.prefix(8))
        var commands: [[String]] = [
            ["show", path, "--json"], ["show", path, "--at", "0", "--json"], ["show", path, "--at", "1", "--json"],
            ["show", path, "--at-time", at(40).iso8601, "--json"], ["show", path, "--at-time", at(Int64(last) / 2).iso8601],
            ["show", path, "--at", String(last / 3), "--enabled-only", "--json"],
            ["diff", path, "1", String(last), "--json"], ["diff", path, "3", String(last / 2)],
            ["log", path, "--json"], ["log", path, "--from", "2", "--to", String(last / 2)], ["log", path, "-n", "5"],
            ["log", path, "--label", one, "--json"], ["log", path, "--label", prefix], ["log", path, "--actor", "bob", "--json"],
            ["log", path, "--since", at(30).iso8601, "--until", at(200).iso8601, "--json"], ["log", path, "--kind", "removed"],
            ["trace", path, "--to", String(last / 2), "--json"], ["trace", path, "--label", prefix, "--json"],
            ["export", path], ["export", path, "--from", "1", "--to", String(last / 2)],
            ["head", path], ["head", path, "--at", "1"], ["head", path, "--at", String(last / 2)],
            ["prove", path, "1", "--json"], ["prove", path, String(last / 2), "--at", String(last - 1), "--json"],
            ["prove", path, "--extends", "PLACEHOLDER", "--json"]
        ]
        commands.removeLast()  // `--extends` needs a head: added by the caller once it has one
        return commands
    }

    /// The outputs of every command on `path`, with `path` itself written as `LOG`.
    static func answers(_ path: String, ids: [LabelID], last: UInt64, extending head: String) async throws -> [String] {
        var outputs: [String] = []
        for arguments in commands(path, ids: ids, last: last) + [["prove", path, "--extends", head, "--json"]] {
            let result = try await CLI.run(arguments, environment: ["LABELREPLAY_TEST_INDEX": "always"])
            #expect(result.status == 0, "\(result)")
            outputs.append(
                "\(arguments.dropFirst(2).joined(separator: " ")) → \(result.status)\n"
                    + result.stdout.replacingOccurrences(of: path, with: "LOG"))
        }
        return outputs
    }

    /// A history of `writes` random edits (``HistoryIndexCommandTests/makeHistory(at:seed:writes:)``)
    /// in the directory `uncut` of `scratch`: the reference the cut copies are compared with.
    static func reference(in scratch: Scratch, seed: UInt64, writes: Int) throws -> (path: String, ids: [LabelID]) {
        try FileManager.default.createDirectory(atPath: scratch.path("uncut"), withIntermediateDirectories: true)
        let path = scratch.path("uncut/h.labellog")
        return (path, try HistoryIndexCommandTests.makeHistory(at: path, seed: seed, writes: writes))
    }

    /// A copy of the history at `reference` in a directory of its own, cut before each of `cuts` in turn.
    static func cutCopy(of reference: String, in scratch: Scratch, name: String, cuts: [UInt64]) async throws -> String {
        let directory = scratch.path(name)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/h.labellog"
        try FileManager.default.copyItem(atPath: reference, toPath: path)
        for before in cuts {
            let cut = try await CLI.run(["archive", path, "--before", String(before)])
            #expect(cut.status == 0, "\(cut)")
        }
        return path
    }

    @Test(arguments: [[2], [3], [16], [17], [18], [UInt64(writes) + 1], [100, 250], [40, 200, 330]] as [[UInt64]])
    func everyCommandAnswersOnACutHistoryAsOnTheUncutOne(cuts: [UInt64]) async throws {
        let scratch = try Scratch()
        let (reference, ids) = try Self.reference(in: scratch, seed: 43, writes: Self.writes)
        let last = try LogReader.readAll(path: reference).0.last!.seq
        let head = try await CLI.run(["head", reference, "--at", String(last / 4)]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let expected = try await Self.answers(reference, ids: ids, last: last, extending: head)
        let cuts = cuts.map { min($0, last + 1) }  // the last case cuts every record
        let path = try await Self.cutCopy(of: reference, in: scratch, name: "cut", cuts: cuts)
        let got = try await Self.answers(path, ids: ids, last: last, extending: head)
        for (want, answer) in zip(expected, got) { #expect(answer == want) }

        // The store's history reads: every seq, and a time in each part.
        let uncut = try await LabelStore.open(path: reference, options: .init(createIfMissing: false))
        let store = try await LabelStore.open(path: path, options: .init(createIfMissing: false))
        defer {
            uncut.close()
            store.close()
        }
        for seq in Set([0, 1, 2, 15, 16, 17, last / 2, last - 1, last] + cuts.flatMap { [$0 - 2, $0 - 1, $0] }) where seq <= last {
            #expect(try store.state(atSeq: seq) == uncut.state(atSeq: seq), "state at \(seq)")
            #expect(try store.historyHead(atSeq: seq) == uncut.historyHead(atSeq: seq), "head at \(seq)")
            #expect(try store.consistencyProof(from: seq) == uncut.consistencyProof(from: seq), "consistency from \(seq)")
            if seq >= 1 {
                #expect(try store.inclusionProof(ofSeq: seq) == uncut.inclusionProof(ofSeq: seq), "inclusion of \(seq)")
            }
        }
        for seconds in [Int64(0), 1, 20, 120, 300] {
            #expect(try store.state(atTime: at(seconds)) == uncut.state(atTime: at(seconds)), "state at +\(seconds)s")
        }
        #expect(try store.history().firstHeldSeq() == 1)
        // Subscribing from a seq: the history's notifications, then live, as on the uncut log.
        for seq in Set([1, 2, last / 2, last] + cuts.flatMap { [$0 - 1, $0] }) where seq >= 1 && seq <= last {
            let got = try await Self.notifications(store, from: seq, through: last)
            #expect(got == (try await Self.notifications(uncut, from: seq, through: last)), "changes from \(seq)")
            #expect(got.first?.seq == seq && got.last?.seq == last, "changes from \(seq)")
        }
    }

    /// The records and labels after them that `store.changes(for: .everything, from: seq)`
    /// delivers through `last` (fewer when the stream ends early).
    static func notifications(_ store: LabelStore, from seq: UInt64, through last: UInt64) async throws -> [EventRecord] {
        var records: [EventRecord] = []
        for await notification in try store.changes(for: .everything, from: seq) {
            records.append(notification.change.record)
            if notification.seq >= last { break }
        }
        return records
    }

    /// `revert` of an archived seq appends the undo of that seq (as on the uncut log), never of
    /// another: it read the cut log's first record instead. Without the archive it is refused,
    /// naming the archive, and nothing is appended.
    /// An archive gets its history index at the cut (it never changes), and a
    /// query by label, actor or time over archived seqs reads each part
    /// through its index — the same records and titles as the uncut log, which
    /// a full read of the archives gave before (issue 43, item 9).
    @Test func labelAndActorQueriesOverArchivedSeqsReadEachPartThroughItsIndex() async throws {
        let scratch = try Scratch()
        let (reference, ids) = try Self.reference(in: scratch, seed: 9, writes: Self.writes)
        let path = try await Self.cutCopy(of: reference, in: scratch, name: "cut", cuts: [100, 250])
        let directory = scratch.path("cut")
        let indexes = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".labellog.index") }
        #expect(indexes.count == 2, "each archive has its index from the cut: \(indexes)")
        _ = try await CLI.run(["index", reference])
        _ = try await CLI.run(["index", path])
        for arguments in [
            ["log", "PATH", "--label", ids[2].description], ["log", "PATH", "--label", ids[1].description, "--json"],
            ["log", "PATH", "--actor", "bob", "-n", "7"], ["log", "PATH", "--since", at(30).iso8601, "--until", at(200).iso8601]
        ] {
            let cut = try await CLI.run(arguments.map { $0 == "PATH" ? path : $0 }, environment: ["LABELREPLAY_TEST_INDEX": "always"])
            let uncut = try await CLI.run(
                arguments.map { $0 == "PATH" ? reference : $0 }, environment: ["LABELREPLAY_TEST_INDEX": "always"])
            #expect(cut.status == 0 && cut.stdout == uncut.stdout.replacingOccurrences(of: reference, with: path), "\(arguments)")
            let throughIndexes = cut.stderr.components(separatedBy: "(read through the history index)").count - 1
            #expect(throughIndexes == 3, "two archives and the log, each through its index: \(cut.stderr)")
        }
    }

    @Test func revertOfAnArchivedSeqUndoesThatSeq() async throws {
        let scratch = try Scratch()
        let reference = try Self.reference(in: scratch, seed: 7, writes: Self.writes).path
        let path = try await Self.cutCopy(of: reference, in: scratch, name: "cut", cuts: [300])
        // The first seqs whose revert the uncut log accepts.
        var reverted = 0
        for seq in 1...60 where reverted < 3 {
            let want = try await CLI.run(["revert", reference, String(seq), "--json"])
            let got = try await CLI.run(["revert", path, String(seq), "--json"])
            #expect(got.status == want.status && got.stderr.replacingOccurrences(of: path, with: reference) == want.stderr, "\(got)")
            guard want.status == 0 else { continue }
            reverted += 1
            let wanted = try await CLI.run(["log", reference, "-n", "1", "--json"]).json()
            let appended = try await CLI.run(["log", path, "-n", "1", "--json"]).json()
            for key in ["kind", "id", "title", "oldTitle", "isEnabled", "index", "from", "to", "note", "seq"] {
                #expect(String(describing: appended[key]) == String(describing: wanted[key]), "revert \(seq): \(key)")
            }
        }
        #expect(reverted == 3)
        let archive = scratch.path("cut/h.1-299.labellog")
        try FileManager.default.moveItem(atPath: archive, toPath: scratch.path("away"))
        let before = try bytes(path)
        let refused = try await CLI.run(["revert", path, "5"])
        #expect(refused.status == 1 && refused.stderr.contains("seq 5 is archived in \(archive)"), "\(refused)")
        #expect(try bytes(path) == before)
    }

    /// `show --at-time` for a time inside the archived range answers from the archive, and
    /// without it is refused naming the archive (it answered for the cut seq, exit 0).
    @Test func showAtATimeInsideTheArchiveAnswersFromIt() async throws {
        let scratch = try Scratch()
        let reference = try Self.reference(in: scratch, seed: 8, writes: 300).path
        let path = try await Self.cutCopy(of: reference, in: scratch, name: "cut", cuts: [201])
        let want = try await CLI.run(["show", reference, "--at-time", at(100).iso8601, "--json"]).json()
        let got = try await CLI.run(["show", path, "--at-time", at(100).iso8601, "--json"]).json()
        #expect(got["seq"] as? Int == want["seq"] as? Int && rows(got) == rows(want), "\(got)")
        try FileManager.default.removeItem(atPath: scratch.path("cut/h.1-200.labellog"))
        let refused = try await CLI.run(["show", path, "--at-time", at(100).iso8601])
        #expect(refused.status == 1 && refused.stderr.contains("is archived in"), "\(refused)")
        // A time after every archived record needs no archive.
        let after = try await CLI.run(["show", path, "--at-time", at(250).iso8601, "--json"])
        #expect(after.status == 0, "\(after)")
    }

    /// An archive that is not the one the base names is never read: truncated by a record,
    /// a byte changed in its last record, the same history cut at another seq under the
    /// expected name, or its records' hashes not the base's frontier.
    @Test func aMismatchedArchiveIsRefusedByEveryReadThatReachesIt() async throws {
        let scratch = try Scratch()
        let reference = try Self.reference(in: scratch, seed: 9, writes: 300).path
        let path = try await Self.cutCopy(of: reference, in: scratch, name: "cut", cuts: [201])
        let archive = scratch.path("cut/h.1-200.labellog")
        let good = try bytes(archive)
        let other = try await Self.cutCopy(of: reference, in: scratch, name: "other", cuts: [181])
        let lastFrame = try #require(try LogReader.readAll(path: archive).0.count > 0 ? lastFrameOffset(archive) : nil)
        var flipped = good
        flipped[good.count - 3] ^= 0x20
        let variants: [(String, [UInt8])] = [
            ("truncated", Array(good[..<lastFrame])), ("flipped", flipped),
            ("cut elsewhere", try bytes(other.replacingOccurrences(of: "h.labellog", with: "h.1-180.labellog")))
        ]
        let reads: [[String]] = [
            ["show", path, "--at", "100"], ["log", path, "--from", "198", "--to", "202"], ["export", path, "--to", "150"],
            ["head", path, "--at", "100"], ["trace", path, "--to", "150"], ["prove", path, "50"], ["revert", path, "50"],
            ["show", path, "--at-time", at(100).iso8601]
        ]
        for (what, content) in variants {
            try write(content, to: archive)
            for arguments in reads {
                let result = try await CLI.run(arguments)
                #expect(result.status == 1, "\(what): \(result)")
                #expect(result.stdout.isEmpty, "\(what): printed before the check: \(result)")
            }
        }
        try write(good, to: archive)
        for arguments in reads.dropLast(2) { #expect(try await CLI.run(arguments).status == 0) }
    }

    /// The byte offset of the last frame of the log at `path`.
    func lastFrameOffset(_ path: String) throws -> Int {
        let reader = try LogReader(path: path)
        var offset = 0
        while try reader.next() != nil { offset = Int(try #require(reader.lastPosition).offset) }
        return offset
    }

    /// `archive --to` with a relative directory records the archive from the log's directory,
    /// and a second cut to yet another directory names the first archive from its own.
    @Test func aRelativeArchiveDirectoryIsFollowedFromTheLog() async throws {
        let scratch = try Scratch()
        try FileManager.default.createDirectory(atPath: scratch.path("d/old"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: scratch.path("e"), withIntermediateDirectories: true)
        let reference = scratch.path("h.labellog")
        _ = try HistoryIndexCommandTests.makeHistory(at: reference, seed: 10, writes: 300)
        try FileManager.default.copyItem(atPath: reference, toPath: scratch.path("d/o.labellog"))
        let first = try await CLI.run(["archive", "d/o.labellog", "--before", "101", "--to", "d/old"], in: scratch.url)
        #expect(first.status == 0, "\(first)")
        let second = try await CLI.run(
            ["archive", "o.labellog", "--before", "201", "--to", "../e"], in: scratch.url.appendingPathComponent("d"))
        #expect(second.status == 0, "\(second)")
        let want = try await CLI.run(["log", reference, "--json"])
        let got = try await CLI.run(["log", "d/o.labellog", "--json"], in: scratch.url)
        #expect(got.status == 0 && got.stdout == want.stdout, "\(got)")
        let alone = try await CLI.run(["show", "e/o.101-200.labellog", "--at", "50", "--json"], in: scratch.url)
        let uncut = try await CLI.run(["show", reference, "--at", "50", "--json"])
        #expect(alone.status == 0 && alone.stdout == uncut.stdout, "\(alone)")
    }

    /// `head --at` and `prove` of a seq whose archive is missing name the archive file.
    @Test func aMissingArchiveIsNamedByHeadAndProve() async throws {
        let scratch = try Scratch()
        let path = scratch.path("h.labellog")
        _ = try HistoryIndexCommandTests.makeHistory(at: path, seed: 11, writes: 200)
        #expect(try await CLI.run(["archive", path, "--before", "101"]).status == 0)
        let archive = scratch.path("h.1-100.labellog")
        try FileManager.default.removeItem(atPath: archive)
        for arguments in [["head", path, "--at", "50"], ["prove", path, "50"], ["prove", path, "120", "--at", "60"]] {
            let result = try await CLI.run(arguments)
            #expect(result.status == 1 && result.stderr.contains(archive), "\(result)")
        }
        #expect(try await CLI.run(["head", path, "--at", "100"]).status == 0, "the base's frontier gives the head at the cut")
    }
}
