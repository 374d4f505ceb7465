/// Recovery: scanning a log file frame by frame, telling a torn tail (a write
/// the crash interrupted, cut) from corruption (bytes a later frame proves
/// were durable), and resuming a scan at a known record.
enum Recovery {
    /// Scans every frame after the header, calling `visit` for each good record
    /// (decoded in place; the view is valid during the call only) in order, and decides what the first problem is under `mode`.
    /// Throws for damage the mode does not tolerate; never modifies the file.
    /// Records below `decodeFrom` are checked (framing, checksum, seq) but neither decoded nor visited.
    ///
    /// With `resumeAt` (honoured in ``RecoveryMode/tolerateCorruptedTail``
    /// only: the other modes exist to find damage anywhere), the scan starts
    /// at that record if a whole checksummed frame of that length and seq
    /// (and checksum, when the position has one) is there and recovery keeps
    /// the log through it (``keeps(_:format:through:fileLength:verified:)``:
    /// no earlier record of its unsynced write is damaged), and the records
    /// before it are not read; otherwise it scans from the first record as without it.
    ///
    /// `durable` is the log's checked sync mark (``SyncMark/load(forLogAt:header:file:)``):
    /// every byte through that record is known durable, so damage before it
    /// is corruption, never a torn tail, and a `resumeAt` before it is kept.
    static func scan(
        file: any LogFile, format: FrameFormat, mode: RecoveryMode, decodeFrom: UInt64 = 1, resumeAt: LogPosition? = nil,
        durable: LogPosition? = nil, visit: (EventRecordView) throws -> Void
    ) throws -> ScanResult {
        let fileLength = try file.size()
        var verified = durable
        if mode == .tolerateCorruptedTail, let resumeAt,
            try keeps(file, format: format, through: resumeAt, fileLength: fileLength, verified: &verified) == .kept
        {
            var cursor = FrameCursor(file: file, format: format, offset: resumeAt.offset, expectedSeq: resumeAt.seq)
            cursor.decodeFrom = decodeFrom
            var result = try scan(
                file: file, mode: mode, fileLength: fileLength, cursor: cursor, lastSeq: resumeAt.seq - 1, durable: durable, visit: visit)
            result.report.resumedAfter = resumeAt
            return result
        }
        var cursor = FrameCursor(file: file, atFirstRecordOf: format)
        cursor.decodeFrom = decodeFrom
        return try scan(
            file: file, mode: mode, fileLength: fileLength, cursor: cursor, lastSeq: format.firstSeq - 1, durable: durable, visit: visit)
    }

    /// Whether exactly `position`'s bytes are one whole, checksummed frame
    /// whose payload is a record with `position.seq`, and whose checksum is
    /// `position.checksum` if that is known (one read of the frame, nothing
    /// else). Never traps on an absurd position.
    static func holdsRecord(_ file: any LogFile, format: FrameFormat, at position: LogPosition, fileLength: Int64) throws(EventLogError)
        -> Bool
    {
        try heldFrame(file, format: format, at: position, fileLength: fileLength) != nil
    }

