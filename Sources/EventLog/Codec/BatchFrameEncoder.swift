import Foundation

/// Encodes a run of records into the body of a batch frame (docs/FORMAT.md,
/// "Batch frames (version 4)"): the one place that knows that layout on the
/// writing side; `BatchFrameDecoder` reads it.
///
/// The encoding is canonical: the encoder makes no choices (a reference
/// whenever its table holds the value, the same-title flag whenever the
/// title is the label's last stated one), so one run of records has one body.
///
/// Specified, built and tested; no writer writes a batch frame yet.
struct BatchFrameEncoder {
    /// The frame's ids so far (entries in the output).
    private var ids: BatchFrameTable
    /// Per entry of ``ids``: the last title a record of the frame stated for
    /// that label (`added`, `renamed`'s new title, `removed`), if any.
    private var lastTitles: [String?] = []
    /// The frame's actors, notes, commands and reasons so far.
    private var strings = BatchFrameTable()
    /// The frame's title words so far.
    private var words = BatchFrameTable()

    /// A new frame's encoder: every table empty, the id table with room for `count` ids.
    private init(count: Int) {
        ids = BatchFrameTable(expectedCount: count)
        lastTitles.reserveCapacity(count)
    }

    /// The body of a batch frame holding `records`.
    ///
    /// - Parameter allowingNUL: encode strings that hold U+0000 as they are,
    ///   for records read from a file written before the string rule (as
    ///   ``EventRecord/storedPayload()``); never for an append.
    /// - Throws: ``EventLogError/Code/invalidEvent``: what
    ///   ``EventRecord/validateForEncoding()`` throws for any record; no record,
    ///   more than 65,536, seqs that are not consecutive (or run past
    ///   `UInt64.max`); payloads that total more than 64 MiB; a body over 64 MiB.
    /// - Complexity: O(b) in the records' bytes.
    static func encode(_ records: some Collection<EventRecord>, allowingNUL: Bool = false) throws(EventLogError) -> [UInt8] {
        var out = ByteWriter(capacity: 64 + 40 * records.count)
        try encode(records, into: &out, allowingNUL: allowingNUL)
        return out.bytes
    }

    /// Appends the body of a batch frame holding `records` to `out`. On an
    /// error `out` is as it was.
    ///
    /// - Throws: What ``encode(_:allowingNUL:)`` throws.
    static func encode(
        _ records: some Collection<EventRecord>, into out: inout ByteWriter, allowingNUL: Bool = false
    ) throws(EventLogError) {
        try validate(records, allowingNUL: allowingNUL)
        let first = records.first!
        let start = out.bytes.count
        out.varint(first.seq)
        out.varint(UInt64(records.count))
        out.zigzag(first.timestamp.millisecondsSince1970)
        var encoder = BatchFrameEncoder(count: records.count)
        var previous = first.timestamp.millisecondsSince1970
        for record in records {
            encoder.append(record, after: previous, into: &out)
            previous = record.timestamp.millisecondsSince1970
        }
        let length = out.bytes.count - start
        if length > BatchFrame.maxBodyBytes {
            out.bytes.removeLast(length)
            throw EventLogError(
                .invalidEvent,
                "the batch frame of seqs \(first.seq)…\(first.seq &+ UInt64(records.count - 1)) is \(length) bytes; "
                    + "a frame holds at most \(BatchFrame.maxBodyBytes)")
        }
    }

    /// Checks that `records` make one frame: 1…65,536 records, each valid for
    /// encoding, with consecutive seqs, whose payloads total at most 64 MiB.
    private static func validate(_ records: some Collection<EventRecord>, allowingNUL: Bool) throws(EventLogError) {
        guard let first = records.first else { throw EventLogError(.invalidEvent, "a batch frame holds at least one record; none given") }
        guard records.count <= BatchFrame.maxRecords else {
            throw EventLogError(
                .invalidEvent,
                "a batch frame holds at most \(BatchFrame.maxRecords) records; \(records.count) given (from seq \(first.seq))")
        }
        var expected = first.seq
        var total = 0
        for (i, record) in records.enumerated() {
            guard record.seq == expected else {
                throw EventLogError(
                    .invalidEvent,
                    "the records of a batch frame have consecutive seqs: record \(i) has seq \(record.seq), expected \(expected)")
            }
            total += try record.validatedPayloadLength(allowingNUL: allowingNUL)
            guard total <= BatchFrame.maxCanonicalBytes else {
                throw EventLogError(
                    .invalidEvent,
                    "the payloads of seqs \(first.seq)…\(record.seq) total \(total) bytes; "
                        + "a batch frame holds at most \(BatchFrame.maxCanonicalBytes)")
            }
            let (next, overflow) = expected.addingReportingOverflow(1)
            guard !overflow || i == records.count - 1 else {
                throw EventLogError(.invalidEvent, "the seqs of a batch frame run past \(UInt64.max)")
            }
            expected = next
        }
    }

