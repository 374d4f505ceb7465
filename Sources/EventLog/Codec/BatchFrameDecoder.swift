import Foundation

/// Decodes the body of a batch frame (docs/FORMAT.md, "Batch frames
/// (version 4)") into its records, one at a time, checking everything the
/// format asks of a decoder: limits before allocating, references, flags,
/// UTF-8, and that the body is the canonical encoding of its records (it is
/// what `BatchFrameEncoder` writes for them, byte for byte).
///
/// A decoder reads a body it does not own: use it only while that memory is
/// valid (the static functions do). After it throws, it decodes nothing more.
///
/// Specified, built and tested; no reader reads a batch frame yet.
struct BatchFrameDecoder {
    /// The body, and the offset of the next byte to read.
    private var reader: ByteReader
    /// The seq of the frame's first record.
    let firstSeq: UInt64
    /// The number of records in the frame.
    let count: Int
    /// The number of records decoded so far (the next one's ordinal).
    private(set) var decoded = 0
    /// The timestamp of the record before the next (at first, the frame's first time).
    private var time: Int64
    /// Where the frame's ids are in the body, to find a literal that repeats one.
    private var idTable: BatchFrameTable
    /// The frame's ids so far, by entry.
    private var ids: [LabelID] = []
    /// Per id entry: the last title a record of the frame stated for it, if any.
    private var lastTitles: [String?] = []
    /// Where the frame's strings (actors, notes, commands, reasons) are in the body.
    private var stringTable = BatchFrameTable()
    /// The frame's strings so far, by entry, each made once.
    private var strings: [String] = []
    /// Where the frame's title words are in the body.
    private var words = BatchFrameTable()
    /// The canonical payload bytes of the records decoded so far (at most ``BatchFrame/maxCanonicalBytes``).
    private var canonicalBytes = 0

    /// A decoder of `body`: reads and checks its header.
    ///
    /// - Throws: ``EventLogError/Code/corruptRecord``: a body over 64 MiB, a
    ///   truncated or non-canonical header, a first seq of 0, a count of 0 or
    ///   over 65,536 or more than a third of the bytes after the header, seqs
    ///   that run past `UInt64.max`.
    init(body: UnsafeRawBufferPointer) throws(EventLogError) {
        var reader = ByteReader(body)
        let header: (seq: UInt64, count: Int, time: Int64)
        do {
            header = try Self.header(&reader)
        } catch {
            throw EventLogError(
                .corruptRecord,
                "batch frame body cannot be decoded: its header: \(error.reason) (detected at byte \(error.offset ?? reader.position))")
        }
        self.reader = reader
        firstSeq = header.seq
        count = header.count
        time = header.time
        // Most records of a frame name an id of their own: room for as many, up to a point.
        let expected = min(count, 4_096)
        idTable = BatchFrameTable(expectedCount: expected)
        ids.reserveCapacity(expected)
        lastTitles.reserveCapacity(expected)
    }

    /// Reads the header: first seq, count, first time; checks them.
    private static func header(_ r: inout ByteReader) throws(DecodeFailure) -> (seq: UInt64, count: Int, time: Int64) {
        guard r.base.count <= BatchFrame.maxBodyBytes else {
            throw DecodeFailure("the body is \(r.base.count) bytes; a frame holds at most \(BatchFrame.maxBodyBytes)")
        }
        let seq = try r.varint()
        guard seq >= 1 else { throw DecodeFailure("first seq 0 is not a valid seq") }
        let count = try r.count(max: BatchFrame.maxRecords, what: "record count")
        guard count >= 1 else { throw DecodeFailure("record count 0: a batch frame holds at least one record") }
        let time = try r.zigzag()
        guard count <= r.remaining / BatchFrame.minRecordBytes else {
            throw DecodeFailure(
                "record count \(count) needs at least \(count * BatchFrame.minRecordBytes) bytes; \(r.remaining) follow the header")
        }
        guard seq <= UInt64.max - UInt64(count - 1) else {
            throw DecodeFailure("the seqs from \(seq) of \(count) records run past \(UInt64.max)")
        }
        return (seq, count, time)
    }

