import EventLog
import Foundation
import LabelProjection
import LabelStoreTestSupport
import Testing

/// `head`, `prove`, `check-proof` and `verify --head`: a head kept elsewhere
/// catches a rewritten history, and proofs check without the log.
@Suite struct HistoryHeadCommandTests {
    /// A log of `count` labels added one by one, then renamed.
    static func history(at path: String, count: Int = 12) throws {
        try makeLog(at: path) { store in
            for n in 0..<count { _ = try store.add("Label \(n)", options: stamped(Int64(n), actor: "ana")) }
            for label in store.labels.prefix(count / 2) {
                try store.rename(label.id, to: label.title + " renamed", options: stamped(100, actor: "bo"))
            }
        }
    }

    /// The same records at `path`, with record `seq`'s actor changed, written
    /// as a sound log (every checksum computed after the change): what anyone
    /// who can write the file can do.
    static func forge(_ source: String, to path: String, changing seq: UInt64) throws {
        let reader = try LogReader(path: source)
        var entries: [LogEntry] = []
        while let record = try reader.next() {
            entries.append(
                LogEntry(record.event, timestamp: record.timestamp, actor: record.seq == seq ? "mallory" : record.actor, note: record.note))
        }
        let writer = try LogWriter.open(path: path, options: .init(durability: .noSync, createIfMissing: true))
        defer { writer.close() }
        for entry in entries { _ = try writer.append(entry) }
    }

    @Test func headProveAndCheckProofAgreeAndEveryAlteredProofFails() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try Self.history(at: log)
        let text = try await CLI.run(["head", log, "--at", "10"])
        #expect(text.status == 0, "\(text)")
        let head = try #require(HistoryHead(parsing: text.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(head.seq == 10)
        #expect(head == (try HistoryProver.head(of: HistoryRecords(path: log), atSeq: 10)))
        let json = try await CLI.run(["head", log, "--json"]).json()
        #expect(json["seq"] as? Int == 18 && json["head"] as? String == "18:" + (json["hash"] as? String ?? ""))

        for seq in [1, 7, 10] {
            let proved = try await CLI.run(["prove", log, String(seq), "--head", head.description, "--json"])
            #expect(proved.status == 0, "\(proved)")
            let file = scratch.path("proof-\(seq).json")
            try Data(proved.stdout.utf8).write(to: URL(fileURLWithPath: file))
            let checked = try await CLI.run(["check-proof", file, "--head", head.description])
            #expect(checked.status == 0 && checked.stdout.contains("ok: record \(seq) is in the history under head \(head)"), "\(checked)")
            let piped = try await CLI.run(["check-proof", "-", "--head", head.description, "--json"], stdin: Data(proved.stdout.utf8))
                .json()
            #expect(piped["ok"] as? Bool == true && piped["trusted"] as? Bool == true)
            #expect((piped["record"] as? [String: Any])?["seq"] as? Int == seq)

            // Every hash of the path, and the payload, altered one at a time: each fails.
            var document = try #require(try JSONSerialization.jsonObject(with: Data(proved.stdout.utf8)) as? [String: Any])
            let path = try #require(document["path"] as? [String])
            var variants: [[String: Any]] = path.indices.map { index in
                var altered = path
                altered[index] = String(repeating: "0", count: 64)
                var copy = document
                copy["path"] = altered
                return copy
            }
            var otherPayload = document
            let payload = try #require(document["payload"] as? String)
            otherPayload["payload"] = String(payload.dropLast(2)) + (payload.hasSuffix("00") ? "01" : "00")
            variants.append(otherPayload)
            document["path"] = path + [String(repeating: "a", count: 64)]
            variants.append(document)
            for variant in variants {
                let bytes = try JSONSerialization.data(withJSONObject: variant)
                let result = try await CLI.run(["check-proof", "-", "--head", head.description], stdin: bytes)
                #expect(result.status == 1 && result.stderr.contains("error:"), "\(result)")
            }
        }

        // A proof under another head than the one trusted is refused; without --head, a warning.
        let later = try await CLI.run(["prove", log, "3", "--json"])
        let mismatch = try await CLI.run(["check-proof", "-", "--head", head.description], stdin: Data(later.stdout.utf8))
        #expect(mismatch.status == 1 && mismatch.stderr.contains("not under the head you trust"), "\(mismatch)")
        let untrusted = try await CLI.run(["check-proof", "-"], stdin: Data(later.stdout.utf8))
        #expect(untrusted.status == 0 && untrusted.stderr.contains("warning: checked against the proof's own head"), "\(untrusted)")