    /// Scans from `cursor` on; `lastSeq` is the seq before the cursor's.
    private static func scan(
        file: any LogFile, mode: RecoveryMode, fileLength: Int64, cursor: FrameCursor, lastSeq: UInt64, durable: LogPosition?,
        visit: (EventRecordView) throws -> Void
    ) throws -> ScanResult {
        var cursor = cursor
        var index = SparseIndex()
        index.first = (cursor.format.firstSeq, cursor.format.firstOffset)
        var lastSeq = lastSeq
        var lastPosition: LogPosition?
        while true {
            // Most records: no `Step` built (FrameCursor.nextRecord).
            if try cursor.nextRecord({ view, position in
                index.note(seq: view.seq, offset: position.offset)
                lastSeq = view.seq
                lastPosition = position
                try visit(view)
            }) {
                continue
            }
            switch try cursor.next() {
            case .record(let view, let offset):
                index.note(seq: view.seq, offset: offset)
                lastSeq = view.seq
                lastPosition = cursor.lastPosition(seq: lastSeq)
                try visit(view)
            case .skipped(let seq, let offset, _):
                index.note(seq: seq, offset: offset)
                lastSeq = seq
                lastPosition = cursor.lastPosition(seq: lastSeq)
            case .end(let preallocated):
                var report = RecoveryReport(
                    lastSeq: lastSeq, validLength: cursor.offset, fileLength: fileLength,
                    preallocatedBytes: preallocated)
                report.lastPosition = lastPosition
                return ScanResult(report: report, index: index)
            case .problem(let problem):
                var later = LaterFrames.none
                if problem.canBeTornWrite {
                    later = try laterFrames(
                        in: file, format: cursor.format, after: problem.offset, fileLength: fileLength, durable: durable)
                }
                let tornTail = problem.canBeTornWrite && !later.proveDamage
                let damage = RecoveryReport.Damage(
                    offset: problem.offset, reason: problem.reason, isTornTail: tornTail,
                    cutsWrittenRecords: later != .none)
                var report = RecoveryReport(lastSeq: lastSeq, validLength: problem.offset, fileLength: fileLength, damage: damage)
                report.lastPosition = lastPosition
                switch mode {
                case .pointInTime:
                    break
                case .tolerateCorruptedTail where tornTail:
                    break
                case .tolerateCorruptedTail, .absoluteConsistency:
                    let code: EventLogError.Code = problem.kind == .seqGap ? .seqGap : .corruptRecord
                    let what =
                        tornTail
                        ? "the log ends in a torn record (absolute-consistency mode refuses to cut it)"
                        : "the log is corrupt before its tail"
                    throw EventLogError(
                        code,
                        "\(what): \(problem.reason); records after it would be lost, so nothing was changed (open with recovery mode pointInTime to salvage the good prefix)",
                        path: file.path, offset: problem.offset, lastGoodSeq: lastSeq)
                }
                return ScanResult(report: report, index: index)
            }
        }
    }

    /// What follows damage at some offset.
    enum LaterFrames: Equatable {
        /// No checksummed frame starts after it.
        case none
        /// Only frames written while an earlier record was not yet durable
        /// (continuations, format version 2): the damage can be a write that
        /// no sync covered, lost or torn by a crash, and the frames after it
        /// were never acknowledged either.
        case continuationsOnly
        /// A frame written when every record before it was durable (in format
        /// version 1, any frame): the damaged bytes were durable, so they
        /// are damage, not a torn write.
        case durableFrame(offset: Int64)

        /// Whether the frames found prove the bytes before them were durable.
        var proveDamage: Bool {
            if case .durableFrame = self { return true }
            return false
        }
    }

    /// Looks for checksummed frames starting at any byte after `offset`, to
    /// tell a torn tail (nothing durable follows) from damage in the middle.
    /// Every byte offset is tried; a frame longer than the read window is
    /// checked with an exact read of the frame.
    ///
    /// In format version 2, a frame that starts inside the damaged frame's own
    /// extent (as its length word, if plausible, declares it) counts only if
    /// it is chained to the damaged frame (records its stored checksum as
    /// `previous`): the bytes of a record being written — a title, say —
    /// cannot then pass for a later record, while a genuine next record
    /// behind a damaged length word still does.
    ///
    /// A checked sync mark (`durable`) whose record starts after the damage
    /// proves it durable without a search: the writer synced every byte
    /// through that record.
    static func laterFrames(
        in file: any LogFile, format: FrameFormat, after offset: Int64, fileLength: Int64, durable: LogPosition? = nil
    ) throws(EventLogError) -> LaterFrames {
        if let durable, durable.offset > offset,
            try heldFrame(file, format: format, at: durable, fileLength: fileLength) != nil
        {
            return .durableFrame(offset: durable.offset)
        }
        let ownExtent = try damagedFrameExtent(in: file, format: format, at: offset, fileLength: fileLength)
        func counts(_ at: Int64, previous: UInt32) -> Bool {
            guard let ownExtent, at < ownExtent.end else { return true }
            return previous == ownExtent.checksum
        }
        let window = 8 << 20
        // Enough bytes past the window for a frame header and the start of a payload.
        let overlap = 64
        var found = LaterFrames.none
        var blockStart = offset + 1
        var skipTo = blockStart
        while blockStart < fileLength {
            let bytes = try file.read(at: blockStart, count: Int(min(Int64(window + overlap), fileLength - blockStart)))
            if bytes.isEmpty { break }
            let limit = min(window, bytes.count)
            var exactReads: [(at: Int64, length: Int)] = []
            var durable: (at: Int64, length: Int, checksum: UInt32)?
            bytes.withUnsafeBytes { raw in
                var position = Int(skipTo - blockStart)
                while position < limit {
                    let at = blockStart + Int64(position)
                    switch Frame.candidate(raw, at: position, fileRemaining: fileLength - at, format: format) {
                    case .none:
                        position += 1
                    case .needsRead(let length):
                        exactReads.append((at, length))
                        position += 1
                    case .valid(let length, let continues, let previous, let checksum):
                        guard counts(at, previous: previous) else {
                            position += 1
                            continue
                        }
                        if !continues {
                            durable = (at, length, checksum)
                            skipTo = at + 1
                            return
                        }
                        found = .continuationsOnly
                        // A genuine frame of this log: the next one can start no earlier than its end.
                        position += length
                    }
                }
                skipTo = blockStart + Int64(position)
            }
            if let durable {
                if try isFollowedConsistently(
                    file, format: format, frameAt: durable.at, length: durable.length,
                    checksum: durable.checksum, fileLength: fileLength)
                {
                    return .durableFrame(offset: durable.at)
                }
                continue  // not a record of this log's sequence (e.g. bytes inside a title): look on from the next byte
            }
            for candidate in exactReads {
                let frame = try file.read(at: candidate.at, count: candidate.length)
                let whole: Frame.Whole? = frame.withUnsafeBytes { raw in
                    guard case .whole(let whole) = Frame.check(raw, at: 0, format: format), whole.length == raw.count,
                        counts(candidate.at, previous: whole.previous)
                    else { return nil }
                    return whole
                }
                guard let whole else { continue }
                if whole.continues {
                    found = .continuationsOnly
                } else if try isFollowedConsistently(
                    file, format: format, frameAt: candidate.at, length: whole.length,
                    checksum: whole.checksum, fileLength: fileLength)
                {
                    return .durableFrame(offset: candidate.at)
                }
            }
            blockStart += Int64(window)
            skipTo = max(skipTo, blockStart)
        }
        return found
    }