    /// The next record, or `nil` after the last. The last record is returned
    /// only if no byte follows it.
    ///
    /// - Throws: ``EventLogError/Code/corruptRecord`` naming the record's
    ///   ordinal and seq, the byte of the body it starts at, what is wrong and
    ///   where (docs/FORMAT.md, "Batch frames (version 4)", "Corruption").
    mutating func next() throws(EventLogError) -> EventRecord? {
        guard decoded < count else { return nil }
        return try nextRecord()
    }

    /// The next record, when there is one (``decoded`` is below ``count``).
    ///
    /// - Throws: What ``next()`` throws.
    private mutating func nextRecord() throws(EventLogError) -> EventRecord {
        let start = reader.position
        do throws(DecodeFailure) {
            return try parseRecord()
        } catch {
            let ordinal = decoded
            let at: Int = error.offset ?? reader.position
            decoded = count
            let record = "record \(ordinal) of \(count) (seq \(firstSeq &+ UInt64(ordinal))), which starts at byte \(start) of the body"
            throw EventLogError(.corruptRecord, "batch frame body cannot be decoded: \(record): \(error.reason) (detected at byte \(at))")
        }
    }

    /// Reads one record (docs/FORMAT.md, "Layout"), and counts it; the last
    /// one only if no byte follows it.
    private mutating func parseRecord() throws(DecodeFailure) -> EventRecord {
        /// The sizes of format 2's values.
        typealias W = UnsafeByteWriter
        let first = try reader.u8()
        let code = first & BatchFrame.kindMask
        guard let kind = EventKind(code: code) else { throw DecodeFailure("unknown event kind \(code)") }
        var defined = BatchFrame.kindMask | BatchFrame.actorFlag | BatchFrame.noteFlag
        if kind == .renamed || kind == .removed { defined |= BatchFrame.sameTitleFlag }
        guard first & ~defined == 0 else {
            throw DecodeFailure("flag bits 0x\(String(first & ~defined, radix: 16)) are not defined for a \(kind) record")
        }
        let sameTitle = first & BatchFrame.sameTitleFlag != 0
        let delta = try reader.zigzag()
        guard decoded > 0 || delta == 0 else { throw DecodeFailure("the first record's time delta is \(delta), not 0") }
        time &+= delta
        let seq = firstSeq &+ UInt64(decoded)
        // The canonical payload's length, counted field by field (`EventRecord.payloadLength`, without copying the record).
        var length = W.varintLength(seq) + W.varintLength(W.zigzag(time)) + 2
        /// The bytes of a string field: its varint length and its UTF-8.
        @inline(__always) func text(_ s: String) -> Int { W.stringLength(utf8Count: s.utf8.count) }
        /// The bytes of an index or count: a varint.
        @inline(__always) func number(_ n: Int) -> Int { W.varintLength(UInt64(n)) }
        let actor = first & BatchFrame.actorFlag != 0 ? try string(limit: LogLimits.maxActorBytes, "actor") : nil
        if let actor { length += text(actor) }
        let note = first & BatchFrame.noteFlag != 0 ? try string(limit: LogLimits.maxNoteBytes, "note") : nil
        if let note { length += text(note) }
        let event: LabelEvent
        switch kind {
        case .added:
            let k = try id()
            let index = try reader.count(max: LogLimits.maxIndex, what: "index")
            let isEnabled = try reader.bool("isEnabled")
            let title = try title("title")
            lastTitles[k] = title
            length += 17 + number(index) + text(title)
            event = .added(id: ids[k], title: title, isEnabled: isEnabled, index: index)
        case .renamed:
            let k = try id()
            let oldTitle = try statedTitle(of: k, flagged: sameTitle, "old title")
            let newTitle = try title("title")
            lastTitles[k] = newTitle
            length += 16 + text(oldTitle) + text(newTitle)
            event = .renamed(id: ids[k], oldTitle: oldTitle, newTitle: newTitle)
        case .toggled:
            let k = try id()
            length += 17
            event = .toggled(id: ids[k], isEnabled: try reader.bool("isEnabled"))
        case .removed:
            let k = try id()
            let index = try reader.count(max: LogLimits.maxIndex, what: "index")
            let isEnabled = try reader.bool("isEnabled")
            let title = try statedTitle(of: k, flagged: sameTitle, "title")
            lastTitles[k] = title
            length += 17 + number(index) + text(title)
            event = .removed(id: ids[k], index: index, title: title, isEnabled: isEnabled)
        case .moved:
            let k = try id()
            let from = try reader.count(max: LogLimits.maxIndex, what: "from index")
            let to = try reader.count(max: LogLimits.maxIndex, what: "to index")
            length += 16 + number(from) + number(to)
            event = .moved(id: ids[k], from: from, to: to)
        case .reordered:
            let n = try reader.count(max: LogLimits.maxReorderCount, what: "reorder count")
            guard n <= reader.remaining else {
                throw DecodeFailure("reorder count \(n) needs at least \(n) bytes; \(reader.remaining) are left")
            }
            guard canonicalBytes + 16 * n <= BatchFrame.maxCanonicalBytes else { throw overLimit(adding: 16 * n) }
            var order: [LabelID] = []
            order.reserveCapacity(n)
            for _ in 0..<n { order.append(ids[try id()]) }
            length += number(n) + 16 * n
            event = .reordered(order: order)
        case .rejected:
            let id = try reader.bool("has-id") ? ids[try self.id()] : nil
            let command = try string(limit: LogLimits.maxReasonBytes, "rejected command")
            let reason = try string(limit: LogLimits.maxReasonBytes, "rejection reason")
            length += 1 + (id == nil ? 0 : 16) + text(command) + text(reason)
            event = .rejected(id: id, command: command, reason: reason)
        }
        guard canonicalBytes + length <= BatchFrame.maxCanonicalBytes else { throw overLimit(adding: length) }
        guard decoded + 1 < count || reader.isAtEnd else { throw DecodeFailure("\(reader.remaining) bytes follow the last record") }
        canonicalBytes += length
        decoded += 1
        #if DEBUG
        let record = EventRecord(seq: seq, timestamp: EventTimestamp(millisecondsSince1970: time), actor: actor, note: note, event: event)
        assert(record.payloadLength == length, "the canonical length counted is the record's payload length")
        #endif
        return EventRecord(seq: seq, timestamp: EventTimestamp(millisecondsSince1970: time), actor: actor, note: note, event: event)
    }

