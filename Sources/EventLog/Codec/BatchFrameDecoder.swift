import Foundation

/// Decodes the body of a batch frame (docs/FORMAT.md, "Batch frames
/// (version 4)") into ``BatchFrameRecord``s — values, and where each text
/// and id is — checking everything the format asks of a decoder: limits
/// before allocating, references, flags, UTF-8, the limits of the records'
/// canonical payloads, and that the body is the canonical encoding of its
/// records (it is what `BatchFrameEncoder` writes for them, byte for byte).
///
/// Nothing is copied for an id, a string or a one-word title: a record
/// points at its bytes in the body. A title of several words, and a
/// reorder's ids, are assembled into ``arena``. The canonical payloads are
/// not built here: ``BatchFrameRecords`` writes them from the records when
/// they are asked for (the history tree hashes them; a fold does not need
/// them), and ``canonicalBytes`` is what they add up to.
///
/// A decoder reads a body it does not own: use it only while that memory is
/// valid (``BatchFrameRecords`` keeps its own copy). After it throws, it
/// decodes nothing more.
struct BatchFrameDecoder {
    /// The body, and the offset of the next byte to read.
    private var reader: ByteReader
    /// The seq of the frame's first record.
    let firstSeq: UInt64
    /// The number of records in the frame.
    let count: Int
    /// The timestamp of the record before the next (at first, the frame's first time).
    private var time: Int64
    /// Where the frame's ids are in the body, to find a literal that repeats one.
    private var idTable: BatchFrameTable
    /// Per id entry: the last title a record of the frame stated for it
    /// (``BatchFrameText/absent`` if none).
    private var lastTitles: [BatchFrameText] = []
    /// Where the frame's strings (actors, notes, commands, reasons) are in the body.
    private var stringTable = BatchFrameTable()
    /// Where the frame's title words are in the body.
    private var words = BatchFrameTable()
    /// Titles of several words and reorders' ids, assembled. (A class: a
    /// copy of the decoder writes to the same buffer; none is made.)
    let arena: ReadBuffer
    /// The records decoded so far, in order.
    private(set) var records: [BatchFrameRecord] = []
    /// The bytes the canonical (format 2) payloads of the records decoded so
    /// far take, with the fields read of the one being decoded: at most
    /// ``BatchFrame/maxCanonicalBytes``.
    private(set) var canonicalBytes = 0

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
        lastTitles.reserveCapacity(expected)
        arena = ReadBuffer(capacity: min(body.count * 2 + 64, BatchFrame.maxCanonicalBytes))
        records.reserveCapacity(count)
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

    /// Decodes every record, the last one only if no byte follows it.
    ///
    /// - Throws: ``EventLogError/Code/corruptRecord`` naming the record's
    ///   ordinal and seq, the byte of the body it starts at, what is wrong and
    ///   where (docs/FORMAT.md, "Batch frames (version 4)", "Corruption").
    mutating func decodeAll() throws(EventLogError) {
        while records.count < count {
            let start = reader.position
            do throws(DecodeFailure) {
                try parseRecord()
            } catch {
                let ordinal = records.count
                let at: Int = error.offset ?? reader.position
                let record = "record \(ordinal) of \(count) (seq \(firstSeq &+ UInt64(ordinal))), which starts at byte \(start) of the body"
                throw EventLogError(
                    .corruptRecord, "batch frame body cannot be decoded: \(record): \(error.reason) (detected at byte \(at))")
            }
        }
    }