    /// Whether what follows the frame at `at` is what follows a record of the
    /// log: the end of the file, preallocated zeros to the end, or the next
    /// frame — in format version 2 a frame header chained to this frame's
    /// `checksum` with a plausible length (whole or torn: the next write may
    /// itself be the one a crash cut); in version 1 a whole frame, or one
    /// cut by the end of the file. A frame-shaped run of bytes inside a
    /// record — a title, say — is followed by the rest of that record, or by
    /// a frame chained to that record, not to it.
    private static func isFollowedConsistently(
        _ file: any LogFile, format: FrameFormat, frameAt at: Int64, length: Int,
        checksum: UInt32, fileLength: Int64
    ) throws(EventLogError) -> Bool {
        let next = at + Int64(length)
        guard next < fileLength else { return true }
        let header = try file.read(at: next, count: format.headerLength)
        if header.allSatisfy({ $0 == 0 }) {
            var probe = FrameCursor(file: file, format: format, offset: next, expectedSeq: 1)
            if case .end(let zeros) = try probe.next(), zeros > 0 { return true }
            return false
        }
        guard header.count == format.headerLength,
            let payloadLength = header.withUnsafeBytes({
                Frame.payloadLength(word: $0.loadUnaligned(as: UInt32.self).littleEndian, format: format)
            })
        else { return false }
        if format.chainsRecords {
            return header.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 8, as: UInt32.self).littleEndian } == checksum
        }
        let end = next + Int64(format.headerLength + payloadLength)
        guard end <= fileLength else { return true }
        let frame = try file.read(at: next, count: format.headerLength + payloadLength)
        return frame.withUnsafeBytes { raw in
            if case .whole = Frame.check(raw, at: 0, format: format) { return true }
            return false
        }
    }

    /// The end and stored checksum of the damaged frame at `offset`, if the
    /// format chains records and its length word is plausible.
    private static func damagedFrameExtent(
        in file: any LogFile, format: FrameFormat, at offset: Int64,
        fileLength: Int64
    ) throws(EventLogError) -> (end: Int64, checksum: UInt32)? {
        guard format.chainsRecords else { return nil }
        let header = try file.read(at: offset, count: format.headerLength)
        guard header.count == format.headerLength else { return nil }
        return header.withUnsafeBytes { raw in
            let word = raw.loadUnaligned(fromByteOffset: 0, as: UInt32.self).littleEndian
            guard let length = Frame.payloadLength(word: word, format: format) else { return nil }
            return (offset + Int64(format.headerLength + length), raw.loadUnaligned(fromByteOffset: 4, as: UInt32.self).littleEndian)
        }
    }
}