    /// The failure of a frame whose records' payloads would pass 64 MiB with `bytes` more.
    private func overLimit(adding bytes: Int) -> DecodeFailure {
        DecodeFailure(
            "the records' canonical payloads reach \(canonicalBytes + bytes) bytes; a batch frame holds at most \(BatchFrame.maxCanonicalBytes)"
        )
    }

    /// Reads an id code and returns its entry: a reference to an earlier id,
    /// or a literal, which must be new to the frame and becomes its next entry.
    private mutating func id() throws(DecodeFailure) -> Int {
        let code = try reader.varint()
        if code & 1 != 0 {
            let k = code >> 1
            guard k < UInt64(ids.count) else { throw DecodeFailure("id reference \(k) names no id: the frame has \(ids.count) so far") }
            return Int(k)
        }
        guard code == BatchFrame.literalCode else { throw DecodeFailure("id code \(code) is neither a reference (odd) nor a literal (0)") }
        let start = reader.position
        let id = try reader.id()
        let bytes = UnsafeRawBufferPointer(rebasing: reader.base[start..<start + 16])
        let hash = idTable.hash(bytes)
        if let k = idTable.find(bytes, hash: hash, in: reader.base) {
            throw DecodeFailure("literal id \(id) is id \(k) of the frame already (a reference is canonical)")
        }
        idTable.append(start: start, length: 16, hash: hash)
        ids.append(id)
        lastTitles.append(nil)
        return ids.count - 1
    }

