import Foundation
import LabelProjection
import LabelStoreTestSupport
import Testing

@testable import EventLog

/// A history in log format 4 (batch frames, docs/FORMAT.md, "Batch frames
/// (version 4)") reads as the same history in format 2: every read command
/// (the list ``CutHistoryTests/commands(_:ids:last:)`` keeps) prints the same
/// bytes, and the store's history reads answer the same, on a copy written
/// as batch frames of every size, with the same log id.
@Suite struct FormatFourCommandTests {
    /// A copy of the log at `reference` in format 4, at `path`: the same log
    /// id, creation time and records, appended in batches of `sizes` in turn.
    static func formatFourCopy(of reference: String, to path: String, sizes: [Int]) throws {
        let header = try LogReader(path: reference).header
        let records = try LogReader.readAll(path: reference).records
        var options = LogWriter.Options(durability: .noSync, createIfMissing: true)
        options.creationHeader = LogHeader(version: LogFormat.batchVersion, logID: header.logID, createdAt: header.createdAt)
        let writer = try LogWriter.open(path: path, options: options)
        defer { writer.close() }
        var at = 0
        var i = 0
        while at < records.count {
            let n = min(sizes[i % sizes.count], records.count - at)
            try writer.append(
                records[at..<(at + n)].map { LogEntry($0.event, timestamp: $0.timestamp, actor: $0.actor, note: $0.note) })
            at += n
            i += 1
        }
        try writer.sync()
    }

    /// `text` without the spaces that start its lines: `log`'s text pads its seq column to the most
    /// records a file of its size can hold, which for format 4 is more (the same lines, each with
    /// more spaces before its seq).
    static func unpadded(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.drop { $0 == " " } }.joined(separator: "\n")
    }

    @Test(arguments: [[1], [400], [1, 37, 200, 2], [1_024, 1]])
    func everyCommandAnswersOnAFormatFourCopyAsOnTheFormatTwoLog(sizes: [Int]) async throws {
        let scratch = try Scratch()
        let (reference, ids) = try CutHistoryTests.reference(in: scratch, seed: 47, writes: CutHistoryTests.writes)
        let last = try LogReader.readAll(path: reference).0.last!.seq
        let head = try await CLI.run(["head", reference, "--at", String(last / 4)]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let expected = try await CutHistoryTests.answers(reference, ids: ids, last: last, extending: head)
        try FileManager.default.createDirectory(atPath: scratch.path("four"), withIntermediateDirectories: true)
        let path = scratch.path("four/h.labellog")
        try Self.formatFourCopy(of: reference, to: path, sizes: sizes)
        #expect(try LogReader(path: path).header.version == LogFormat.batchVersion)
        let got = try await CutHistoryTests.answers(path, ids: ids, last: last, extending: head)
        for (want, answer) in zip(expected, got) {
            #expect(Self.unpadded(answer) == Self.unpadded(want))
            if answer.hasPrefix("{") || answer.contains("→ 0\n{") || answer.contains("→ 0\n[") { #expect(answer == want) }
        }
        let verified = try await CLI.run(["verify", path, "--head", head])
        #expect(verified.status == 0, "\(verified)")

        // The store's history reads, at every tenth seq.
        let two = try await LabelStore.open(path: reference, options: .init(createIfMissing: false))
        let four = try await LabelStore.open(path: path, options: .init(createIfMissing: false))
        defer {
            two.close()
            four.close()
        }
        #expect(four.labels == two.labels)
        for seq in stride(from: UInt64(0), through: last, by: 10) {
            #expect(try four.state(atSeq: seq) == two.state(atSeq: seq), "state at \(seq)")
            #expect(try four.historyHead(atSeq: seq) == two.historyHead(atSeq: seq), "head at \(seq)")
            if seq >= 1 {
                #expect(try four.inclusionProof(ofSeq: seq) == two.inclusionProof(ofSeq: seq), "inclusion of \(seq)")
            }
        }
    }

    @Test func aFormatFourLogIsCutInsideAndBetweenFramesAndAnswersAsTheUncutLog() async throws {
        let scratch = try Scratch()
        let (reference, ids) = try CutHistoryTests.reference(in: scratch, seed: 53, writes: CutHistoryTests.writes)
        let last = try LogReader.readAll(path: reference).0.last!.seq
        let head = try await CLI.run(["head", reference, "--at", String(last / 4)]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let expected = try await CutHistoryTests.answers(reference, ids: ids, last: last, extending: head)
        try FileManager.default.createDirectory(atPath: scratch.path("four"), withIntermediateDirectories: true)
        let path = scratch.path("four/h.labellog")
        // Frames: seq 1, seqs 2…38, 39…238, then one record each.
        try Self.formatFourCopy(of: reference, to: path, sizes: [1, 37, 200] + Array(repeating: 1, count: 1_000))
        // Through 99 and 149 split the frame of 39…238 (twice: the second cut splits what the first kept of
        // it), through 239 goes between frames.
        var archives: [String] = []
        for cut in ["100", "150", "240"] {
            let archived = try await CLI.run(["archive", path, "--before", cut, "--json"])
            #expect(archived.status == 0, "\(archived)")
            let report = try JSONSerialization.jsonObject(with: Data(archived.stdout.utf8)) as? [String: Any]
            if let archive = report?["archive"] as? String { archives.append(archive) }
        }
        #expect(archives.count == 3)
        for archive in archives {
            let alone = try await CLI.run(["verify", archive])
            #expect(alone.status == 0, "\(archive): \(alone)")
        }
        #expect(try LogReader(path: path).header.firstSeq == 240)
        // The records are the reference's, seq for seq, across the archives and the log.
        var records: [EventRecord] = []
        for file in archives + [path] { records += try LogReader.readAll(path: file).0 }
        #expect(records == (try LogReader.readAll(path: reference).0))
        #expect(try LogReader(path: path).header.version == LogFormat.batchVersion)
        let got = try await CutHistoryTests.answers(path, ids: ids, last: last, extending: head)
        for (want, answer) in zip(expected, got) { #expect(Self.unpadded(answer) == Self.unpadded(want)) }
        let verified = try await CLI.run(["verify", path])
        #expect(verified.status == 0, "\(verified)")
    }
}