        // Consistency: the log now extends the head at 10, checked from either end.
        let extends = try await CLI.run(["prove", log, "--extends", head.description, "--json"])
        #expect(extends.status == 0, "\(extends)")
        let now = try #require(HistoryHead(parsing: json["head"] as? String ?? ""))
        for trusted in [head, now] {
            let checked = try await CLI.run(["check-proof", "-", "--head", trusted.description], stdin: Data(extends.stdout.utf8))
            #expect(checked.status == 0 && checked.stdout.contains("ok: head \(now) extends head \(head)"), "\(checked)")
        }
    }

    @Test func aHistoryRewrittenWithValidChecksumsFailsVerifyHeadAndProveHead() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try Self.history(at: log)
        let head = try await CLI.run(["head", log, "--at", "15"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let sound = try await CLI.run(["verify", log, "--head", head, "--json"]).json()
        #expect(sound["ok"] as? Bool == true)
        #expect((sound["heads"] as? [[String: Any]])?.first?["ok"] as? Bool == true)

        let forged = scratch.path("forged.labellog")
        try Self.forge(log, to: forged, changing: 9)
        let plain = try await CLI.run(["verify", forged])
        #expect(plain.status == 0, "the forgery is a sound log by its checksums: \(plain)")
        let caught = try await CLI.run(["verify", forged, "--head", head])
        #expect(caught.status == 1 && caught.stderr.contains("does not extend head \(head)"), "\(caught)")
        let report = try await CLI.run(["verify", forged, "--head", head, "--json"]).json()
        #expect(report["ok"] as? Bool == false && (report["problem"] as? [String: Any])?["kind"] as? String == "head")
        let proof = try await CLI.run(["prove", forged, "2", "--head", head])
        #expect(proof.status == 1 && proof.stderr.contains("does not extend head"), "\(proof)")

        // Cut before the head: named as missing records.
        let cut = scratch.path("cut.labellog")
        try Self.history(at: cut, count: 6)
        let short = try await CLI.run(["verify", cut, "--head", head])
        #expect(short.status == 1 && short.stderr.contains("ends at seq 9, before the seq of head"), "\(short)")

        // An honest append since the head is accepted; several heads in one run.
        try makeLog(at: log) { store in _ = try store.add("later", options: stamped(200)) }
        let first = try await CLI.run(["head", log, "--at", "1"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let extended = try await CLI.run(["verify", log, "--head", head, "--head", first])
        #expect(extended.status == 0 && extended.stdout.contains("extends  head \(head)"), "\(extended)")
    }

    @Test func malformedHeadsAndProofsAreUsageOrInputErrors() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try Self.history(at: log, count: 4)
        for arguments in [
            ["verify", log, "--head", "12"], ["verify", log, "--head", "x:" + String(repeating: "0", count: 64)],
            ["prove", log], ["prove", log, "2", "--extends", "1:" + String(repeating: "0", count: 64)],
            ["prove", log, "2", "--at", "3", "--head", "3:" + String(repeating: "0", count: 64)], ["head", log, "--at", "-1"]
        ] {
            let result = try await CLI.run(arguments)
            #expect(result.status == 64 && result.stderr.contains("error:"), "\(result)")
        }
        let past = try await CLI.run(["prove", log, "7"])
        #expect(past.status == 1 && past.stderr.contains("record 7 is not in a history of 6 records"), "\(past)")
        let headPast = try await CLI.run(["head", log, "--at", "9"])
        #expect(headPast.status == 1 && headPast.stderr.contains("ends at seq 6, before seq 9"), "\(headPast)")
        let notJSON = try await CLI.run(["check-proof", "-"], stdin: Data("hello".utf8))
        #expect(notJSON.status == 1 && notJSON.stderr.contains("not a proof document"), "\(notJSON)")
        let wrongKind = try await CLI.run(["check-proof", "-"], stdin: Data(#"{"kind":"other","path":[]}"#.utf8))
        #expect(wrongKind.status == 1 && wrongKind.stderr.contains("expected inclusion or consistency"), "\(wrongKind)")
        let missing = try await CLI.run(["check-proof", scratch.path("nope.json")])
        #expect(missing.status == 1 && missing.stderr.contains("nope.json"), "\(missing)")
    }
}

extension HistoryHeadCommandTests {
    /// The head is the records' bytes: a copy and an export imported again
    /// have the same head as the original, at every seq.
    @Test func aCopyAndAnExportImportedAgainHaveTheSameHeads() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try Self.history(at: log)
        let copy = scratch.path("copy.labellog")
        let copied = try await CLI.run(["copy", log, copy])
        #expect(copied.status == 0, "\(copied)")
        let exported = try await CLI.run(["export", log])
        let jsonl = scratch.path("l.jsonl")
        try Data(exported.stdout.utf8).write(to: URL(fileURLWithPath: jsonl))
        let imported = scratch.path("imported.labellog")
        let importing = try await CLI.run(["import", imported, jsonl])
        #expect(importing.status == 0, "\(importing)")
        for seq in ["1", "9", "18"] {
            let heads = try await [log, copy, imported].asyncMap { path in
                try await CLI.run(["head", path, "--at", seq]).stdout
            }
            #expect(Set(heads).count == 1 && heads[0].hasPrefix(seq + ":"), "\(heads)")
        }
    }
}

extension Array {
    fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
