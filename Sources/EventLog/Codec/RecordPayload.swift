/// Where a record's payload is: bytes a reader holds (a version 2 frame's
/// payload), or a record of a batch frame whose canonical payload
/// ``BatchFrameRecords`` writes on first use — so a reader that never asks
/// for payloads (a fold) never has them written.
///
/// Holds no reference: valid as long as the view or step it came with
/// (the reader keeps the frame's records alive until it is next used).
struct RecordPayload {
    /// The bytes, or (with ``frame``) nothing.
    private let direct: UnsafeRawBufferPointer
    /// The batch frame whose record ``index`` this is, if any.
    private let frame: Unmanaged<BatchFrameRecords>?
    /// The record's ordinal in ``frame``.
    private let index: Int

    /// A payload held in memory as it is.
    init(_ bytes: UnsafeRawBufferPointer) {
        direct = bytes
        frame = nil
        index = 0
    }

    /// The canonical payload of record `index` of `frame`, which the caller keeps alive.
    init(frame: BatchFrameRecords, index: Int) {
        direct = UnsafeRawBufferPointer(start: nil, count: 0)
        self.frame = Unmanaged.passUnretained(frame)
        self.index = index
    }

    /// The payload's bytes.
    var bytes: UnsafeRawBufferPointer {
        guard let frame else { return direct }
        return frame._withUnsafeGuaranteedRef { $0.payload(index) }
    }
}
