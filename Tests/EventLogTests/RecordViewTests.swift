import Foundation
import LabelStoreTestSupport
import Testing

@testable import EventLog

@Suite("Record views")
struct RecordViewTests {
    /// Every kind, plus the texts that stress a borrowed view: empty, non-ASCII,
    /// longer than a small string, and the 16 KiB limit.
    static func entries() -> [LogEntry] {
        let long = String(repeating: "ü", count: LogLimits.maxTitleBytes / 2)
        let a = fixedID(7), b = fixedID(8)
        return sampleEntries() + [
            LogEntry(
                .added(id: a, title: long, isEnabled: true, index: 3), actor: "chloé 東京",
                note: String(repeating: "n", count: LogLimits.maxNoteBytes)),
            LogEntry(
                .renamed(id: a, oldTitle: long, newTitle: "👩🏽‍💻 e\u{301} \u{202E}rtl"),
                actor: String(repeating: "a", count: LogLimits.maxActorBytes)),
            LogEntry(.removed(id: a, index: Int(Int32.max), title: "日本語のラベル, longer than fifteen bytes", isEnabled: true)),
            LogEntry(.moved(id: b, from: 70_000, to: 0)),
            LogEntry(.reordered(order: (0..<300).map { fixedID(UInt8($0 % 256)) })),
            LogEntry(.reordered(order: [])),
            LogEntry(.rejected(id: nil, command: "", reason: String(repeating: "ß", count: LogLimits.maxReasonBytes / 2)))
        ]
    }

    static func records() -> [EventRecord] {
        entries().enumerated().map { i, entry in
            entry.record(seq: UInt64(i + 1), now: EventTimestamp(millisecondsSince1970: -86_400_000 + Int64(i) * 7_777_777))
        }
    }

