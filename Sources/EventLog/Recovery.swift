/// What opening a log does with damage it finds, modelled on RocksDB's WAL
/// recovery modes.
///
/// | mode | RocksDB | torn tail | damage before the tail |
/// |---|---|---|---|
/// | ``tolerateCorruptedTail`` (default) | `kTolerateCorruptedTailRecords` | cut and reported | open fails |
/// | ``absoluteConsistency`` | `kAbsoluteConsistency` | open fails | open fails |
/// | ``pointInTime`` (salvage) | `kPointInTimeRecovery` | cut and reported | the good prefix is kept, the rest cut and reported |
///
/// RocksDB's `kSkipAnyCorruptedRecords` is deliberately not offered: a log
/// whose seqs are gapless cannot skip a record without inventing history.
public enum RecoveryMode: String, Sendable, Hashable, CaseIterable, Codable {
    /// Cut an incomplete or damaged last record (what a crash leaves); fail on anything else.
    case tolerateCorruptedTail
    /// Fail on any damage, even a torn tail.
    case absoluteConsistency
    /// Salvage: keep every record before the first damage, wherever it is.
    case pointInTime
}

/// What a scan of a log found: how much is good, and what was cut.
public struct RecoveryReport: Sendable, Hashable {
    /// Damage found at the end of the good records.
    public struct Damage: Sendable, Hashable {
        /// Byte offset of the first bad frame.
        public var offset: Int64
        /// What is wrong there.
        public var reason: String
        /// Whether it is a torn tail (no good record follows it) rather than damage before the tail.
        public var isTornTail: Bool
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

/// The result of scanning a file: the report plus a sparse seq → offset index.
struct ScanResult {
    var report: RecoveryReport
    var index: SparseIndex
}

/// Every `SparseIndex.stride`-th record's offset, to start reads near a seq.
///
/// Entries can be unknown (a scan that resumed after a snapshot's record did
/// not see the records before it); a lookup then starts at the nearest known
/// entry before, or at the first record.
struct SparseIndex: Sendable {
    static let stride: UInt64 = 1024
    /// `offsets[k]` is the offset of seq `k * stride + 1`, or -1 if unknown.
    private(set) var offsets: [Int64] = []

    mutating func note(seq: UInt64, offset: Int64) {
        guard (seq - 1) % Self.stride == 0 else { return }
        let k = Int((seq - 1) / Self.stride)
        if k < offsets.count {
            offsets[k] = offset
        } else {
            if k > offsets.count { offsets.append(contentsOf: repeatElement(-1, count: k - offsets.count)) }
            offsets.append(offset)
        }
    }

    /// The closest known (seq, offset) at or before `seq`: an indexed one, or
    /// else the first record's (`nil` only for seq 0).
    func start(for seq: UInt64) -> (seq: UInt64, offset: Int64)? {
        guard seq >= 1 else { return nil }
        var k = min(Int((seq - 1) / Self.stride), offsets.count - 1)
        while k >= 0 && offsets[k] < 0 { k -= 1 }
        guard k >= 0 else { return (1, Int64(LogFormat.headerLength)) }
        return (UInt64(k) * Self.stride + 1, offsets[k])
    }

    mutating func truncate(after lastSeq: UInt64) {
        let keep = lastSeq == 0 ? 0 : Int((lastSeq - 1) / Self.stride) + 1
        if offsets.count > keep { offsets.removeLast(offsets.count - keep) }
    }
}

enum Recovery {
    /// Scans every frame after the header, calling `visit` for each good record
    /// (decoded in place; the view is valid during the call only) in order, and decides what the first problem is under `mode`.
    /// Throws for damage the mode does not tolerate; never modifies the file.
    /// Records below `decodeFrom` are checked (framing, checksum, seq) but neither decoded nor visited.
    ///
    /// With `resumeAt` (honoured in ``RecoveryMode/tolerateCorruptedTail``
    /// only: the other modes exist to find damage anywhere), the scan starts
    /// at that record if a whole checksummed frame of that length and seq is
    /// there, and the records before it are not read; otherwise it scans
    /// from the first record as without it.
    static func scan(file: any LogFile, mode: RecoveryMode, decodeFrom: UInt64 = 1, resumeAt: LogPosition? = nil,
                     visit: (EventRecordView) throws -> Void) throws -> ScanResult {
        let fileLength = try file.size()
        if mode == .tolerateCorruptedTail, let resumeAt, try holdsRecord(file, at: resumeAt, fileLength: fileLength) {
            var cursor = FrameCursor(file: file, offset: resumeAt.offset, expectedSeq: resumeAt.seq)
            cursor.decodeFrom = decodeFrom
            var result = try scan(file: file, mode: mode, fileLength: fileLength, cursor: cursor, lastSeq: resumeAt.seq - 1, visit: visit)
            result.report.resumedAfter = resumeAt
            return result
        }
        var cursor = FrameCursor(file: file, offset: Int64(LogFormat.headerLength), expectedSeq: 1)
        cursor.decodeFrom = decodeFrom
        return try scan(file: file, mode: mode, fileLength: fileLength, cursor: cursor, lastSeq: 0, visit: visit)
    }

