/// Where one record's frame lies in a log file: its seq, the byte offset of
/// its frame, and the frame's length (header plus payload).
///
/// A position is a hint, never trusted on its own: a reader that resumes at
/// one (``LogWriter/open(path:options:replayFrom:resumeAt:replay:)``) first
/// checks that a whole, checksummed frame of exactly this length starts at
/// this offset and holds record `seq`. Snapshots store the position of the
/// record they were taken after, so opening can skip the records before it.
public struct LogPosition: Sendable, Hashable, Codable {
    /// The record's seq (≥ 1).
    public var seq: UInt64
    /// The byte offset of the record's frame (≥ the header length).
    public var offset: Int64
    /// The frame's length in bytes: the frame header (12 bytes; 8 in format
    /// version 1) plus the payload.
    public var length: Int64
    /// The frame's stored checksum, or `nil` if unknown. In a format version 2
    /// log it depends on every record before (each frame's checksum covers
    /// the previous one's), so a position with a checksum names one record
    /// *of one history*: a log cut and rewritten with a byte-identical
    /// record at this seq does not match it.
    public var checksum: UInt32?

    /// Creates a position.
    public init(seq: UInt64, offset: Int64, length: Int64, checksum: UInt32? = nil) {
        self.seq = seq
        self.offset = offset
        self.length = length
        self.checksum = checksum
    }

    /// The offset just past the frame: where record `seq + 1` starts
    /// (`Int64.max` if the sum overflows: a position is untrusted input).
    public var end: Int64 {
        let (sum, overflow) = offset.addingReportingOverflow(length)
        return overflow ? .max : sum
    }

    /// Whether the position could describe a frame of a log of `fileLength`
    /// bytes. Never traps, whatever the fields hold.
    func isPlausible(fileLength: Int64) -> Bool {
        seq >= 1 && offset >= Int64(LogFormat.headerLength) && offset <= fileLength
            && length > Int64(LogFormat.frameHeaderLength(version: 1))
            && length <= Int64(LogFormat.frameHeaderLength + LogLimits.maxPayloadBytes) && length <= fileLength - offset
    }
}
