/// The records of one batch frame (format version 4), decoded once into
/// their canonical payloads — the version 2 payload of each record
/// (docs/FORMAT.md, "Batch frames (version 4)") — back to back in one
/// buffer, so a ``FrameCursor`` hands them out one at a time as views, as it
/// hands out the records of version 2 frames.
///
/// A class, as ``ReadBuffer`` is, so the payloads a view points into outlive
/// a copy of the cursor; the cursor makes a new one for each batch frame and
/// never changes one it has handed records out of.
final class BatchFrameRecords {
    /// The frame: its offset, length and checksum.
    let frame: FrameExtent
    /// The seq of the frame's first record.
    let firstSeq: UInt64
    /// The canonical payloads, back to back.
    private let payloads: ReadBuffer
    /// Where each record's payload ends in ``payloads``.
    private let ends: [Int]

    /// The number of records in the frame.
    var count: Int { ends.count }
    /// The seq of the frame's last record.
    var lastSeq: UInt64 { firstSeq + UInt64(ends.count) - 1 }

    /// Decodes the batch frame body `body` of the frame `frame`.
    ///
    /// - Throws: ``EventLogError/Code/corruptRecord`` for a body that does
    ///   not decode (``BatchFrameDecoder``: its limits, references, flags,
    ///   canonical form).
    init(body: UnsafeRawBufferPointer, frame: FrameExtent) throws(EventLogError) {
        var decoder = try BatchFrameDecoder(body: body)
        self.frame = frame
        self.firstSeq = decoder.firstSeq
        while try decoder.nextPayload() {}
        self.payloads = decoder.payloads
        self.ends = decoder.payloadEnds
    }

    /// The canonical payload of the frame's `i`-th record (0-based); valid
    /// while this object lives.
    func payload(_ i: Int) -> UnsafeRawBufferPointer {
        let start = i == 0 ? 0 : ends[i - 1]
        return UnsafeRawBufferPointer(start: payloads.base + start, count: ends[i] - start)
    }
}

/// Where one frame lies in a log file: its offset, its length (header plus
/// payload) and its stored checksum.
struct FrameExtent: Sendable, Hashable {
    var offset: Int64
    var length: Int64
    var checksum: UInt32
}
