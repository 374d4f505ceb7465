import Foundation
import LabelStoreTestSupport
import Testing

@testable import EventLog

/// A head taken earlier catches every rewrite of the history before it, even
/// one whose author recomputed every checksum after the change (they are
/// keyed by an id stored in the log itself, so anyone who can write the file
/// can); an honest append after the head is accepted.
@Suite struct HistoryTamperTests {
    /// A log of `count` records, synced one by one, and its payloads.
    static func original(_ path: String, count: Int = 40) throws -> [[UInt8]] {
        let entries = (0..<count).map { n in
            LogEntry(.added(id: LabelID(), title: "Label \(n)", isEnabled: n % 3 == 0, index: 0), actor: n % 2 == 0 ? "ana" : nil)
        }
        return try writeLog(path, entries).map { try $0.encodedPayload() }
    }

    /// Writes a valid log at `path` with the header of `template` and these
    /// payloads, every frame chained and checksummed as a writer would: what
    /// someone who can write the file can make.
    static func forge(_ path: String, from template: String, payloads: [[UInt8]]) throws {
        var bytes = Array(readBytes(template)[0..<LogFormat.headerLength])
        for payload in payloads { bytes += try nextFrame(payload: payload, after: bytes) }
        writeBytes(path, bytes)
    }

    /// `payload` with its seq set to `seq` (the attacker renumbers after a removal or insertion).
    static func renumbered(_ payload: [UInt8], to seq: Int) throws -> [UInt8] {
        var record = try EventRecord.decode(payload: payload)
        record.seq = UInt64(seq)
        return try record.encodedPayload()
    }

    static func renumberedAll(_ payloads: [[UInt8]]) throws -> [[UInt8]] {
        try payloads.enumerated().map { try renumbered($0.element, to: $0.offset + 1) }
    }

    static func head(_ path: String, atSeq seq: UInt64? = nil) throws -> HistoryHead {
        try HistoryProver.head(of: HistoryRecords(path: path), atSeq: seq)
    }

    /// The forged log at `path` fails the check against `head`, and the tree
    /// cache written beside the original before the change (copied beside
    /// the forgery) names `firstDifferent` as the first record that differs.
    static func expectDiverged(
        _ path: String, from head: HistoryHead, firstDifferent: UInt64, treeOf original: String, _ comment: Comment
    ) throws {
        do {
            let now = try HistoryProver.verify(HistoryRecords(path: path), extends: head)
            Issue.record("\(comment): accepted, head now \(now)")
        } catch {
            #expect(error.code == .historyDiverged, comment)
        }
        try? FileManager.default.removeItem(atPath: HistoryTreeFile.path(for: path))
        #expect(try HistoryTreeFile.firstDifference(logPath: path, from: head) == nil, "no cache: \(comment)")
        try FileManager.default.copyItem(atPath: HistoryTreeFile.path(for: original), toPath: HistoryTreeFile.path(for: path))
        #expect(try HistoryTreeFile.firstDifference(logPath: path, from: head) == firstDifferent, comment)
    }

