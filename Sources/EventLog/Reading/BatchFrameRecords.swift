import Foundation

/// The records of one batch frame (format version 4), decoded once
/// (``BatchFrameDecoder``), which a ``FrameCursor`` hands out one at a time
/// as views, as it hands out the records of version 2 frames.
///
/// It keeps its own copy of the frame's body, so the views' texts and ids
/// point into memory it owns, and the decoder's arena (titles of several
/// words, reorders' ids). A record's canonical payload — the version 2
/// payload of the same record (docs/FORMAT.md, "Batch frames (version 4)"),
/// the bytes the history tree hashes — is written only when one is asked
/// for (``payload(_:)``): then the whole frame's, once, in one buffer of the
/// size the decoder counted.
///
/// A class, as ``ReadBuffer`` is, so the bytes a view points into outlive a
/// copy of the cursor; the cursor makes a new one for each batch frame and
/// changes none after it hands records out of it, except to write the
/// canonical payloads on first use. Not for use from two threads at once
/// (views are not `Sendable`).
final class BatchFrameRecords {
    /// The frame: its offset, length and checksum.
    let frame: FrameExtent
    /// The seq of the frame's first record.
    let firstSeq: UInt64
    /// A copy of the frame's body.
    private let body: ReadBuffer
    /// Titles of several words and reorders' ids, assembled by the decoder.
    private let arena: ReadBuffer
    /// The records, in order.
    private let records: [BatchFrameRecord]
    /// What the records' canonical payloads add up to.
    private let canonicalBytes: Int
    /// The canonical payloads, back to back, once written.
    private var payloads: ReadBuffer?
    /// Where each record's canonical payload ends in ``payloads``.
    private var payloadEnds: [Int] = []

    /// The number of records in the frame.
    var count: Int { records.count }
    /// The seq of the frame's last record.
    var lastSeq: UInt64 { firstSeq + UInt64(records.count) - 1 }

    /// Decodes the batch frame body `body` of the frame `frame` (a copy of
    /// `body` is kept: the caller's memory may change once this returns).
    ///
    /// - Throws: ``EventLogError/Code/corruptRecord`` for a body that does
    ///   not decode (``BatchFrameDecoder``: its limits, references, flags,
    ///   canonical form).
    init(body: UnsafeRawBufferPointer, frame: FrameExtent = FrameExtent(offset: 0, length: 0, checksum: 0)) throws(EventLogError) {
        let copy = ReadBuffer(capacity: body.count)
        copy.append(body)
        var decoder = try BatchFrameDecoder(body: UnsafeRawBufferPointer(start: copy.base, count: copy.count))
        try decoder.decodeAll()
        self.frame = frame
        self.body = copy
        firstSeq = decoder.firstSeq
        arena = decoder.arena
        records = decoder.records
        canonicalBytes = decoder.canonicalBytes
    }

    /// The frame's `i`-th record (0-based) as a view; valid while this
    /// object lives.
    @inline(__always)
    func view(_ i: Int) -> EventRecordView {
        let r = records[i]
        let body = UnsafeRawPointer(self.body.base), arena = UnsafeRawPointer(self.arena.base)
        @inline(__always) func text(_ t: BatchFrameText) -> UTF8Text { UTF8Text(validated: t.bytes(body: body, arena: arena)) }
        @inline(__always) func id() -> LabelID {
            LabelID(UUID(uuid: (body + Int(r.id)).loadUnaligned(as: uuid_t.self)))
        }
        let index = Int(r.first)
        let event: EventRecordView.Event
        switch r.kind {
        case .added: event = .added(id: id(), title: text(r.text), isEnabled: r.isEnabled, index: index)
        case .renamed: event = .renamed(id: id(), oldTitle: text(r.text), newTitle: text(r.secondText))
        case .toggled: event = .toggled(id: id(), isEnabled: r.isEnabled)
        case .removed: event = .removed(id: id(), index: index, title: text(r.text), isEnabled: r.isEnabled)
        case .moved: event = .moved(id: id(), from: index, to: Int(r.second))
        case .reordered: event = .reordered(order: EventRecordView.IDs(bytes: r.text.bytes(body: body, arena: arena)))
        case .rejected: event = .rejected(id: r.id >= 0 ? id() : nil, command: text(r.text), reason: text(r.secondText))
        }
        return EventRecordView(
            seq: firstSeq &+ UInt64(i), timestamp: EventTimestamp(millisecondsSince1970: r.time),
            actor: r.actor.isPresent ? text(r.actor) : nil, note: r.note.isPresent ? text(r.note) : nil, event: event,
            payload: RecordPayload(frame: self, index: i))
    }

    /// The canonical payload of the frame's `i`-th record (0-based); valid
    /// while this object lives. The first call writes every record's.
    func payload(_ i: Int) -> UnsafeRawBufferPointer {
        let payloads = self.payloads ?? writePayloads()
        let start = i == 0 ? 0 : payloadEnds[i - 1]
        return UnsafeRawBufferPointer(start: payloads.base + start, count: payloadEnds[i] - start)
    }

    /// Writes every record's canonical payload (docs/FORMAT.md, "Payload")
    /// into one buffer of the size the decoder counted.
    private func writePayloads() -> ReadBuffer {
        let out = ReadBuffer(capacity: canonicalBytes)
        payloadEnds.reserveCapacity(records.count)
        let body = UnsafeRawPointer(self.body.base), arena = UnsafeRawPointer(self.arena.base)
        func string(_ t: BatchFrameText) {
            let bytes = t.bytes(body: body, arena: arena)
            out.appendVarint(UInt64(bytes.count))
            out.append(bytes)
        }
        for (i, r) in records.enumerated() {
            out.appendVarint(firstSeq &+ UInt64(i))
            out.appendZigzag(r.time)
            out.append(r.kind.code)
            out.append((r.actor.isPresent ? EventRecord.actorFlag : 0) | (r.note.isPresent ? EventRecord.noteFlag : 0))
            if r.actor.isPresent { string(r.actor) }
            if r.note.isPresent { string(r.note) }
            if r.kind == .rejected { out.append(r.id >= 0 ? 1 : 0) }
            if r.id >= 0 { out.appendID(from: body + Int(r.id)) }
            switch r.kind {
            case .added:
                out.appendVarint(UInt64(r.first))
                out.append(r.isEnabled ? 1 : 0)
                string(r.text)
            case .renamed:
                string(r.text)
                string(r.secondText)
            case .toggled:
                out.append(r.isEnabled ? 1 : 0)
            case .removed:
                out.appendVarint(UInt64(r.first))
                out.append(r.isEnabled ? 1 : 0)
                string(r.text)
            case .moved:
                out.appendVarint(UInt64(r.first))
                out.appendVarint(UInt64(r.second))
            case .reordered:
                out.appendVarint(UInt64(r.first))
                out.append(r.text.bytes(body: body, arena: arena))
            case .rejected:
                string(r.text)
                string(r.secondText)
            }
            payloadEnds.append(out.count)
        }
        assert(out.count == canonicalBytes, "the decoder counted \(canonicalBytes) bytes of canonical payloads; \(out.count) were written")
        payloads = out
        return out
    }
}

/// Where one frame lies in a log file: its offset, its length (header plus
/// payload) and its stored checksum.
struct FrameExtent: Sendable, Hashable {
    var offset: Int64
    var length: Int64
    var checksum: UInt32
}