    /// Reads one record (docs/FORMAT.md, "Layout") into ``records``, counting
    /// the bytes of its canonical payload (docs/FORMAT.md, "Payload"); the
    /// last one only if no byte follows it.
    private mutating func parseRecord() throws(DecodeFailure) {
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
        guard !records.isEmpty || delta == 0 else { throw DecodeFailure("the first record's time delta is \(delta), not 0") }
        time &+= delta
        let seq = firstSeq &+ UInt64(records.count)
        let start = canonicalBytes
        var record = BatchFrameRecord(time: time, kind: kind)
        // The envelope: seq, time, kind, flags, then the actor and note.
        canonicalBytes &+= Self.varintLength(seq) &+ Self.varintLength(Self.zigzag(time)) &+ 2
        if first & BatchFrame.actorFlag != 0 { record.actor = try string(limit: LogLimits.maxActorBytes, "actor") }
        if first & BatchFrame.noteFlag != 0 { record.note = try string(limit: LogLimits.maxNoteBytes, "note") }
        switch kind {
        case .added:
            let k = try id(&record)
            try indexAndState(&record)
            record.text = try title("title")
            lastTitles[k] = record.text
        case .renamed:
            let k = try id(&record)
            record.text = try statedTitle(of: k, flagged: sameTitle, "old title")
            record.secondText = try title("title")
            lastTitles[k] = record.secondText
        case .toggled:
            _ = try id(&record)
            record.isEnabled = try reader.bool("isEnabled")
            canonicalBytes &+= 1
        case .removed:
            let k = try id(&record)
            try indexAndState(&record)
            record.text = try statedTitle(of: k, flagged: sameTitle, "title")
            lastTitles[k] = record.text
        case .moved:
            _ = try id(&record)
            let from = try reader.count(max: LogLimits.maxIndex, what: "from index")
            let to = try reader.count(max: LogLimits.maxIndex, what: "to index")
            record.first = Int32(truncatingIfNeeded: from)
            record.second = Int32(truncatingIfNeeded: to)
            canonicalBytes &+= Self.varintLength(UInt64(from)) &+ Self.varintLength(UInt64(to))
        case .reordered:
            try reorder(&record)
        case .rejected:
            let hasID = try reader.bool("has-id")
            canonicalBytes &+= 1
            if hasID { _ = try id(&record) }
            record.text = try string(limit: LogLimits.maxReasonBytes, "rejected command")
            record.secondText = try string(limit: LogLimits.maxReasonBytes, "rejection reason")
        }
        guard canonicalBytes <= BatchFrame.maxCanonicalBytes else { throw overLimit(adding: 0) }
        guard records.count + 1 < count || reader.isAtEnd else { throw DecodeFailure("\(reader.remaining) bytes follow the last record") }
        guard canonicalBytes - start <= LogLimits.maxPayloadBytes else {
            throw DecodeFailure(
                "record \(seq)'s payload would be \(canonicalBytes - start) bytes; a record holds at most \(LogLimits.maxPayloadBytes)")
        }
        records.append(record)
    }

    /// Reads an `added`'s or `removed`'s index and `isEnabled`.
    @inline(__always)
    private mutating func indexAndState(_ record: inout BatchFrameRecord) throws(DecodeFailure) {
        let index = try reader.count(max: LogLimits.maxIndex, what: "index")
        record.isEnabled = try reader.bool("isEnabled")
        record.first = Int32(truncatingIfNeeded: index)
        canonicalBytes &+= Self.varintLength(UInt64(index)) &+ 1
    }

    /// Reads a reorder's ids and assembles them into ``arena``, 16 bytes each.
    private mutating func reorder(_ record: inout BatchFrameRecord) throws(DecodeFailure) {
        let n = try reader.count(max: LogLimits.maxReorderCount, what: "reorder count")
        guard n <= reader.remaining else {
            throw DecodeFailure("reorder count \(n) needs at least \(n) bytes; \(reader.remaining) are left")
        }
        guard canonicalBytes + 16 * n <= BatchFrame.maxCanonicalBytes else { throw overLimit(adding: 16 * n) }
        canonicalBytes &+= Self.varintLength(UInt64(n))
        let start = arena.count
        var scratch = BatchFrameRecord(time: 0, kind: .reordered)
        for _ in 0..<n {
            _ = try id(&scratch)
            arena.appendID(from: reader.base.baseAddress! + Int(scratch.id))
        }
        record.first = Int32(truncatingIfNeeded: n)
        record.text = BatchFrameText(arena: start, length: 16 * n)
    }

    /// The failure of a frame whose records' payloads would pass 64 MiB with `bytes` more.
    private func overLimit(adding bytes: Int) -> DecodeFailure {
        DecodeFailure(
            "the records' canonical payloads reach \(canonicalBytes + bytes) bytes; a batch frame holds at most \(BatchFrame.maxCanonicalBytes)"
        )
    }

    /// Reads an id code into `record.id` (where its 16 bytes are in the body)
    /// and returns its entry: a reference to an earlier id, or a literal,
    /// which must be new to the frame and becomes its next entry.
    private mutating func id(_ record: inout BatchFrameRecord) throws(DecodeFailure) -> Int {
        canonicalBytes &+= 16
        let code = try reader.varint()
        if code & 1 != 0 {
            let k = code >> 1
            guard k < UInt64(idTable.count) else {
                throw DecodeFailure("id reference \(k) names no id: the frame has \(idTable.count) so far")
            }
            record.id = Int32(truncatingIfNeeded: idTable.entry(Int(k)).start)
            return Int(k)
        }
        guard code == BatchFrame.literalCode else { throw DecodeFailure("id code \(code) is neither a reference (odd) nor a literal (0)") }
        let start = reader.position
        guard reader.remaining >= 16 else { throw DecodeFailure("unexpected end of record in a label id", .truncated, at: start) }
        let bytes = UnsafeRawBufferPointer(rebasing: reader.base[start..<start + 16])
        reader.position = start + 16
        let hash = idTable.hash(bytes)
        if let k = idTable.find(bytes, hash: hash, in: reader.base) {
            let id = LabelID(UUID(uuid: bytes.loadUnaligned(as: uuid_t.self)))
            throw DecodeFailure("literal id \(id) is id \(k) of the frame already (a reference is canonical)")
        }
        idTable.append(start: start, length: 16, hash: hash)
        lastTitles.append(.absent)
        record.id = Int32(truncatingIfNeeded: start)
        return idTable.count - 1
    }

