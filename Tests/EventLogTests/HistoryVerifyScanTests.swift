import Foundation
import LabelStoreTestSupport
import Testing

@testable import EventLog

/// `verify --head` over real files: whole chunks of 4,096 records hashed on
/// worker threads and frames read by the reader's payload scan give the
/// heads one leaf at a time gives, from seq 1 and from a based log's
/// frontier; and the scan stops where, and says what, every read says on a
/// damaged, torn or spliced log.
@Suite struct HistoryVerifyScanTests {
    /// Entries whose titles run from a few bytes to a few hundred (leaves of one to several SHA-256 blocks).
    static func entries(_ count: Int, seed: UInt64) -> [LogEntry] {
        var rng = SeededGenerator(seed: seed)
        return (0..<count).map { n in
            let length =
                Int.random(in: 0..<8, using: &rng) == 0 ? Int.random(in: 100...400, using: &rng) : Int.random(in: 1...60, using: &rng)
            let title = String(repeating: "x", count: length) + " \(n)"
            return LogEntry(.added(id: LabelID(), title: title, isEnabled: n % 3 == 0, index: 0), actor: n % 2 == 0 ? "ana" : nil)
        }
    }

    /// The heads after each seq in `seqs`, one leaf at a time (no chunks, no batches), continuing `start`.
    static func referenceHeads(_ payloads: [[UInt8]], from start: HistoryTreeBuilder, at seqs: [UInt64]) -> [HistoryHead] {
        var builder = start
        var heads: [UInt64: HistoryHead] = [builder.count: builder.head]
        for payload in payloads {
            builder.append(leaf: .leaf(payload: payload))
            heads[builder.count] = builder.head
        }
        return seqs.map { heads[$0]! }
    }

    @Test func verifyOverWholeChunksGivesTheHeadsOfOneLeafAtATime() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("chunks.labellog")
        let chunk = UInt64(ChunkedTreeHasher.chunkSize)
        let count = 2 * Int(chunk) + 777
        let payloads = try writeLog(path, Self.entries(count, seed: 61), batch: true, syncEvery: 1000).map { try $0.encodedPayload() }
        let last = UInt64(count)
        let seqs: [UInt64] = [0, 1, 2, 3, chunk - 1, chunk, chunk + 1, 2 * chunk, 2 * chunk + 1, last - 1, last]
        let reference = Self.referenceHeads(payloads, from: HistoryTreeBuilder(), at: seqs)
        let result = try HistoryProver.check(HistoryRecords(path: path), against: reference)
        #expect(result.now == reference.last!)
        #expect(result.failures.allSatisfy { $0 == nil }, "\(result.failures.compactMap { $0 })")
        #expect(try HistoryProver.verify(HistoryRecords(path: path), extends: reference[6]) == reference.last!)

