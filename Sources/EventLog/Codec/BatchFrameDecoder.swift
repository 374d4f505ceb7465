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
    /// Per id entry: where the last title a record of the frame stated for
    /// it is in ``payloads`` (its UTF-8 bytes), if any.
    private var lastTitles: [(start: Int, length: Int)?] = []
    /// Where the frame's strings (actors, notes, commands, reasons) are in the body.
    private var stringTable = BatchFrameTable()
    /// Where the frame's title words are in the body.
    private var words = BatchFrameTable()
    /// The canonical (format 2) payloads of the records decoded so far, back
    /// to back (at most ``BatchFrame/maxCanonicalBytes``), written in place:
    /// a ``BatchFrameRecords`` keeps this buffer as it is. (A class: a copy
    /// of the decoder writes to the same buffer; none is made.)
    let payloads: ReadBuffer
    /// Where each decoded record's payload ends in ``payloads``.
    private(set) var payloadEnds: [Int] = []

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
        payloads = ReadBuffer(capacity: min(body.count * 3 + 64, BatchFrame.maxCanonicalBytes))
        payloadEnds.reserveCapacity(count)
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
        guard try nextPayload() else { return nil }
        let last = lastPayload
        return try EventRecordView.parse(payload: UnsafeRawBufferPointer(rebasing: payloads.written[last])).record
    }

    /// Where the last decoded record's payload is in ``payloads``.
    var lastPayload: Range<Int> {
        (payloadEnds.count > 1 ? payloadEnds[payloadEnds.count - 2] : 0)..<payloadEnds[payloadEnds.count - 1]
    }

    /// Decodes the next record into its canonical payload, appended to
    /// ``payloads``; `false` after the last. The last record is decoded only
    /// if no byte follows it.
    ///
    /// - Throws: What ``next()`` throws.
    mutating func nextPayload() throws(EventLogError) -> Bool {
        guard decoded < count else { return false }
        let start = reader.position
        let mark = payloads.count
        do throws(DecodeFailure) {
            try parseRecord()
            return true
        } catch {
            let ordinal = decoded
            let at: Int = error.offset ?? reader.position
            decoded = count
            payloads.count = mark
            let record = "record \(ordinal) of \(count) (seq \(firstSeq &+ UInt64(ordinal))), which starts at byte \(start) of the body"
            throw EventLogError(.corruptRecord, "batch frame body cannot be decoded: \(record): \(error.reason) (detected at byte \(at))")
        }
    }

    /// Reads one record (docs/FORMAT.md, "Layout") and appends its canonical
    /// payload (docs/FORMAT.md, "Payload") to ``payloads``, and counts it; the
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
        guard decoded > 0 || delta == 0 else { throw DecodeFailure("the first record's time delta is \(delta), not 0") }
        time &+= delta
        let seq = firstSeq &+ UInt64(decoded)
        let start = payloads.count
        // The envelope: seq, time, kind, flags, then the actor and note.
        payloads.appendVarint(seq)
        payloads.appendZigzag(time)
        payloads.append(code)
        let hasActor = first & BatchFrame.actorFlag != 0
        let hasNote = first & BatchFrame.noteFlag != 0
        payloads.append((hasActor ? EventRecord.actorFlag : 0) | (hasNote ? EventRecord.noteFlag : 0))
        if hasActor { try string(limit: LogLimits.maxActorBytes, "actor") }
        if hasNote { try string(limit: LogLimits.maxNoteBytes, "note") }
        switch kind {
        case .added:
            let k = try id()
            let index = try reader.count(max: LogLimits.maxIndex, what: "index")
            let isEnabled = try reader.bool("isEnabled")
            payloads.appendVarint(UInt64(index))
            payloads.append(isEnabled ? 1 : 0)
            lastTitles[k] = try title("title")
        case .renamed:
            let k = try id()
            let old = try statedTitle(of: k, flagged: sameTitle, "old title")
            _ = old
            lastTitles[k] = try title("title")
        case .toggled:
            _ = try id()
            payloads.append(try reader.bool("isEnabled") ? 1 : 0)
        case .removed:
            let k = try id()
            let index = try reader.count(max: LogLimits.maxIndex, what: "index")
            let isEnabled = try reader.bool("isEnabled")
            payloads.appendVarint(UInt64(index))
            payloads.append(isEnabled ? 1 : 0)
            lastTitles[k] = try statedTitle(of: k, flagged: sameTitle, "title")
        case .moved:
            _ = try id()
            let from = try reader.count(max: LogLimits.maxIndex, what: "from index")
            let to = try reader.count(max: LogLimits.maxIndex, what: "to index")
            payloads.appendVarint(UInt64(from))
            payloads.appendVarint(UInt64(to))
        case .reordered:
            let n = try reader.count(max: LogLimits.maxReorderCount, what: "reorder count")
            guard n <= reader.remaining else {
                throw DecodeFailure("reorder count \(n) needs at least \(n) bytes; \(reader.remaining) are left")
            }
            guard payloads.count + 16 * n <= BatchFrame.maxCanonicalBytes else { throw overLimit(adding: 16 * n) }
            payloads.appendVarint(UInt64(n))
            for _ in 0..<n { _ = try id() }
        case .rejected:
            let hasID = try reader.bool("has-id")
            payloads.append(hasID ? 1 : 0)
            if hasID { _ = try id() }
            try string(limit: LogLimits.maxReasonBytes, "rejected command")
            try string(limit: LogLimits.maxReasonBytes, "rejection reason")
        }
        guard payloads.count <= BatchFrame.maxCanonicalBytes else { throw overLimit(adding: 0) }
        guard decoded + 1 < count || reader.isAtEnd else { throw DecodeFailure("\(reader.remaining) bytes follow the last record") }
        guard payloads.count - start <= LogLimits.maxPayloadBytes else {
            throw DecodeFailure(
                "record \(seq)'s payload would be \(payloads.count - start) bytes; a record holds at most \(LogLimits.maxPayloadBytes)"
            )
        }
        payloadEnds.append(payloads.count)
        decoded += 1
    }

    /// The failure of a frame whose records' payloads would pass 64 MiB with `bytes` more.
    private func overLimit(adding bytes: Int) -> DecodeFailure {
        DecodeFailure(
            "the records' canonical payloads reach \(payloads.count + bytes) bytes; a batch frame holds at most \(BatchFrame.maxCanonicalBytes)"
        )
    }

    /// Reads an id code, appends the id's 16 bytes to ``payloads`` and
    /// returns its entry: a reference to an earlier id, or a literal, which
    /// must be new to the frame and becomes its next entry.
    private mutating func id() throws(DecodeFailure) -> Int {
        let code = try reader.varint()
        if code & 1 != 0 {
            let k = code >> 1
            guard k < UInt64(idTable.count) else {
                throw DecodeFailure("id reference \(k) names no id: the frame has \(idTable.count) so far")
            }
            payloads.appendID(from: reader.base.baseAddress! + idTable.entry(Int(k)).start)
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
        lastTitles.append(nil)
        payloads.appendID(from: bytes.baseAddress!)
        return idTable.count - 1
    }

    /// Reads a string code (an actor, note, command or reason) within `limit`
    /// bytes — a reference to an earlier string, or `0` and a string new to
    /// the frame — and appends the string to ``payloads`` (its varint length, its bytes).
    private mutating func string(limit: Int, _ what: StaticString) throws(DecodeFailure) {
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
            payloads.appendVarint(UInt64(entry.length))
            payloads.append(UnsafeRawBufferPointer(rebasing: reader.base[entry.start..<entry.start + entry.length]))
            return
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
        payloads.appendVarint(UInt64(text.count))
        payloads.append(text.bytes)
    }

    /// A renamed's old title or a removed's title for the label of id entry
    /// `k`, appended to ``payloads`` as a string: its last stated title if
    /// `flagged` (bit 5), else a title in full, which must not be that title
    /// (the flag is canonical). Returns where its bytes are in ``payloads``.
    private mutating func statedTitle(of k: Int, flagged: Bool, _ what: StaticString) throws(DecodeFailure)
        -> (start: Int, length: Int)
    {
        if flagged {
            guard let stated = lastTitles[k] else {
                throw DecodeFailure("the same-title bit is set, but label \(idTable.entry(k)) has no title stated earlier in the frame")
            }
            payloads.appendVarint(UInt64(stated.length))
            let start = payloads.count
            payloads.appendCopy(from: stated.start, length: stated.length)
            return (start, stated.length)
        }
        return try title(what, notAfter: lastTitles[k], sameIsCorrupt: true)
    }

    /// Reads a title — its word count, then each word as a reference to an
    /// earlier word or a literal new to the frame — and appends it to
    /// ``payloads`` as a string, its words joined with 0x20. Returns where
    /// its bytes are in ``payloads``. With `sameIsCorrupt`, a title equal to
    /// `stated` (the label's last stated title) is corruption: the same-title
    /// bit is the canonical coding of it.
    private mutating func title(
        _ what: StaticString, notAfter stated: (start: Int, length: Int)? = nil, sameIsCorrupt: Bool = false
    ) throws(DecodeFailure) -> (start: Int, length: Int) {
        let n = try reader.count(max: BatchFrame.maxTitleWords, what: "title word count")
        guard n > 0 else {
            if sameIsCorrupt, stated?.length == 0 {
                throw DecodeFailure("the \(what) is coded in full but is the label's last stated title (the same-title bit is canonical)")
            }
            payloads.append(0)
            return (payloads.count, 0)
        }
        guard n <= reader.remaining else {
            throw DecodeFailure("\(what) of \(n) words needs at least \(n) bytes; \(reader.remaining) are left")
        }
        // Two passes over the word codes: the first checks them and sums the length, the second copies the words.
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
        guard payloads.count + length <= BatchFrame.maxCanonicalBytes else { throw overLimit(adding: length) }
        payloads.appendVarint(UInt64(length))
        let start = payloads.count
        // Room for the title and 8 bytes of slack: a short word is copied as one 8-byte store.
        payloads.ensureRoom(length + 8)
        payloads.count += length
        let body = reader.base.baseAddress!
        let bodyEnd = reader.base.count
        do {
            let to = payloads.base + start
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
        }
        if sameIsCorrupt, let stated, stated.length == length {
            let equal = memcmp(payloads.base + stated.start, payloads.base + start, length) == 0
            if equal {
                throw DecodeFailure("the \(what) is coded in full but is the label's last stated title (the same-title bit is canonical)")
            }
        }
        return (start, length)
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
        while let record = try decoder.next() { records.append(record) }
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
        while let record = try decoder.next() {
            let last = decoder.lastPayload
            try visit(record, UnsafeRawBufferPointer(rebasing: decoder.payloads.written[last]))
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
