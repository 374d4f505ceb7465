import Foundation
import LabelStoreTestSupport
import Testing

@testable import EventLog

/// Regressions for what the review of the encoding and in-place decoding found.
@Suite struct ReviewRegressionTests {
    /// Every field within its limit, the whole payload over the frame limit:
    /// the writer must refuse it (a reader would call the frame damaged and a
    /// reopen would cut an acknowledged record).
    @Test func theWriterRefusesAPayloadLargerThanAFrameMayHold() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let order = [LabelID](
            repeating: LabelID(bytes: (0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF)),
            count: LogLimits.maxReorderCount)
        let entry = LogEntry(
            .reordered(order: order), actor: String(repeating: "a", count: LogLimits.maxActorBytes),
            note: String(repeating: "n", count: LogLimits.maxNoteBytes))
        let writer = try LogWriter.open(path: path, options: .init(durability: .noSync, createIfMissing: true))
        try writer.append(LogEntry(.added(id: fixedID(1), title: "A", isEnabled: true, index: 0)))
        do {
            try writer.append(entry)
            Issue.record("the writer acknowledged a payload over \(LogLimits.maxPayloadBytes) bytes")
        } catch {
            #expect(error.code == .invalidEvent && error.message.contains("at most \(LogLimits.maxPayloadBytes)"))
        }
        // The same reorder without the long envelope fits, and survives a reopen.
        try writer.append(LogEntry(.reordered(order: Array(order.prefix(1000)))))
        #expect(writer.lastSeq == 2)
        writer.close()
        let reopened = try LogWriter.open(path: path)
        #expect(reopened.lastSeq == 2 && reopened.recoveryReport.damage == nil)
        reopened.close()
    }

    /// A length word of 2^31 or more is damage, reported, not a trap (on 32-bit platforms `Int(word)` would trap).
    @Test func aHugeLengthWordIsReportedAsDamage() {
        var bytes = [UInt8](repeating: 0, count: 64)
        bytes[0] = 0xFF
        bytes[1] = 0xFF
        bytes[2] = 0xFF
        bytes[3] = 0xFF
        bytes.withUnsafeBytes { raw in
            for format in [FrameFormat.version1, FrameFormat(version: 2, logID: LabelID())] {
                guard case .damaged(let reason) = Frame.check(raw, at: 0, format: format) else {
                    Issue.record("a length word of 0xFFFFFFFF was not damage in version \(format.version)")
                    return
                }
                #expect(reason.contains("impossible record length word 0xffffffff"))
                guard case .none = Frame.candidate(raw, at: 0, fileRemaining: 64, format: format) else {
                    Issue.record("a length word of 0xFFFFFFFF was a candidate frame")
                    return
                }
            }
        }
    }
}

/// A view points into the reader's buffer: using the reader inside its own
/// `forEachView` closure is refused instead of moving the bytes under the view.
@Suite struct ReaderReentrancyTests {
    @Test func readingFromInsideForEachViewIsRefusedAndTheViewStaysIntact() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        var entries: [LogEntry] = []
        for i in 0..<3 {
            entries.append(
                LogEntry(
                    .reordered(order: [LabelID](repeating: fixedID(UInt8(i)), count: 70_000)),
                    actor: "actor-\(i)-" + String(repeating: "x", count: 40)))
        }
        try writeLog(path, entries)
        let reader = try LogReader(path: path)
        var refusals = 0, intact = 0
        let visited = try reader.forEachView { view in
            let before = view.actor!.string
            for attempt in 0..<3 {
                do {
                    switch attempt {
                    case 0: _ = try reader.next()
                    case 1: _ = try reader.poll()
                    default: try reader.skip(toSeq: 3)
                    }
                } catch {
                    if (error as? EventLogError)?.code == .readerBusy { refusals += 1 }
                }
            }
            if view.actor!.string == before { intact += 1 }
        }
        #expect(visited == 3 && refusals == 9 && intact == 3)
        #expect(try reader.next() == nil, "after the call the reader is usable again, at the end")
    }
}

/// The scan for good frames after damage checksums a candidate only when
/// its payload starts like a record, so a large damaged region is not
/// checksummed megabytes at a time from every byte offset.
@Suite struct FramePrefilterTests {
    @Test func everyRealPayloadStartsLikeOneAndFewRandomBytesDo() throws {
        for (i, entry) in sampleEntries().enumerated() {
            let payload = try entry.record(seq: UInt64(i + 1), now: EventTimestamp(millisecondsSince1970: 1_764_460_800_000))
                .encodedPayload()
            #expect(payload.withUnsafeBytes { Frame.startsLikeAPayload($0) }, "sample \(i)")
        }
        var rng = SeededGenerator(seed: 11)
        var passed = 0
        for _ in 0..<20_000 {
            let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &rng) }
            if bytes.withUnsafeBytes({ Frame.startsLikeAPayload($0) }) { passed += 1 }
        }
        #expect(passed < 100, "\(passed) of 20,000 random prefixes passed")
    }
}