    /// Whether exactly `position`'s bytes are one whole, checksummed frame
    /// whose payload decodes to a record with `position.seq` (one read of
    /// the frame, nothing else).
    private static func holdsRecord(_ file: any LogFile, at position: LogPosition, fileLength: Int64) throws(EventLogError) -> Bool {
        guard position.isPlausible(fileLength: fileLength) else { return false }
        let bytes = try file.read(at: position.offset, count: Int(position.length))
        return bytes.withUnsafeBytes { raw in
            guard case .whole(let payload, let length) = Frame.check(raw, at: 0), length == raw.count,
                  let view = try? EventRecordView.parse(payload) else { return false }
            return view.seq == position.seq
        }
    }

    /// Scans from `cursor` on; `lastSeq` is the seq before the cursor's.
    private static func scan(file: any LogFile, mode: RecoveryMode, fileLength: Int64, cursor: FrameCursor, lastSeq: UInt64,
                             visit: (EventRecordView) throws -> Void) throws -> ScanResult {
        var cursor = cursor
        var index = SparseIndex()
        var lastSeq = lastSeq
        var lastPosition: LogPosition?
        while true {
            let start = cursor.offset
            switch try cursor.next() {
            case .record(let view, let offset):
                index.note(seq: view.seq, offset: offset)
                lastSeq = view.seq
                lastPosition = LogPosition(seq: lastSeq, offset: start, length: cursor.offset - start)
                try visit(view)
            case .skipped(let seq, let offset):
                index.note(seq: seq, offset: offset)
                lastSeq = seq
                lastPosition = LogPosition(seq: lastSeq, offset: start, length: cursor.offset - start)
            case .end(let preallocated):
                var report = RecoveryReport(lastSeq: lastSeq, validLength: cursor.offset, fileLength: fileLength,
                                            preallocatedBytes: preallocated)
                report.lastPosition = lastPosition
                return ScanResult(report: report, index: index)
            case .problem(let problem):
                var tornTail = false
                if problem.canBeTornWrite {
                    tornTail = try !hasValidFrame(in: file, after: problem.offset, fileLength: fileLength)
                }
                let damage = RecoveryReport.Damage(offset: problem.offset, reason: problem.reason, isTornTail: tornTail)
                var report = RecoveryReport(lastSeq: lastSeq, validLength: problem.offset, fileLength: fileLength, damage: damage)
                report.lastPosition = lastPosition
                switch mode {
                case .pointInTime:
                    break
                case .tolerateCorruptedTail where tornTail:
                    break
                case .tolerateCorruptedTail, .absoluteConsistency:
                    let code: EventLogError.Code = problem.kind == .seqGap ? .seqGap : .corruptRecord
                    let what = tornTail ? "the log ends in a torn record (absolute-consistency mode refuses to cut it)"
                                        : "the log is corrupt before its tail"
                    throw EventLogError(code, "\(what): \(problem.reason); records after it would be lost, so nothing was changed (open with recovery mode pointInTime to salvage the good prefix)",
                                        path: file.path, offset: problem.offset, lastGoodSeq: lastSeq)
                }
                return ScanResult(report: report, index: index)
            }
        }
    }

    /// Whether any checksummed frame starts after `offset` (at any byte).
    /// Used to tell a torn tail (nothing good follows) from damage in the middle.
    static func hasValidFrame(in file: any LogFile, after offset: Int64, fileLength: Int64) throws(EventLogError) -> Bool {
        let start = offset + 1
        guard start < fileLength else { return false }
        let window = 8 << 20
        var blockStart = start
        while blockStart < fileLength {
            // Read a window plus room for one maximal frame that begins inside it.
            let count = Int(min(Int64(window + LogFormat.frameHeaderLength + LogLimits.maxPayloadBytes), fileLength - blockStart))
            let bytes = try file.read(at: blockStart, count: min(count, window + 1 << 20))
            let found = bytes.withUnsafeBytes { raw -> Bool in
                let limit = min(window, raw.count)
                for position in 0..<limit where Frame.looksValid(raw, at: position) { return true }
                return false
            }
            if found { return true }
            // Frames larger than the extra megabyte are rare; re-check those starts with exact reads.
            blockStart += Int64(window)
        }
        return false
    }
}
