import Foundation
import LabelStoreTestSupport
import Testing

@testable import EventLog

/// Seeded mutation fuzzing: every input either decodes or throws a clear
/// error; nothing crashes, hangs, or allocates beyond the input it holds.
/// `LABELSTORE_FUZZ_INPUTS=N` runs N inputs per target instead of the CI count.
@Suite("Fuzzing")
struct FuzzTests {
    static let inputs = Int(ProcessInfo.processInfo.environment["LABELSTORE_FUZZ_INPUTS"] ?? "") ?? 100_000

    /// Applies 1–4 random mutations: bit flips, byte sets, interesting values, cuts, duplications, insertions.
    static func mutate(_ input: [UInt8], using rng: inout SeededGenerator) -> [UInt8] {
        var bytes = input
        for _ in 0..<Int.random(in: 1...4, using: &rng) {
            let at = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &rng)
            switch Int.random(in: 0..<7, using: &rng) {
            case 0 where !bytes.isEmpty: bytes[at] ^= 1 << UInt8.random(in: 0..<8, using: &rng)
            case 1 where !bytes.isEmpty: bytes[at] = UInt8.random(in: 0...255, using: &rng)
            case 2 where !bytes.isEmpty: bytes[at] = [0x00, 0x01, 0x7f, 0x80, 0xff].randomElement(using: &rng)!
            case 3: bytes = Array(bytes.prefix(at))
            case 4 where !bytes.isEmpty:
                let end = min(bytes.count, at + Int.random(in: 1...16, using: &rng))
                bytes.insert(contentsOf: bytes[at..<end], at: at)
            case 5:
                bytes.insert(
                    contentsOf: (0..<Int.random(in: 1...10, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }, at: at)
            default:
                // A varint that claims a huge length.
                bytes.insert(contentsOf: [0xff, 0xff, 0xff, 0xff, 0x0f], at: at)
            }
        }
        return bytes
    }

    @Test func theRecordDecoderNeverCrashesOnMutatedPayloads() throws {
        var rng = SeededGenerator(seed: 2026)
        let seeds = try sampleEntries().enumerated().map { i, e in
            try e.record(seq: UInt64(i + 1), now: .init(millisecondsSince1970: 1)).encodedPayload()
        }
        var decoded = 0, rejected = 0
        for _ in 0..<Self.inputs {
            let input = Self.mutate(seeds.randomElement(using: &rng)!, using: &rng)
            do {
                let record = try EventRecord.decode(payload: input)
                // Whatever decodes must re-encode to the very same bytes (the encoding is canonical;
                // storedPayload, since a mutation may make a string hold U+0000, which only an append refuses).
                #expect(try record.storedPayload() == input)
                decoded += 1
            } catch {
                #expect(error.code == .corruptRecord)
                #expect(!error.message.isEmpty)
                rejected += 1
            }
        }
        print("fuzz record decoder: \(Self.inputs) inputs, \(decoded) decoded, \(rejected) rejected with an error")
        #expect(decoded + rejected == Self.inputs)
        #expect(rejected > 0)
    }

    @Test func theFileReaderNeverCrashesOnMutatedLogs() throws {
        let dir = TemporaryDirectory()
        let original = dir.file("original")
        try writeLog(original)
        let bytes = readBytes(original)
        var rng = SeededGenerator(seed: 7)
        let path = dir.file("mutated")
        // Whole-file mutations are slower (a file per input): a twentieth of the count.
        let count = max(1, Self.inputs / 20)
        var opened = 0, refused = 0
        for _ in 0..<count {
            var input = bytes
            // Keep the header most of the time so mutations reach the records.
            let body = Self.mutate(Array(input[LogFormat.headerLength...]), using: &rng)
            input =
                Int.random(in: 0..<10, using: &rng) == 0 ? Self.mutate(input, using: &rng) : Array(input[..<LogFormat.headerLength]) + body
            writeBytes(path, input)
            do {
                let (records, report) = try LogReader.readAll(path: path)
                #expect(report.validLength <= Int64(input.count))
                #expect(records.map(\.seq) == Array(stride(from: 1, through: UInt64(records.count), by: 1)))
                opened += 1
            } catch let error as EventLogError {
                #expect(!error.description.isEmpty)
                refused += 1
            }
        }
        print("fuzz log reader: \(count) files, \(opened) opened (prefix kept), \(refused) refused with an error")
        #expect(opened + refused == count)
    }

    /// A format 4 log's batch frame with its body mutated and its checksum made
    /// right again, so that every mutation reaches the body's decoder through
    /// the file reader: each read opens with a prefix of whole records or
    /// refuses with an error, never crashes, never returns a record of the
    /// mutated frame that its body does not hold.
    @Test func theFileReaderNeverCrashesOnResealedMutatedBatchFrames() throws {
        let dir = TemporaryDirectory()
        let original = dir.file("original")
        var options = LogWriter.Options(durability: .noSync, createIfMissing: true)
        options.creationHeader = LogHeader(version: LogFormat.batchVersion, createdAt: .now())
        let writer = try LogWriter.open(path: original, options: options)
        try writer.append(sampleEntries())
        var shuffle = SeededGenerator(seed: 12)
        try writer.append(sampleEntries().shuffled(using: &shuffle))
        writer.close()
        let bytes = readBytes(original)
        let format = try frameFormat(of: bytes)
        let frames = frameOffsets(bytes)
        try #require(frames.count == 2)
        var rng = SeededGenerator(seed: 11)
        let path = dir.file("mutated")
        let count = max(1, Self.inputs / 20)
        var opened = 0, refused = 0, mutatedRead = 0
        for _ in 0..<count {
            var input = bytes
            let first = frames[0] + format.headerLength
            let body = Self.mutate(Array(input[first..<frames[1]]), using: &rng)
            // The frame keeps its place only when the body keeps its length; otherwise the second frame moves.
            input = Array(input[..<first]) + body + Array(input[frames[1]...])
            input.withUnsafeMutableBytes { raw in
                let previous = raw.loadUnaligned(fromByteOffset: frames[0] + 8, as: UInt32.self).littleEndian
                let checksum = Frame.seal(
                    raw.baseAddress! + frames[0], payloadLength: body.count, format: format, previous: previous, continues: false,
                    batch: true)
                // The second frame chains to the first one's new checksum.
                let second = frames[0] + format.headerLength + body.count
                let length = Int(raw.loadUnaligned(fromByteOffset: second, as: UInt32.self).littleEndian & FrameFormat.lengthBits)
                let word = raw.loadUnaligned(fromByteOffset: second, as: UInt32.self).littleEndian
                _ = Frame.seal(
                    raw.baseAddress! + second, payloadLength: length, format: format, previous: checksum,
                    continues: word & FrameFormat.continuationFlag != 0, batch: word & FrameFormat.batchFlag != 0)
            }
            writeBytes(path, input)
            do {
                let (records, report) = try LogReader.readAll(path: path)
                #expect(report.validLength <= Int64(input.count))
                #expect(records.map(\.seq) == Array(stride(from: 1, through: UInt64(records.count), by: 1)))
                if !records.isEmpty { mutatedRead += 1 }
                opened += 1
            } catch let error as EventLogError {
                #expect(!error.description.isEmpty)
                refused += 1
            }
        }
        print("fuzz batch frames: \(count) files, \(opened) opened (\(mutatedRead) with records), \(refused) refused with an error")
        #expect(opened + refused == count)
    }
}
