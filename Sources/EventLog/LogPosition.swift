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
    /// The frame's length in bytes: the 8-byte frame header plus the payload.
    public var length: Int64

    /// Creates a position.
    public init(seq: UInt64, offset: Int64, length: Int64) {
        self.seq = seq
        self.offset = offset
        self.length = length
    }

    /// The offset just past the frame: where record `seq + 1` starts.
    public var end: Int64 { offset + length }

    /// Whether the position could describe a frame of a log of `fileLength` bytes.
    func isPlausible(fileLength: Int64) -> Bool {
        seq >= 1 && offset >= Int64(LogFormat.headerLength) && length > Int64(LogFormat.frameHeaderLength)
            && length <= Int64(LogFormat.frameHeaderLength + LogLimits.maxPayloadBytes) && end <= fileLength
    }
}
