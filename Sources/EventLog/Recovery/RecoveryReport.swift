/// What a scan of a log found: how much is good, and what was cut.
public struct RecoveryReport: Sendable, Hashable {
    /// Damage found at the end of the good records.
    public struct Damage: Sendable, Hashable {
        /// Byte offset of the first bad frame.
        public var offset: Int64
        /// What is wrong there.
        public var reason: String
        /// Whether it is a torn tail rather than damage before the tail: no
        /// good record follows it that was written after it was durable
        /// (docs/FORMAT.md, "Recovery").
        public var isTornTail: Bool
        /// Whether whole, checksummed records follow the damage, which
        /// cutting it removes: records written after the damaged one but
        /// never made durable (a crash persisted their pages and not its), or,
        /// in a salvage, records after real damage. A writer's open saves
        /// such bytes to `PATH.salvaged-<ms>` before cutting them.
        public var cutsWrittenRecords: Bool = false

        /// Creates a description of damage.
        public init(offset: Int64, reason: String, isTornTail: Bool, cutsWrittenRecords: Bool = false) {
            self.offset = offset
            self.reason = reason
            self.isTornTail = isTornTail
            self.cutsWrittenRecords = cutsWrittenRecords
        }
    }

    /// The seq of the last good record (0 when there is none).
    public var lastSeq: UInt64
    /// The byte length of the header plus all good records.
    public var validLength: Int64
    /// The file's length when it was scanned.
    public var fileLength: Int64
    /// Zero bytes after the records that the writer preallocated (not damage).
    public var preallocatedBytes: Int64 = 0
    /// The damage after the good records, if any.
    public var damage: Damage?
    /// Where the cut bytes were saved before a salvage cut them, if they were.
    public var savedTailPath: String?
    /// The record the scan resumed after, when it was given a position
    /// (e.g. from a snapshot) that checked out: the records before it were
    /// not read by this scan. `nil` when the scan read every record.
    public var resumedAfter: LogPosition?
    /// The position of the last good record, if there is one.
    public var lastPosition: LogPosition?
    /// Temporary files of log creations whose process died before finishing
    /// (`PATH.creating-<pid>-<random>`), removed by the writer's open.
    public var removedTemporaryFiles: [String] = []

    /// Bytes after the good records that are not preallocated space (dropped on a writer's open).
    public var droppedBytes: Int64 { fileLength - validLength - preallocatedBytes }

    /// A one-line summary, e.g. `recovered to seq 41; dropped 17 bytes from offset 2048 (torn tail: …)`.
    public var summary: String {
        let resumed = resumedAfter.map { "; records 1...\($0.seq) not re-read (resumed at offset \($0.offset))" } ?? ""
        guard let damage else { return "log is sound: \(lastSeq) records, \(fileLength) bytes" + resumed }
        let kind = damage.isTornTail ? "torn tail" : "corruption"
        return "good up to seq \(lastSeq); \(droppedBytes) bytes from offset \(damage.offset) dropped (\(kind): \(damage.reason))" + resumed
    }
}
