/// One record of a batch frame as ``BatchFrameDecoder`` leaves it: its
/// values, and where each of its texts and its id are. Nothing is copied for
/// a string, an id or a one-word title: they are runs of the frame's body,
/// which the ``BatchFrameRecords`` that holds the record keeps. A title of
/// several words and a reorder's ids are assembled once into the frame's
/// arena. Its seq is implicit (the frame's first seq plus its ordinal).
struct BatchFrameRecord {
    /// The timestamp, in milliseconds since 1970.
    var time: Int64
    /// What happened.
    var kind: EventKind
    /// `added`, `toggled`, `removed`: the label's `isEnabled`.
    var isEnabled = false
    /// Where the label's 16 id bytes are in the body; −1 for `reordered` and
    /// a rejection without an id.
    var id: Int32 = -1
    /// `added`, `removed`: the index; `moved`: the index it moved from;
    /// `reordered`: the number of ids.
    var first: Int32 = 0
    /// `moved`: the index it moved to.
    var second: Int32 = 0
    /// Who made the edit, if the record names one.
    var actor = BatchFrameText.absent
    /// The record's note, if it has one.
    var note = BatchFrameText.absent
    /// `added`, `removed`: the title; `renamed`: the old title; `rejected`:
    /// the command; `reordered`: the ids, 16 bytes each, in the arena.
    var text = BatchFrameText.absent
    /// `renamed`: the new title; `rejected`: the reason.
    var secondText = BatchFrameText.absent

    /// A record of `kind` at `time`, its fields still to be read.
    init(time: Int64, kind: EventKind) {
        self.time = time
        self.kind = kind
    }
}

/// Where a text of a decoded batch frame record is: a run of the frame's
/// body, or of its arena (a title of several words, a reorder's ids), or
/// nowhere (an absent actor or note). Offsets, not pointers: the arena
/// grows (and moves) while the frame is decoded.
struct BatchFrameText: Equatable {
    /// Non-negative: the offset of the first byte in the body; negative:
    /// `~offset` in the arena.
    private var start: Int32
    /// The number of bytes; −1 when absent.
    let length: Int32

    /// No text (an absent actor or note, a field the kind does not have).
    static let absent = BatchFrameText(start: 0, length: -1)

    private init(start: Int32, length: Int32) {
        self.start = start
        self.length = length
    }

    /// `length` bytes at `start` in the body.
    init(body start: Int, length: Int) {
        self.init(start: Int32(truncatingIfNeeded: start), length: Int32(truncatingIfNeeded: length))
    }

    /// `length` bytes at `start` in the arena.
    init(arena start: Int, length: Int) {
        self.init(start: ~Int32(truncatingIfNeeded: start), length: Int32(truncatingIfNeeded: length))
    }

    /// Whether there is a text.
    var isPresent: Bool { length >= 0 }

    /// The bytes, given the body's and the arena's first bytes.
    @inline(__always)
    func bytes(body: UnsafeRawPointer, arena: UnsafeRawPointer) -> UnsafeRawBufferPointer {
        let base = start >= 0 ? body + Int(start) : arena + Int(~start)
        return UnsafeRawBufferPointer(start: base, count: Int(length))
    }
}