    /// Reads a string code (an actor, note, command or reason) within `limit`
    /// bytes — a reference to an earlier string, or `0` and a string new to
    /// the frame — and returns where the string is in the body.
    private mutating func string(limit: Int, _ what: StaticString) throws(DecodeFailure) -> BatchFrameText {
        let code = try reader.varint()
        if code & 1 != 0 {
            let k = code >> 1
            guard k < UInt64(stringTable.count) else {
                throw DecodeFailure("\(what) reference \(k) names no string: the frame has \(stringTable.count) so far")
            }
            let entry = stringTable.entry(Int(k))
            guard entry.length <= limit else {
                throw DecodeFailure("\(what) is string \(k), of \(entry.length) bytes; the limit is \(limit)")
            }
            canonicalBytes &+= Self.varintLength(UInt64(entry.length)) &+ entry.length
            return BatchFrameText(body: entry.start, length: entry.length)
        }
        guard code == BatchFrame.literalCode else {
            throw DecodeFailure("\(what) code \(code) is neither a reference (odd) nor a literal (0)")
        }
        let text = try reader.text(maxBytes: limit, what: what)
        let hash = stringTable.hash(text.bytes)
        if let k = stringTable.find(text.bytes, hash: hash, in: reader.base) {
            throw DecodeFailure("literal \(what) is string \(k) of the frame already (a reference is canonical)")
        }
        let start = reader.position - text.count
        stringTable.append(start: start, length: text.count, hash: hash)
        canonicalBytes &+= Self.varintLength(UInt64(text.count)) &+ text.count
        return BatchFrameText(body: start, length: text.count)
    }

    /// A renamed's old title or a removed's title for the label of id entry
    /// `k`: its last stated title if `flagged` (bit 5), else a title in full,
    /// which must not be that title (the flag is canonical).
    private mutating func statedTitle(of k: Int, flagged: Bool, _ what: StaticString) throws(DecodeFailure) -> BatchFrameText {
        if flagged {
            let stated = lastTitles[k]
            guard stated.isPresent else {
                let id = LabelID(UUID(uuid: (reader.base.baseAddress! + idTable.entry(k).start).loadUnaligned(as: uuid_t.self)))
                throw DecodeFailure("the same-title bit is set, but label \(id) has no title stated earlier in the frame")
            }
            canonicalBytes &+= Self.varintLength(UInt64(stated.length)) &+ Int(stated.length)
            return stated
        }
        return try title(what, notAfter: lastTitles[k], sameIsCorrupt: true)
    }

    /// Reads a title — its word count, then each word as a reference to an
    /// earlier word or a literal new to the frame. One word is where it is in
    /// the body; several are joined with 0x20 in ``arena``. With
    /// `sameIsCorrupt`, a title equal to `stated` (the label's last stated
    /// title) is corruption: the same-title bit is the canonical coding of it.
    private mutating func title(
        _ what: StaticString, notAfter stated: BatchFrameText = .absent, sameIsCorrupt: Bool = false
    ) throws(DecodeFailure) -> BatchFrameText {
        let n = try reader.count(max: BatchFrame.maxTitleWords, what: "title word count")
        guard n > 0 else {
            if sameIsCorrupt, stated.length == 0 {
                throw DecodeFailure("the \(what) is coded in full but is the label's last stated title (the same-title bit is canonical)")
            }
            canonicalBytes &+= 1
            return BatchFrameText(body: 0, length: 0)
        }
        guard n <= reader.remaining else {
            throw DecodeFailure("\(what) of \(n) words needs at least \(n) bytes; \(reader.remaining) are left")
        }
        // Two passes over the word codes: the first checks them and sums the length, the second copies the words.
        let codes = reader.position
        var length = n - 1
        var last = (start: 0, length: 0)
        for i in 0..<n {
            let code = try reader.varint()
            let k = Int(truncatingIfNeeded: code &>> 1)
            // A reference to a word already read (the common case), else the checks of `word`.
            last = code & 1 != 0 && k < words.count ? words.entry(k) : try word(code, what)
            length += last.length
            guard length <= LogLimits.maxTitleBytes else {
                throw DecodeFailure("\(what) is over \(LogLimits.maxTitleBytes) bytes, the limit, from its first \(i + 1) words")
            }
        }
        guard length > 0 else { throw DecodeFailure("\(what) is one empty word (the empty title is zero words)") }
        guard canonicalBytes + length <= BatchFrame.maxCanonicalBytes else { throw overLimit(adding: length) }
        canonicalBytes &+= Self.varintLength(UInt64(length)) &+ length
        let text = n == 1 ? BatchFrameText(body: last.start, length: length) : assemble(n, codes: codes, length: length)
        if sameIsCorrupt, stated.length == Int32(length) {
            let body = reader.base.baseAddress!
            let a = stated.bytes(body: body, arena: arena.base), b = text.bytes(body: body, arena: arena.base)
            if memcmp(a.baseAddress!, b.baseAddress!, length) == 0 {
                throw DecodeFailure("the \(what) is coded in full but is the label's last stated title (the same-title bit is canonical)")
            }
        }
        return text
    }

