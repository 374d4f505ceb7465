import EventLog
import Foundation
import LabelStoreTestSupport
import Testing

@testable import LabelProjection

/// Proofs over a based log (docs/AUDIT.md): the inclusion proof of any record
/// from its first on, and the consistency proof between any two heads from
/// its base on, are computed from the log alone — the base's frontier stands
/// for the records cut — and are exactly the proofs the whole history gives.
@Suite struct BasedLogProofTests {
    let helpers = SnapshotStoreTests()

    /// A log of `n` random writes at `path`, closed; returns its last seq.
    func history(_ n: Int, at path: String, seed: UInt64) throws -> UInt64 {
        let store = try LabelStore.open(path: path, options: helpers.options())
        defer { store.close() }
        try helpers.write(n, to: store, seed: seed)
        return store.lastSeq
    }

    /// Cuts at seqs that are powers of two, one off them, and neither (the
    /// frontier's shapes), and checks every proof the based log gives against
    /// the whole history's, over sizes around and far from the cut.
    @Test(arguments: [1, 2, 3, 4, 5, 7, 8, 9, 16, 31, 33, 64, 65, 100] as [UInt64])
    func proofsOverABasedLogAreTheWholeHistorysProofs(cut: UInt64) throws {
        try helpers.withTemporaryDirectory { dir in
            let path = dir + "/labels.log"
            let whole = dir + "/whole.log"
            let last = try history(125, at: path, seed: 40 + cut)
            try #require(last > cut + 8)
            try FileManager.default.copyItem(atPath: path, toPath: whole)
            try LabelStore.cutHistory(path: path, through: cut, archiveTo: cut % 2 == 0 ? nil : dir + "/archive.log")
            var rng = SeededGenerator(seed: cut)
            let sizes = Set([cut, cut + 1, cut + 2, last, UInt64.random(in: cut...last, using: &rng)])
            for size in sizes.sorted() {
                for seq in Set([cut + 1, size, UInt64.random(in: (cut + 1)...max(cut + 1, size), using: &rng)]).sorted()
                where seq <= size && seq > cut {
                    let based = try HistoryProver.inclusionProof(ofSeq: seq, underHeadAt: size, in: HistoryRecords(path: path))
                    let full = try HistoryProver.inclusionProof(ofSeq: seq, underHeadAt: size, in: HistoryRecords(path: whole))
                    #expect(based.proof == full.proof && based.payload == full.payload, "cut \(cut): seq \(seq) under \(size)")
                }
                for old in Set([cut, cut + 1, UInt64.random(in: cut...size, using: &rng)]).sorted() where old <= size {
                    let based = try HistoryProver.consistencyProof(from: old, to: size, in: HistoryRecords(path: path))
                    let full = try HistoryProver.consistencyProof(from: old, to: size, in: HistoryRecords(path: whole))
                    #expect(based == full, "cut \(cut): \(old) → \(size)")
                }
            }
            // Seqs the log no longer holds are refused, naming why.
            let refused = #expect(throws: EventLogError.self) {
                try HistoryProver.inclusionProof(ofSeq: cut, in: HistoryRecords(path: path))
            }
            #expect(refused?.code == .invalidProof && refused?.message.contains("archive") == true, "\(String(describing: refused))")
            if cut > 1 {
                #expect(throws: EventLogError.self) { try HistoryProver.consistencyProof(from: cut - 1, in: HistoryRecords(path: path)) }
            }
            // A store over the based log gives the same proofs, open (through its storage) and closed (from the file).
            let store = try LabelStore.open(path: path, options: helpers.options(create: false))
            let open = try store.inclusionProof(ofSeq: cut + 1)
            #expect(open == (try HistoryProver.inclusionProof(ofSeq: cut + 1, in: HistoryRecords(path: whole))).proof)
            #expect(
                try store.consistencyProof(from: cut) == (try HistoryProver.consistencyProof(from: cut, in: HistoryRecords(path: whole))))
            store.close()
            #expect(
                try store.inclusionProof(ofSeq: last)
                    == (try HistoryProver.inclusionProof(ofSeq: last, in: HistoryRecords(path: whole))).proof)
        }
    }

    /// A based log's tree cache holds its own records' leaves; authenticated
    /// from the base's frontier, it names the first record that differs from
    /// a kept head.
    @Test func aBasedLogsTreeCacheNamesTheFirstRecordThatDiffersFromAKeptHead() throws {
        try helpers.withTemporaryDirectory { dir in
            let path = dir + "/labels.log"
            let other = dir + "/other.log"
            let last = try history(125, at: path, seed: 71)
            try LabelStore.cutHistory(path: path, through: 60, archiveTo: nil)
            try FileManager.default.copyItem(atPath: path, toPath: other)
            let built = try HistoryTreeFile.update(logPath: path)
            #expect(built.leaves == last - 60 && built.rebuilt)
            let logID = try LogReader(path: path).header.logID
            #expect(HistoryTreeFile.read(logPath: path, logID: logID, firstSeq: 61)?.leaves.count == Int(last - 60))
            #expect(HistoryTreeFile.read(logPath: path, logID: logID) == nil, "a based log's cache read as one from seq 1")
            // The two copies go different ways after the cut.
            for (log, title) in [(path, "mine"), (other, "theirs")] {
                let store = try LabelStore.open(path: log, options: helpers.options(create: false))
                try store.add(title)
                store.close()
            }
            let extended = try HistoryTreeFile.update(logPath: path)
            #expect(!extended.rebuilt && extended.added == 1)
            let head = try HistoryProver.head(of: HistoryRecords(path: path))
            #expect(try HistoryTreeFile.firstDifference(logPath: path, from: head) == nil)
            try FileManager.default.copyItem(atPath: HistoryTreeFile.path(for: path), toPath: HistoryTreeFile.path(for: other))
            #expect(try HistoryTreeFile.firstDifference(logPath: other, from: head) == last + 1)
            // A head before the cut is the archive's to check.
            #expect(try HistoryTreeFile.firstDifference(logPath: other, from: HistoryHead(seq: 59, hash: .empty)) == nil)
        }
    }

    /// Read through its archive, a based log answers heads and proofs before
    /// its first seq as the whole history does; an archive that does not end
    /// where the base cut does not join.
    @Test func aBasedLogReadThroughItsArchiveAnswersForArchivedSeqs() throws {
        try helpers.withTemporaryDirectory { dir in
            let path = dir + "/labels.log"
            let whole = dir + "/whole.log"
            let archive = dir + "/archive.log"
            let last = try history(125, at: path, seed: 72)
            try FileManager.default.copyItem(atPath: path, toPath: whole)
            try LabelStore.cutHistory(path: path, through: 60, archiveTo: archive)
            func joined() throws -> HistoryRecords {
                HistoryRecords(archive: try LogReader(path: archive), log: try LogReader(path: path), name: path)
            }
            for seq in [1, 30, 60, 61, last] as [UInt64] {
                #expect(try HistoryProver.head(of: joined(), atSeq: seq) == HistoryProver.head(of: HistoryRecords(path: whole), atSeq: seq))
            }
            #expect(
                try HistoryProver.inclusionProof(ofSeq: 10, in: joined()).proof
                    == HistoryProver.inclusionProof(ofSeq: 10, in: HistoryRecords(path: whole)).proof)
            #expect(
                try HistoryProver.consistencyProof(from: 20, to: 100, in: joined())
                    == HistoryProver.consistencyProof(from: 20, to: 100, in: HistoryRecords(path: whole)))
            // The uncut log is no archive of the based log: it goes on past the cut.
            let error = #expect(throws: EventLogError.self) {
                _ = try HistoryProver.head(
                    of: HistoryRecords(archive: try LogReader(path: whole), log: try LogReader(path: path), name: path))
            }
            #expect(error?.code == .corruptRecord && error?.message.contains("does not join") == true, "\(String(describing: error))")
        }
    }

    /// The frontier must tile a range a proof needs: it always does for the
    /// proofs asked of a based log, and a range inside one of its subtrees is refused.
    @Test func aRangeInsideTheFrontiersSubtreesIsRefused() {
        var start = HistoryTreeBuilder()
        for i in 0..<6 { start.append(payload: [UInt8(i)]) }  // subtrees of 4 and 2 leaves
        #expect(HistoryRangeHasher(ranges: [4..<6, 6..<8, 0..<4], start: start) != nil)
        #expect(HistoryRangeHasher(ranges: [4..<8], start: start) != nil)
        #expect(HistoryRangeHasher(ranges: [2..<4], start: start) == nil)
        #expect(HistoryRangeHasher(ranges: [5..<8], start: start) == nil)
    }
}