    /// Appends one record: its kind and flags, its time delta from
    /// `previous`, its actor and note, its fields.
    private mutating func append(_ record: EventRecord, after previous: Int64, into out: inout ByteWriter) {
        var first = record.event.kind.code
        if record.actor != nil { first |= BatchFrame.actorFlag }
        if record.note != nil { first |= BatchFrame.noteFlag }
        // A renamed's old title and a removed's title: the flag when it is the label's last stated title.
        var known: Int?
        switch record.event {
        case .renamed(let id, let title, _), .removed(let id, _, let title, _):
            known = find(id, in: out)
            if let k = known, let stated = lastTitles[k], BatchFrame.sameUTF8(stated, title) { first |= BatchFrame.sameTitleFlag }
        default:
            break
        }
        let sameTitle = first & BatchFrame.sameTitleFlag != 0
        out.u8(first)
        out.zigzag(record.timestamp.millisecondsSince1970 &- previous)
        if let actor = record.actor { string(actor, into: &out) }
        if let note = record.note { string(note, into: &out) }
        switch record.event {
        case .added(let id, let title, let isEnabled, let index):
            let k = self.id(id, into: &out)
            out.varint(UInt64(index))
            out.u8(isEnabled ? 1 : 0)
            self.title(title, into: &out)
            lastTitles[k] = title
        case .renamed(let id, let oldTitle, let newTitle):
            let k = self.id(id, known: known, into: &out)
            if !sameTitle { title(oldTitle, into: &out) }
            title(newTitle, into: &out)
            lastTitles[k] = newTitle
        case .toggled(let id, let isEnabled):
            self.id(id, into: &out)
            out.u8(isEnabled ? 1 : 0)
        case .removed(let id, let index, let title, let isEnabled):
            let k = self.id(id, known: known, into: &out)
            out.varint(UInt64(index))
            out.u8(isEnabled ? 1 : 0)
            if !sameTitle { self.title(title, into: &out) }
            lastTitles[k] = title
        case .moved(let id, let from, let to):
            self.id(id, into: &out)
            out.varint(UInt64(from))
            out.varint(UInt64(to))
        case .reordered(let order):
            out.varint(UInt64(order.count))
            for id in order { self.id(id, into: &out) }
        case .rejected(let id, let command, let reason):
            if let id {
                out.u8(1)
                self.id(id, into: &out)
            } else {
                out.u8(0)
            }
            string(command, into: &out)
            string(reason, into: &out)
        }
    }

    /// The entry of `id` in the frame's id table, if it has one.
    private func find(_ id: LabelID, in out: ByteWriter) -> Int? {
        withUnsafeBytes(of: id.uuid.uuid) { key in
            out.bytes.withUnsafeBytes { ids.find(key, hash: ids.hash(key), in: $0) }
        }
    }

    /// Appends an id's code — a reference to its entry, or a literal that
    /// adds one — and returns its entry. `known` is its entry if the caller
    /// looked it up already.
    @discardableResult
    private mutating func id(_ id: LabelID, known: Int?? = nil, into out: inout ByteWriter) -> Int {
        if let k = known ?? find(id, in: out) {
            out.varint(BatchFrame.referenceCode(k))
            return k
        }
        out.varint(BatchFrame.literalCode)
        let start = out.bytes.count
        out.id(id)
        let hash = out.bytes.withUnsafeBytes { ids.hash(UnsafeRawBufferPointer(rebasing: $0[start..<start + 16])) }
        ids.append(start: start, length: 16, hash: hash)
        lastTitles.append(nil)
        return ids.count - 1
    }

    /// Appends a string's code (an actor, note, command or reason): a
    /// reference to its entry, or `0` and the string, which adds one.
    private mutating func string(_ text: String, into out: inout ByteWriter) {
        Self.withUTF8(text) { bytes in
            let hash = strings.hash(bytes)
            if let k = out.bytes.withUnsafeBytes({ strings.find(bytes, hash: hash, in: $0) }) {
                out.varint(BatchFrame.referenceCode(k))
                return
            }
            out.varint(BatchFrame.literalCode)
            out.varint(UInt64(bytes.count))
            strings.append(start: out.bytes.count, length: bytes.count, hash: hash)
            out.bytes.append(contentsOf: bytes)
        }
    }

    /// Appends a title: its number of words (0 for the empty title), then
    /// each word — the bytes between its 0x20 bytes — as a reference or a literal.
    private mutating func title(_ text: String, into out: inout ByteWriter) {
        Self.withUTF8(text) { bytes in
            guard let base = bytes.baseAddress, !bytes.isEmpty else {
                out.varint(0)
                return
            }
            /// The offset of the first 0x20 at or after `from`, or the end.
            func separator(from: Int) -> Int {
                guard from < bytes.count, let found = memchr(base + from, Int32(BatchFrame.wordSeparator), bytes.count - from) else {
                    return bytes.count
                }
                return base.distance(to: UnsafeRawPointer(found))
            }
            var words = 1
            var end = separator(from: 0)
            while end < bytes.count {
                words += 1
                end = separator(from: end + 1)
            }
            out.varint(UInt64(words))
            var start = 0
            while start <= bytes.count {
                let end = separator(from: start)
                word(UnsafeRawBufferPointer(rebasing: bytes[start..<end]), into: &out)
                start = end + 1
            }
        }
    }

    /// Appends one word's code: a reference to its entry, or its length
    /// (shifted left) and its bytes, which adds one.
    private mutating func word(_ bytes: UnsafeRawBufferPointer, into out: inout ByteWriter) {
        let hash = words.hash(bytes)
        if let k = out.bytes.withUnsafeBytes({ words.find(bytes, hash: hash, in: $0) }) {
            out.varint(BatchFrame.referenceCode(k))
            return
        }
        out.varint(BatchFrame.literalWordCode(length: bytes.count))
        words.append(start: out.bytes.count, length: bytes.count, hash: hash)
        out.bytes.append(contentsOf: bytes)
    }

    /// Calls `body` with the UTF-8 bytes of `text` (copied first only if
    /// they are not contiguous, as in a bridged string).
    private static func withUTF8<R>(_ text: String, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        if let result = text.utf8.withContiguousStorageIfAvailable({ body(UnsafeRawBufferPointer($0)) }) { return result }
        var copy = text
        return copy.withUTF8 { body(UnsafeRawBufferPointer($0)) }
    }
}