    /// Joins the `n` words whose codes (checked) start at `codes` in the
    /// body, `length` bytes in all with their separators, into ``arena``.
    private func assemble(_ n: Int, codes: Int, length: Int) -> BatchFrameText {
        let start = arena.count
        // Room for the title and 8 bytes of slack: a short word is copied as one 8-byte store.
        arena.ensureRoom(length + 8)
        arena.count += length
        let body = reader.base.baseAddress!
        let bodyEnd = reader.base.count
        let to = arena.base + start
        var at = 0
        var position = codes
        for i in 0..<n {
            if i > 0 {
                to.storeBytes(of: BatchFrame.wordSeparator, toByteOffset: at, as: UInt8.self)
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
            let wordStart: Int, count: Int
            if code & 1 != 0 {
                (wordStart, count) = words.entry(Int(truncatingIfNeeded: code &>> 1))
            } else {
                (wordStart, count) = (position, Int(truncatingIfNeeded: code &>> 1))
                position &+= count
            }
            if count <= 8 && wordStart &+ 8 <= bodyEnd {
                // One unaligned 8-byte load and store; the bytes past the word are overwritten next.
                (to + at).storeBytes(of: body.loadUnaligned(fromByteOffset: wordStart, as: UInt64.self), as: UInt64.self)
            } else if count > 0 {
                (to + at).copyMemory(from: body + wordStart, byteCount: count)
            }
            at &+= count
        }
        return BatchFrameText(arena: start, length: length)
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

    /// The bytes of `v` as an unsigned LEB128 varint (1–10).
    @inline(__always)
    static func varintLength(_ v: UInt64) -> Int { v < 0x80 ? 1 : (70 - v.leadingZeroBitCount) / 7 }

    /// `v` zigzag-coded.
    @inline(__always)
    static func zigzag(_ v: Int64) -> UInt64 { UInt64(bitPattern: (v &<< 1) ^ (v >> 63)) }
}

extension BatchFrameDecoder {
    /// The records of a batch frame's body.
    ///
    /// - Throws: ``EventLogError/Code/corruptRecord`` for any body that is not
    ///   the canonical encoding of a run of records (``decodeAll()``).
    /// - Complexity: O(b) in the records' bytes; allocates at most 64 MiB of
    ///   texts (and 65,536 records), whatever the body says.
    static func decode(_ body: UnsafeRawBufferPointer) throws(EventLogError) -> [EventRecord] {
        let frame = try BatchFrameRecords(body: body)
        return (0..<frame.count).map { frame.view($0).record }
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
    /// payload is valid only during the call. A body that does not decode
    /// visits nothing.
    ///
    /// - Throws: What ``decodeAll()`` throws, and what `visit` throws.
    static func forEachCanonicalPayload(
        in body: UnsafeRawBufferPointer, _ visit: (EventRecord, UnsafeRawBufferPointer) throws(EventLogError) -> Void
    ) throws(EventLogError) {
        let frame = try BatchFrameRecords(body: body)
        for i in 0..<frame.count { try visit(frame.view(i).record, frame.payload(i)) }
    }

    /// The canonical payload of each record of a batch frame's body, in order
    /// (``forEachCanonicalPayload(in:_:)``).
    ///
    /// - Throws: What ``decodeAll()`` throws.
    static func canonicalPayloads(_ body: [UInt8]) throws(EventLogError) -> [[UInt8]] {
        var payloads: [[UInt8]] = []
        try body.withBytes { raw throws(EventLogError) in
            try forEachCanonicalPayload(in: raw) { _, payload in payloads.append(Array(payload)) }
        }
        return payloads
    }
}