        // A head the history does not give, inside a whole chunk: named with the hash the records give.
        var wrong = reference[7]
        wrong.hash = .leaf(payload: [1])
        let refused = #expect(throws: EventLogError.self) { try HistoryProver.verify(HistoryRecords(path: path), extends: wrong) }
        #expect(refused?.code == .historyDiverged)
        #expect(
            refused?.message
                == "\(path) does not extend head \(wrong): its records 1…\(wrong.seq) give \(reference[7].hash.hex), so at least one of "
                + "them was changed, removed, inserted or reordered since that head was taken")
        // A head after the end.
        let beyond = HistoryHead(seq: last + 5, hash: reference.last!.hash)
        let short = #expect(throws: EventLogError.self) { try HistoryProver.verify(HistoryRecords(path: path), extends: beyond) }
        #expect(
            short?.message == "\(path) ends at seq \(last), before the seq of head \(beyond): records \(last + 1)…\(last + 5) are missing")
    }

    /// Cuts at a multiple of the chunk size, one past it, and a count of no
    /// power of two: the based log's tree continues from its frontier, and
    /// its chunks stay aligned to the whole tree (the first is partial).
    @Test(arguments: [4096, 4097, 3001] as [UInt64])
    func verifyOverABasedLogGivesTheWholeHistorysHeads(cut: UInt64) throws {
        let dir = TemporaryDirectory()
        let path = dir.file("based.labellog")
        let count = 2 * ChunkedTreeHasher.chunkSize + 300
        let payloads = try writeLog(path, Self.entries(count, seed: 70 + cut), batch: true, syncEvery: 1000).map { try $0.encodedPayload() }
        var start = HistoryTreeBuilder()
        for payload in payloads.prefix(Int(cut)) { start.append(payload: payload) }
        try LogCut.cut(logPath: path, through: cut, archiveTo: nil, now: .now(), image: { _ in [1, 2, 3] })
        let records = try HistoryRecords(path: path)
        try #require(records.start == start, "the base holds the frontier after seq \(cut)")
        let last = UInt64(count)
        let seqs = [cut, cut + 1, 8192, 8193, last].filter { $0 <= last }
        let reference = Self.referenceHeads(Array(payloads.dropFirst(Int(cut))), from: start, at: seqs)
        let result = try HistoryProver.check(records, against: reference)
        #expect(result.now == reference.last!)
        #expect(result.failures.allSatisfy { $0 == nil }, "\(result.failures.compactMap { $0 })")
    }

    /// What a scan of `path` ends with: the records visited and the error, if any.
    struct Outcome: Equatable, CustomStringConvertible {
        var visited: [UInt64] = []
        var error: String?
        var lastPosition: LogPosition?
        var description: String { "\(visited.count) records (last \(visited.last ?? 0)), \(error ?? "no error")" }
    }

    static func scan(_ path: String, payloads: Bool) -> Outcome {
        var outcome = Outcome()
        do {
            let reader = try LogReader(path: path)
            if payloads {
                try reader.forEachPayload { seq, _ in outcome.visited.append(seq) }
            } else {
                try reader.forEachView { outcome.visited.append($0.seq) }
            }
            outcome.lastPosition = reader.lastPosition
        } catch let error as EventLogError {
            outcome.error = "\(error.code): \(error.message)"
        } catch {
            outcome.error = "\(error)"
        }
        return outcome
    }

    @Test func thePayloadScanStopsWhereAndSaysWhatEveryReadSays() throws {
        let dir = TemporaryDirectory()
        let original = dir.file("original.labellog")
        // Long titles, so the log is past the cursor's 1 MiB read and a frame straddles a refill.
        var rng = SeededGenerator(seed: 90)
        let entries = (0..<1800).map { n in
            LogEntry(
                .added(
                    id: LabelID(), title: String(repeating: "t", count: Int.random(in: 1...1200, using: &rng)), isEnabled: true, index: 0),
                note: "\(n)")
        }
        let payloads = try writeLog(original, entries, batch: true, syncEvery: 100).map { try $0.encodedPayload() }
        let bytes = readBytes(original)
        let offsets = frameOffsets(bytes)
        try #require(offsets.count == payloads.count && bytes.count > 1 << 20)
        let straddling = try #require(offsets.lastIndex { $0 < 1 << 20 })
        let frames = [0, 1, 500, straddling - 1, straddling, straddling + 1, payloads.count - 2, payloads.count - 1]
        var damaged: [(String, [UInt8])] = [("whole", bytes)]
        for frame in frames {
            let start = offsets[frame]
            let end = frame + 1 < offsets.count ? offsets[frame + 1] : bytes.count
            var flipped = bytes
            flipped[start + 12 + Int.random(in: 0..<(end - start - 12), using: &rng)] ^= 0x20
            damaged.append(("a payload byte of frame \(frame) flipped", flipped))
            var badLength = bytes
            badLength[start + 3] = 0x7F
            damaged.append(("frame \(frame)'s length word damaged", badLength))
            damaged.append(("torn inside frame \(frame)", Array(bytes[..<(start + (end - start) / 2)])))
            damaged.append(("cut before frame \(frame)", Array(bytes[..<start])))
            damaged.append(("zeros from frame \(frame)", Array(bytes[..<start]) + [UInt8](repeating: 0, count: 300)))
            if frame + 1 < offsets.count {
                // Frame `frame` removed: the next one's seq is not the one expected.
                damaged.append(("frame \(frame) removed", Array(bytes[..<start]) + Array(bytes[end...])))
            }
            if frame >= 2 {
                // Frame `frame` sealed after frame `frame - 2`: the right seq, checksummed, chained to another record.
                let spliced = try nextFrame(payload: payloads[frame], after: Array(bytes[..<offsets[frame - 1]]))
                damaged.append(("frame \(frame) chained to another record", Array(bytes[..<start]) + spliced + Array(bytes[end...])))
            }
            if frame > 0 {
                // A checksummed frame whose payload does not start with a seq.
                let junk = try nextFrame(payload: [UInt8](repeating: 0xFF, count: 12), after: Array(bytes[..<start]))
                let outcome = try scanOf(Array(bytes[..<start]) + junk + Array(bytes[end...]), in: dir)
                #expect(outcome.visited == Array(1...UInt64(frame)), "junk at frame \(frame): \(outcome)")
                #expect(
                    outcome.error?.contains("record with a valid checksum has invalid content") == true,
                    "junk at frame \(frame): \(outcome)")
            }
        }
        for (what, image) in damaged {
            let path = dir.file("damaged.labellog")
            writeBytes(path, image)
            let scanned = Self.scan(path, payloads: true)
            let read = Self.scan(path, payloads: false)
            #expect(scanned == read, "\(what): the scan gives \(scanned), a read \(read)")
            if what == "whole" { #expect(scanned.visited == Array(1...UInt64(payloads.count)) && scanned.error == nil) }
        }
    }

    /// The payload scan's outcome over a log of `bytes`.
    private func scanOf(_ bytes: [UInt8], in dir: TemporaryDirectory) throws -> Outcome {
        let path = dir.file("scanned.labellog")
        writeBytes(path, bytes)
        return Self.scan(path, payloads: true)
    }
}
