import Foundation

/// A record decoded in place: the envelope and the event as values, every
/// text as a ``UTF8Text`` into the bytes it was decoded from. Decoding one
/// allocates nothing, whatever the lengths of its texts.
///
/// - Validity: a view points into a buffer it does not own, usually a
///   reader's read buffer. It is valid only inside the closure it was passed
///   to (``LogWriter/openWithViews(path:options:replayFrom:resumeAt:replayViews:)``,
///   ``LogReader/forEachView(from:_:)``), or, from
///   ``parse(payload:)``, as long as the payload bytes. Keep nothing of it
///   past that; call ``record`` (or ``UTF8Text/string``) to keep values.
/// - Checks: a view exists only for a payload that passed every check of the
///   decoder (limits, canonical varints, UTF-8, flags, no trailing bytes):
///   the same checks, by the same code, as ``EventRecord`` decoding, which is
///   parsing a view and then calling ``record``.
/// - Equality: ``record`` equals the ``EventRecord`` decoded from the same bytes.
public struct EventRecordView {
    /// Position in the log: 1 for the first record, then +1 per record.
    public let seq: UInt64
    /// When the event was appended (or the time the caller set).
    public let timestamp: EventTimestamp
    /// Who made the edit, if the record names one.
    public let actor: UTF8Text?
    /// The record's note, if it has one.
    public let note: UTF8Text?
    /// What happened, with borrowed texts.
    public let event: Event
    /// The record's payload: the bytes a version 2 frame holds, or, for a
    /// record of a batch frame (format version 4), its canonical payload —
    /// the version 2 payload of the same record (docs/FORMAT.md, "The
    /// canonical payload"), which the history tree hashes. A batch frame's
    /// canonical payloads are written the first time one of them is asked
    /// for. Valid as long as the view.
    public var payload: UnsafeRawBufferPointer { payloadSource.bytes }
    /// Where ``payload`` is.
    let payloadSource: RecordPayload

    /// A ``LabelEvent`` whose texts are borrowed ``UTF8Text``s and whose
    /// reorder is a borrowed ``EventRecordView/IDs``: the same cases, the same
    /// meaning, the same ``LabelEventOf/Kind``. Valid only as long as the view
    /// (see ``EventRecordView``); ``LabelEventOf/labelEvent`` copies it out.
    public typealias Event = LabelEventOf<UTF8Text, IDs>

    /// The ids of a `reordered` event, read from the record's bytes as they
    /// are iterated (16 bytes each); no array is built.
    public struct IDs: RandomAccessCollection {
        /// The ids' raw bytes, 16 per id.
        public let bytes: UnsafeRawBufferPointer

        init(bytes: UnsafeRawBufferPointer) {
            precondition(bytes.count % 16 == 0, "ids are 16 bytes each")
            self.bytes = bytes
        }

        /// The index of the first id: 0.
        public var startIndex: Int { 0 }
        /// The number of ids.
        public var endIndex: Int { bytes.count / 16 }

        /// The id at `position` (`0..<count`).
        public subscript(position: Int) -> LabelID {
            precondition(position >= 0 && position < endIndex, "id index out of range")
            return LabelID(UUID(uuid: bytes.loadUnaligned(fromByteOffset: position * 16, as: uuid_t.self)))
        }
    }

    /// A view of decoded values whose payload is `payload`.
    @inline(__always)
    init(
        seq: UInt64, timestamp: EventTimestamp, actor: UTF8Text?, note: UTF8Text?, event: Event, payload: RecordPayload
    ) {
        self.seq = seq
        self.timestamp = timestamp
        self.actor = actor
        self.note = note
        self.event = event
        self.payloadSource = payload
    }

    /// This record's kind.
    public var kind: LabelEvent.Kind { event.kind }

    /// The label this record is about, or `nil` for `reordered` (and id-less rejections).
    public var labelID: LabelID? { event.labelID }

    /// The record as an ``EventRecord``: copies every text into a `String`
    /// and the reorder into an array. Equal to what ``EventRecord`` decoding
    /// of the same payload returns.
    public var record: EventRecord {
        EventRecord(seq: seq, timestamp: timestamp, actor: actor?.string, note: note?.string, event: event.labelEvent)
    }
}

extension LabelEventOf where Text == UTF8Text, Order == EventRecordView.IDs {
    /// The event as a ``LabelEvent`` (copies the texts and ids): the same
    /// case with the same values, equal to the event ``EventRecord`` decoding
    /// of the same bytes returns.
    public var labelEvent: LabelEvent {
        switch self {
        case .added(let id, let title, let isEnabled, let index):
            .added(id: id, title: title.string, isEnabled: isEnabled, index: index)
        case .renamed(let id, let oldTitle, let newTitle):
            .renamed(id: id, oldTitle: oldTitle.string, newTitle: newTitle.string)
        case .toggled(let id, let isEnabled):
            .toggled(id: id, isEnabled: isEnabled)
        case .removed(let id, let index, let title, let isEnabled):
            .removed(id: id, index: index, title: title.string, isEnabled: isEnabled)
        case .moved(let id, let from, let to):
            .moved(id: id, from: from, to: to)
        case .reordered(let order):
            .reordered(order: Array(order))
        case .rejected(let id, let command, let reason):
            .rejected(id: id, command: command.string, reason: reason.string)
        }
    }
}

/// A view must not cross threads: the buffer it points into belongs to its reader.
@available(*, unavailable)
extension EventRecordView: Sendable {}