    /// Reads a string code (an actor, note, command or reason) within `limit`
    /// bytes: a reference to an earlier string, or `0` and a string new to the frame.
    private mutating func string(limit: Int, _ what: StaticString) throws(DecodeFailure) -> String {
        let code = try reader.varint()
        if code & 1 != 0 {
            let k = code >> 1
            guard k < UInt64(strings.count) else {
                throw DecodeFailure("\(what) reference \(k) names no string: the frame has \(strings.count) so far")
            }
            let length = stringTable.entry(Int(k)).length
            guard length <= limit else { throw DecodeFailure("\(what) is string \(k), of \(length) bytes; the limit is \(limit)") }
            return strings[Int(k)]
        }
        guard code == BatchFrame.literalCode else {
            throw DecodeFailure("\(what) code \(code) is neither a reference (odd) nor a literal (0)")
        }
        let text = try reader.text(maxBytes: limit, what: what)
        let hash = stringTable.hash(text.bytes)
        if let k = stringTable.find(text.bytes, hash: hash, in: reader.base) {
            throw DecodeFailure("literal \(what) is string \(k) of the frame already (a reference is canonical)")
        }
        stringTable.append(start: reader.position - text.count, length: text.count, hash: hash)
        let string = text.string
        strings.append(string)
        return string
    }

    /// A renamed's old title or a removed's title for the label of id entry
    /// `k`: its last stated title if `flagged` (bit 5), else a title in full,
    /// which must not be that title (the flag is canonical).
    private mutating func statedTitle(of k: Int, flagged: Bool, _ what: StaticString) throws(DecodeFailure) -> String {
        if flagged {
            guard let stated = lastTitles[k] else {
                throw DecodeFailure("the same-title bit is set, but label \(ids[k]) has no title stated earlier in the frame")
            }
            return stated
        }
        let title = try title(what)
        if let stated = lastTitles[k], BatchFrame.sameUTF8(stated, title) {
            throw DecodeFailure("the \(what) is coded in full but is the label's last stated title (the same-title bit is canonical)")
        }
        return title
    }

    /// Reads a title: its word count, then each word as a reference to an
    /// earlier word or a literal new to the frame; joins the words with 0x20.
    /// Two passes over the word codes: the first checks them and sums the
    /// length, the second copies the words into the title's storage.
    private mutating func title(_ what: StaticString) throws(DecodeFailure) -> String {
        let n = try reader.count(max: BatchFrame.maxTitleWords, what: "title word count")
        guard n > 0 else { return "" }
        guard n <= reader.remaining else {
            throw DecodeFailure("\(what) of \(n) words needs at least \(n) bytes; \(reader.remaining) are left")
        }
        let codes = reader.position
        var length = n - 1
        for i in 0..<n {
            let code = try reader.varint()
            let k = Int(truncatingIfNeeded: code &>> 1)
            // A reference to a word already read (the common case), else the checks of `word`.
            length += code & 1 != 0 && k < words.count ? words.entry(k).length : try word(code, what).length
            guard length <= LogLimits.maxTitleBytes else {
                throw DecodeFailure("\(what) is over \(LogLimits.maxTitleBytes) bytes, the limit, from its first \(i + 1) words")
            }
        }
        guard length > 0 else { throw DecodeFailure("\(what) is one empty word (the empty title is zero words)") }
        guard canonicalBytes + length <= BatchFrame.maxCanonicalBytes else { throw overLimit(adding: length) }
        let body = reader.base.baseAddress!
        return String(unsafeUninitializedCapacity: length) { out in
            let to = out.baseAddress!
            var at = 0
            var position = codes
            for i in 0..<n {
                if i > 0 {
                    to[at] = BatchFrame.wordSeparator
                    at &+= 1
                }
                // The code again (checked by the first pass): a canonical varint.
                var code: UInt64 = 0
                var shift: UInt64 = 0
                var byte: UInt8
                repeat {
                    byte = body.load(fromByteOffset: position, as: UInt8.self)
                    code |= UInt64(byte & 0x7f) &<< shift
                    shift &+= 7
                    position &+= 1
                } while byte & 0x80 != 0
                let start: Int, count: Int
                if code & 1 != 0 {
                    (start, count) = words.entry(Int(truncatingIfNeeded: code &>> 1))
                } else {
                    (start, count) = (position, Int(truncatingIfNeeded: code &>> 1))
                    position &+= count
                }
                UnsafeMutableRawPointer(to + at).copyMemory(from: body + start, byteCount: count)
                at &+= count
            }
            return at
        }
    }

