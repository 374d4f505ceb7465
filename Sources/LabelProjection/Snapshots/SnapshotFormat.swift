import EventLog

/// The constants of the snapshot file format (docs/SNAPSHOTS.md).
public enum SnapshotFormat {
    /// The eight bytes every snapshot file starts with: `LABELSNP`.
    public static let magic: [UInt8] = Array("LABELSNP".utf8)
    /// The format version this code writes, and the newest it reads (it reads every older one).
    public static let currentVersion: UInt16 = 3
    /// The size of the fixed header in bytes.
    public static let headerLength = 72
    /// The size of the trailing checksum.
    public static let trailerLength = 4
    /// Header flag: the last-timestamp field is present.
    static let hasTimestampFlag: UInt16 = 1
    /// Header flag (version 3): the fingerprint is the log's chained frame
    /// checksum of the record at the snapshot's seq, which covers the whole
    /// history before it (format version 2 logs).
    static let historyChecksumFlag: UInt16 = 2
    /// Header flag, only in a checkpoint image of `LOG.checkpoints` format 3:
    /// the body holds the live slots only; the removed ones (tombstones) come
    /// from the file's removal blocks (docs/SNAPSHOTS.md, "Checkpoints").
    static let liveSlotsOnlyFlag: UInt16 = 4
    /// Header flag, only in a checkpoint image of `LOG.checkpoints` format 4 on:
    /// the body is a delta on the checkpoint before it (docs/SNAPSHOTS.md, "A delta").
    static let deltaFlag: UInt16 = 8
    /// Header flag, only in a checkpoint a `CheckpointStorage` keeps: the body
    /// is a storage delta on the checkpoint its previous seq names, every
    /// slot's change included (docs/SNAPSHOTS.md, "A storage delta").
    static let storageDeltaFlag: UInt16 = 16
    /// The fewest bytes one slot record takes (id, state, a one-byte varint seq).
    static let minSlotBytes = 18
}

/// The fixed fields of a snapshot: which log, which seq, and the list-wide values.
public struct SnapshotHeader: Sendable, Hashable {
    /// The format version the file was written with.
    public var version: UInt16
    /// The id of the log (`LogHeader.logID`) the snapshot was taken from.
    public var logID: LabelID
    /// The seq of the last record folded into the snapshot.
    public var seq: UInt64
    /// With ``coversHistory``, the log's frame checksum of the record at
    /// ``seq`` (`LogWriter.frameChecksum(ofSeq:)`), which depends on every
    /// record up to it; otherwise `EventRecord.snapshotFingerprint` of that
    /// record alone (0 when `seq` is 0).
    public var fingerprint: UInt32
    /// Whether ``fingerprint`` is the log's chained frame checksum (snapshot
    /// version 3 of a format version 2 log): the snapshot then matches only
    /// the exact history it was taken from.
    public var coversHistory: Bool = false
    /// ``LabelList/listVersion`` at ``seq``.
    public var listVersion: UInt64
    /// ``LabelList/lastTimestamp`` at ``seq``.
    public var lastTimestamp: EventTimestamp?
    /// The byte offset just past record ``seq`` in the log file (0 if unknown).
    public var logOffset: Int64
    /// The length of record ``seq``'s frame in the log file (0 if unknown,
    /// always 0 in version 1 files).
    public var recordLength: Int64

    /// Where record ``seq``'s frame is in the log, if the snapshot recorded it:
    /// opening resumes the log's scan there (see `LogWriter.open(path:options:replayFrom:resumeAt:replay:)`).
    public var logPosition: LogPosition? {
        guard seq >= 1, recordLength > 0, logOffset >= recordLength else { return nil }
        return LogPosition(seq: seq, offset: logOffset - recordLength, length: recordLength, checksum: coversHistory ? fingerprint : nil)
    }
}