    @Test func everyRewriteBeforeTheHeadIsCaughtAndAnHonestAppendIsNot() throws {
        let dir = TemporaryDirectory()
        let log = dir.file("original.labellog")
        let payloads = try Self.original(log)
        let head = try Self.head(log, atSeq: 30)
        #expect(head.seq == 30)
        #expect(try HistoryTreeFile.update(logPath: log).leaves == 40)
        let forged = dir.file("forged.labellog")

        // One byte of record 12's title, every checksum after it recomputed.
        var changed = payloads
        let title = Array("Label 11".utf8)
        let at = try #require(changed[11].indices.first { changed[11][$0...].starts(with: title) })
        changed[11][at] = UInt8(ascii: "l")
        try Self.forge(forged, from: log, payloads: changed)
        #expect(try LogReader.readAll(path: forged).records.count == 40)  // a sound log by its checksums
        try Self.expectDiverged(forged, from: head, firstDifferent: 12, treeOf: log, "a changed byte")

        // A record removed, the rest renumbered.
        var removed = payloads
        removed.remove(at: 7)
        try Self.forge(forged, from: log, payloads: try Self.renumberedAll(removed))
        try Self.expectDiverged(forged, from: head, firstDifferent: 8, treeOf: log, "a removed record")

        // A record inserted.
        var inserted = payloads
        inserted.insert(payloads[3], at: 20)
        try Self.forge(forged, from: log, payloads: try Self.renumberedAll(inserted))
        try Self.expectDiverged(forged, from: head, firstDifferent: 21, treeOf: log, "an inserted record")

        // Two records swapped.
        var swapped = payloads
        swapped.swapAt(4, 5)
        try Self.forge(forged, from: log, payloads: try Self.renumberedAll(swapped))
        try Self.expectDiverged(forged, from: head, firstDifferent: 5, treeOf: log, "two swapped records")

        // Cut after record 25 and written again to the same length.
        var regrown = Array(payloads[..<25])
        for n in 25..<40 {
            var record = try EventRecord.decode(payload: payloads[n])
            record.actor = "mallory"
            regrown.append(try record.encodedPayload())
        }
        try Self.forge(forged, from: log, payloads: regrown)
        try Self.expectDiverged(forged, from: head, firstDifferent: 26, treeOf: log, "a cut and regrown history")

        // Shorter than the head.
        try Self.forge(forged, from: log, payloads: Array(payloads[..<29]))
        try Self.expectDiverged(forged, from: head, firstDifferent: 30, treeOf: log, "a history cut before the head")

        // Changes after the head are not the head's business; the same
        // payloads rewritten (another log's frames) are the same history.
        var later = payloads
        later[35] = try Self.renumbered(payloads[0], to: 36)
        try Self.forge(forged, from: log, payloads: later)
        _ = try HistoryProver.verify(HistoryRecords(path: forged), extends: head)

        // An honest append since the head.
        let writer = try LogWriter.open(path: log, options: .init(durability: .noSync))
        _ = try writer.append(LogEntry(.added(id: LabelID(), title: "later", isEnabled: true, index: 0)))
        writer.close()
        let now = try HistoryProver.verify(HistoryRecords(path: log), extends: head)
        #expect(now.seq == 41)
        #expect(now == (try Self.head(log)))
    }

    /// The head depends on the records' bytes only: the same payloads give the
    /// same head from a file and from any storage; proofs read from a file
    /// check against heads taken from elsewhere.
    @Test func headsAndProofsAgreeAcrossFileAndStorage() throws {
        let dir = TemporaryDirectory()
        let log = dir.file()
        let payloads = try Self.original(log, count: 23)
        let memory = InMemoryEventLog()
        _ = try memory.append(
            try payloads.map { payload in
                let record = try EventRecord.decode(payload: payload)
                return LogEntry(record.event, timestamp: record.timestamp, actor: record.actor, note: record.note)
            }, expectedLastSeq: 0)
        var reference = HistoryTreeBuilder()
        for payload in payloads { reference.append(payload: payload) }
        #expect(try Self.head(log) == reference.head)
        #expect(try HistoryProver.head(of: HistoryRecords(storage: memory, name: "memory")) == reference.head)
        for seq in [1, 2, 11, 16, 23] as [UInt64] {
            for under in [seq, 16, 23] where under >= seq {
                let (proof, payload) = try HistoryProver.inclusionProof(ofSeq: seq, underHeadAt: under, in: HistoryRecords(path: log))
                #expect(payload == payloads[Int(seq) - 1])
                #expect(proof.head == (try Self.head(log, atSeq: under)))
                try proof.verify(payload: payloads[Int(seq) - 1])
                let fromStorage = try HistoryProver.inclusionProof(
                    ofSeq: seq, underHeadAt: under, in: HistoryRecords(storage: memory, name: "memory"))
                #expect(fromStorage.proof == proof)
            }
        }
        for (old, new) in [(0, 23), (1, 23), (7, 16), (16, 23), (23, 23)] as [(UInt64, UInt64)] {
            let proof = try HistoryProver.consistencyProof(from: old, to: new, in: HistoryRecords(path: log))
            #expect(proof.old == (try Self.head(log, atSeq: old)))
            #expect(proof.new == (try Self.head(log, atSeq: new)))
            try proof.verify()
        }
        #expect(throws: EventLogError.self) { try HistoryProver.inclusionProof(ofSeq: 24, in: HistoryRecords(path: log)) }
        #expect(throws: EventLogError.self) { try HistoryProver.head(of: HistoryRecords(path: log), atSeq: 24) }
    }
}