    /// The word of a word `code` just read: a reference to an earlier word,
    /// or a literal (valid UTF-8, no 0x20, new to the frame), which becomes
    /// the next word. Returns where the word's bytes are in the body.
    private mutating func word(_ code: UInt64, _ what: StaticString) throws(DecodeFailure) -> (start: Int, length: Int) {
        if code & 1 != 0 {
            let k = code >> 1
            guard k < UInt64(words.count) else {
                throw DecodeFailure("word reference \(k) names no word: the frame has \(words.count) so far")
            }
            return words.entry(Int(k))
        }
        let declared = code >> 1
        guard declared <= UInt64(LogLimits.maxTitleBytes) else {
            throw DecodeFailure("a word of \(what) is \(declared) bytes; the limit is \(LogLimits.maxTitleBytes)")
        }
        let start = reader.position
        let bytes = try reader.bytes(Int(declared))
        guard ByteReader.isValidUTF8(bytes) else { throw DecodeFailure("a word of \(what) is not valid UTF-8") }
        if !bytes.isEmpty, memchr(bytes.baseAddress!, Int32(BatchFrame.wordSeparator), bytes.count) != nil {
            throw DecodeFailure("a literal word of \(what) holds a space (0x20), which separates words")
        }
        let hash = words.hash(bytes)
        if let k = words.find(bytes, hash: hash, in: reader.base) {
            throw DecodeFailure("a literal word of \(what) is word \(k) of the frame already (a reference is canonical)")
        }
        words.append(start: start, length: bytes.count, hash: hash)
        return (start, bytes.count)
    }
}

extension BatchFrameDecoder {
    /// The records of a batch frame's body.
    ///
    /// - Throws: ``EventLogError/Code/corruptRecord`` for any body that is not
    ///   the canonical encoding of a run of records (``next()``).
    /// - Complexity: O(b) in the records' bytes; allocates at most 64 MiB of
    ///   payloads (and 65,536 records), whatever the body says.
    static func decode(_ body: UnsafeRawBufferPointer) throws(EventLogError) -> [EventRecord] {
        var decoder = try BatchFrameDecoder(body: body)
        var records: [EventRecord] = []
        records.reserveCapacity(decoder.count)
        for _ in 0..<decoder.count { records.append(try decoder.nextRecord()) }
        return records
    }

    /// The records of a batch frame's body, given as bytes.
    ///
    /// - Throws: What decoding the same bytes in memory throws (the other `decode(_:)`).
    static func decode(_ body: [UInt8]) throws(EventLogError) -> [EventRecord] {
        try body.withBytes { raw throws(EventLogError) in try decode(raw) }
    }

    /// Calls `visit` with each record of a batch frame's body and its
    /// canonical payload: the format 2 payload of the same record
    /// (docs/FORMAT.md, "Payload"), the bytes the history tree hashes. The
    /// payload is valid only during the call.
    ///
    /// - Throws: What ``next()`` throws (the records before a fault are
    ///   visited first), and what `visit` throws.
    static func forEachCanonicalPayload(
        in body: UnsafeRawBufferPointer, _ visit: (EventRecord, UnsafeRawBufferPointer) throws(EventLogError) -> Void
    ) throws(EventLogError) {
        var decoder = try BatchFrameDecoder(body: body)
        var payload = ByteWriter(capacity: 256)
        while let record = try decoder.next() {
            payload.bytes.removeAll(keepingCapacity: true)
            record.encodePayload(into: &payload)
            try payload.bytes.withBytes { raw throws(EventLogError) in try visit(record, raw) }
        }
    }

    /// The canonical payload of each record of a batch frame's body, in order
    /// (``forEachCanonicalPayload(in:_:)``).
    ///
    /// - Throws: What ``next()`` throws.
    static func canonicalPayloads(_ body: [UInt8]) throws(EventLogError) -> [[UInt8]] {
        var payloads: [[UInt8]] = []
        try body.withBytes { raw throws(EventLogError) in
            try forEachCanonicalPayload(in: raw) { _, payload in payloads.append(Array(payload)) }
        }
        return payloads
    }
}