    /// Checks every field of `view` against `record`, by kind.
    static func expectFields(of view: EventRecordView, equal record: EventRecord) {
        #expect(view.seq == record.seq)
        #expect(view.timestamp == record.timestamp)
        #expect(view.actor?.string == record.actor)
        #expect(view.note?.string == record.note)
        if let actor = record.actor { #expect(view.actor.map { $0 == actor } == true) }
        if let note = record.note { #expect(view.note.map { $0 == note } == true) }
        #expect(view.kind == record.event.kind)
        #expect(view.labelID == record.event.labelID)
        switch (view.event, record.event) {
        case (.added(let vid, let vtitle, let venabled, let vindex), .added(let id, let title, let enabled, let index)),
            (.removed(let vid, let vindex, let vtitle, let venabled), .removed(let id, let index, let title, let enabled)):
            #expect(vid == id && venabled == enabled && vindex == index)
            #expect(vtitle == title && vtitle.count == title.utf8.count && vtitle.string == title)
        case (.renamed(let vid, let vold, let vnew), .renamed(let id, let old, let new)):
            #expect(vid == id && vold == old && vnew == new && vold.string == old && vnew.string == new)
        case (.toggled(let vid, let venabled), .toggled(let id, let enabled)):
            #expect(vid == id && venabled == enabled)
        case (.moved(let vid, let vfrom, let vto), .moved(let id, let from, let to)):
            #expect(vid == id && vfrom == from && vto == to)
        case (.reordered(let vorder), .reordered(let order)):
            #expect(vorder.count == order.count)
            #expect(Array(vorder) == order)
        case (.rejected(let vid, let vcommand, let vreason), .rejected(let id, let command, let reason)):
            #expect(vid == id && vcommand == command && vreason == reason)
        default:
            Issue.record("seq \(record.seq): the view is \(view.kind), the record \(record.event.kind)")
        }
        #expect(view.record == record)
    }

    @Test func viewsEqualTheDecodedRecordsFieldByFieldForEveryKindAndTextLength() throws {
        let records = Self.records()
        #expect(Set(records.map(\.event.kind)) == Set(LabelEvent.Kind.allCases))
        for record in records {
            let payload = try record.encodedPayload()
            let decoded = try EventRecord.decode(payload: payload)
            #expect(decoded == record)
            try payload.withUnsafeBytes { raw in
                let view = try EventRecordView.parse(payload: raw)
                #expect(view.payload.elementsEqual(payload))
                Self.expectFields(of: view, equal: decoded)
            }
        }
    }

    @Test func theViewParserRejectsExactlyWhatRecordDecodingRejectsWithTheSameMessage() throws {
        var rng = SeededGenerator(seed: 0xB0_0C)
        for record in Self.records().prefix(12) {
            let payload = try record.encodedPayload()
            var inputs = (0..<payload.count).map { Array(payload[..<$0]) } + [payload + [0]]
            for _ in 0..<200 {
                var damaged = payload
                damaged[Int.random(in: 0..<damaged.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                inputs.append(damaged)
            }
            for input in inputs {
                let viaRecord = Result { () throws(EventLogError) in try EventRecord.decode(payload: input) }
                let viaView = input.withUnsafeBytes { raw in
                    Result { () throws(EventLogError) in try EventRecordView.parse(payload: raw).record }
                }
                switch (viaRecord, viaView) {
                case (.success(let a), .success(let b)): #expect(a == b)
                case (.failure(let a), .failure(let b)): #expect(a.message == b.message && a.code == b.code)
                default: Issue.record("decode and parse disagree on \(input)")
                }
            }
        }
    }

    @Test func utf8TextComparesBytesWithStringsAndMaterializesThem() {
        let bytes = Array("Crème brûlée".utf8)
        bytes.withUnsafeBytes { raw in
            let text = UTF8Text(validated: raw)
            #expect(text.count == 15)  // UTF-8 bytes: three two-byte letters
            #expect(text == "Crème brûlée" && "Crème brûlée" == text)
            #expect(text != "Crème brulée" && text != "Crème brûlée!" && text != "")
            #expect(text.string == "Crème brûlée" && text.description == "Crème brûlée")
            // Equality is by bytes: the decomposed spelling is a different text.
            #expect(text != "Cre\u{300}me bru\u{302}le\u{301}e")
            #expect(text == UTF8Text(validated: raw) && text != UTF8Text(validated: UnsafeRawBufferPointer(rebasing: raw[1...])))
        }
        let empty = UTF8Text(validated: UnsafeRawBufferPointer(start: nil, count: 0))
        #expect(empty.isEmpty && empty == "" && empty.string == "")
    }

    @Test func kindCodesRoundTrip() {
        for kind in LabelEvent.Kind.allCases { #expect(LabelEvent.Kind(code: kind.code) == kind) }
    }

    @Test func recordsAndViewsShareOneEventShapeAndOneKindType() {
        // One generic event: the String form and the borrowed form are specializations of it, with one Kind.
        #expect(LabelEvent.self == LabelEventOf<String, [LabelID]>.self)
        #expect(EventRecordView.Event.self == LabelEventOf<UTF8Text, EventRecordView.IDs>.self)
        #expect(LabelEvent.Kind.self == EventKind.self && EventRecordView.Event.Kind.self == EventKind.self)
    }

    @Test func openWithViewsVisitsTheRecordsOpenReplaysFromReplayFromOn() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let written = try writeLog(path, Self.entries(), batch: true)
        var replayed: [EventRecord] = []
        try LogWriter.open(path: path, replay: { replayed.append($0) }).close()
        #expect(replayed == written)
        for from: UInt64 in [1, 5, UInt64(written.count), UInt64(written.count) + 1] {
            var viewed: [EventRecord] = []
            let writer = try LogWriter.openWithViews(path: path, replayFrom: from) { view in
                Self.expectFields(of: view, equal: written[Int(view.seq) - 1])
                viewed.append(view.record)
            }
            #expect(writer.lastSeq == UInt64(written.count))
            writer.close()
            #expect(viewed == Array(written.dropFirst(Int(from) - 1)))
        }
    }

    @Test func forEachViewVisitsTheCompleteRecordsFromASeqThenFollowsNewOnes() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let written = try writeLog(path, Self.entries())
        let reader = try LogReader(path: path)
        var seqs: [UInt64] = []
        let count = try reader.forEachView(from: 4) { view in
            Self.expectFields(of: view, equal: written[Int(view.seq) - 1])
            seqs.append(view.seq)
        }
        #expect(seqs == Array(4...UInt64(written.count)) && count == written.count - 3)
        #expect(try reader.forEachView { _ in Issue.record("visited a record twice") } == 0)

        let writer = try LogWriter.open(path: path)
        let more = try writer.append([LogEntry(.toggled(id: fixedID(1), isEnabled: true)), LogEntry(.moved(id: fixedID(1), from: 1, to: 0))]
        )
        writer.close()
        var followed: [EventRecord] = []
        try reader.forEachView(from: 1) { followed.append($0.record) }
        #expect(followed == more)
        #expect(try reader.next() == nil)
    }

    @Test func framesLargerThanTheReadChunkDecodeAcrossRefills() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let written = try writeLog(path, Self.entries() + Self.entries(), batch: true)
        let file = try SystemFileSystem().open(path, .readOnly)
        defer { file.close() }
        for chunk in [1, 7, 64, 4096] {
            var cursor = FrameCursor(
                file: file, format: try frameFormat(of: readBytes(path)), offset: Int64(LogFormat.headerLength),
                expectedSeq: 1, chunk: chunk)
            var seen: [EventRecord] = []
            while case .record(let view, _) = try cursor.next() { seen.append(view.record) }
            #expect(seen == written, "chunk \(chunk)")
        }
    }
}
