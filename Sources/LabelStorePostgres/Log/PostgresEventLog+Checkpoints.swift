#if Postgres
import EventLog

/// Server-side checkpoints (docs/POSTGRES.md, "Checkpoints"): the list every
/// ``Options-swift.struct/checkpointInterval`` records, in the schema's
/// `checkpoints` table, so a host that joins a long list, `show --at` and
/// `diff` start from the newest one at or before the seq they need instead of
/// seq 1.
///
/// Each row is bound to the chained checksum of the record it follows (the
/// `records.crc` of its seq, copied by the insert itself), and is handed out
/// only while that record still has it: a list deleted and created again, or
/// records replaced, leave rows that are skipped (and named). The image is
/// checked by its reader (it must decode and name this list's ``logID`` and
/// the row's seq). Writing happens on a connection of its own, so a large
/// image never holds up appends.
extension PostgresEventLog: CheckpointStorage {
    /// ``Options-swift.struct/checkpointInterval``; 0 for a read-only (older) schema, which has no table for them.
    public var checkpointInterval: UInt64 { isReadOnly ? 0 : options.checkpointInterval }

    /// The list's id (``logID``), which a checkpoint's image must name.
    public var checkpointHistoryID: LabelID { LabelID(logID) }

    /// The newest checkpoint at or before `seq` whose record still has the
    /// chained checksum the row was written with. Two round trips: the rows'
    /// seqs and checksums beside their records' (at most
    /// ``Options-swift.struct/checkpointsKept`` of them), then the one image.
    ///
    /// - Throws: `EventLogError` as a read does (a lost connection is
    ///   reconnected and the lookup sent again).
    public func checkpoint(atOrBefore seq: UInt64) throws(EventLogError) -> CheckpointLookup {
        guard !isReadOnly, seq >= 1 else { return CheckpointLookup(checkpoint: nil) }
        return try withSession(retrying: true, doing: "read the list's checkpoints") {
            (connection) throws(PostgresStepFailure) -> CheckpointLookup in
            let rows = try run { () throws(PostgresFailure) in
                try connection.execute(
                    prepared: "checkpoints", statements.checkpoints, [.text(location.list), .int8(Int64(clamping: seq))])
            }
            var skipped: [String] = []
            for row in 0..<rows.rowCount {
                guard let at = rows.integer(row, 0), let crc = rows.integer(row, 1) else { continue }
                guard let held = rows.integer(row, 2) else {
                    skipped.append("\(location): the checkpoint at seq \(at) follows a record the list no longer has")
                    continue
                }
                guard held == crc else {
                    skipped.append(
                        "\(location): the checkpoint at seq \(at) was written for a record whose checksum was \(crc), and seq \(at)'s is now \(held)"
                    )
                    continue
                }
                let image = try run { () throws(PostgresFailure) in
                    try connection.execute(
                        prepared: "checkpoint-image", statements.checkpointImage, [.text(location.list), .int8(at), .int8(crc)])
                }
                guard image.rowCount == 1 else {
                    skipped.append("\(location): the checkpoint at seq \(at) was removed while it was read")
                    continue
                }
                let checkpoint = StoredCheckpoint(
                    seq: UInt64(at), chainValue: UInt32(truncatingIfNeeded: crc), image: Array(image.bytes(0, 0)))
                return CheckpointLookup(checkpoint: checkpoint, skipped: skipped)
            }
            return CheckpointLookup(checkpoint: nil, skipped: skipped)
        }
    }

    /// The checkpoints with seqs in `seqs` that hold a frontier, ascending,
    /// whose record still has the chained checksum each was written for (one
    /// round trip). A frontier that does not decode (not one 32-byte hash per
    /// set bit of its seq) is refused: it is the server's claim about its
    /// history, and a damaged claim is not skipped silently.
    ///
    /// - Throws: `EventLogError`: `corruptRecord` naming the checkpoint for a
    ///   damaged frontier; the server's failures, as a read throws them.
    public func checkpointHeads(in seqs: ClosedRange<UInt64>) throws(EventLogError) -> [CheckpointHead] {
        guard !isReadOnly, seqs.upperBound >= 1 else { return [] }
        let rows = try withSession(retrying: true, doing: "read the list's checkpoint heads") {
            (connection) throws(PostgresStepFailure) -> PostgresResult in
            try run { () throws(PostgresFailure) in
                try connection.execute(
                    prepared: "checkpoint-frontiers", statements.checkpointFrontiers,
                    [
                        .text(location.list), .int8(Int64(clamping: max(seqs.lowerBound, 1))),
                        .int8(Int64(clamping: seqs.upperBound))
                    ])
            }
        }
        var heads: [CheckpointHead] = []
        for row in 0..<rows.rowCount {
            guard let at = rows.integer(row, 0), let crc = rows.integer(row, 1), let held = rows.integer(row, 2), held == crc
            else { continue }
            let bytes = Array(rows.bytes(row, 3))
            let hashes = stride(from: 0, to: bytes.count, by: 32).compactMap { start in
                bytes.count - start >= 32 ? HistoryHash(bytes: Array(bytes[start..<(start + 32)])) : nil
            }
            guard bytes.count % 32 == 0, let tree = HistoryTreeBuilder(count: UInt64(at), frontier: hashes) else {
                throw EventLogError(
                    .corruptRecord,
                    "\(location): the checkpoint at seq \(at) holds a history tree frontier of \(bytes.count) bytes, not 32 per set bit of \(at)",
                    path: location.description)
            }
            heads.append(CheckpointHead(seq: UInt64(at), chainValue: UInt32(truncatingIfNeeded: crc), tree: tree))
        }
        return heads
    }

    /// Inserts the checkpoint at `seq` with the checksum of the list's record
    /// there (nothing when a row for that seq exists, or the record does not),
    /// then drops older rows past ``Options-swift.struct/checkpointsKept``
    /// (the newest and the oldest stay; of the others, the one whose
    /// neighbours are nearest each other goes first). On the log's checkpoint
    /// connection, not the one appends use.
    ///
    /// - Throws: `EventLogError` naming the location: `unsupportedVersion` for
    ///   a read-only schema; the server's failures.
    public func storeCheckpoint(seq: UInt64, image: [UInt8], frontier: HistoryTreeBuilder?) throws(EventLogError) -> Bool {
        precondition(frontier.map { $0.count == seq } ?? true, "a frontier of another seq")
        if isReadOnly {
            throw Self.readOnly(location, version: Int64(schemaVersion), doing: "write a checkpoint")
        }
        return try withSession(on: checkpointSession, retrying: true, writing: true, doing: "write a checkpoint") {
            (connection) throws(PostgresStepFailure) -> Bool in
            let inserted = try run { () throws(PostgresFailure) in
                try connection.execute(
                    prepared: "store-checkpoint", statements.storeCheckpoint,
                    [
                        .text(location.list), .int8(Int64(clamping: seq)), .bytes(image),
                        PostgresValue(type: PostgresValue.OID.bytea, bytes: frontier.map { $0.frontier.flatMap(\.bytes) })
                    ])
            }
            guard inserted.affectedRows == 1 else { return false }
            let seqs = try run { () throws(PostgresFailure) in
                try connection.execute(prepared: "checkpoint-seqs", statements.checkpointSeqs, [.text(location.list)])
            }
            let stored = (0..<seqs.rowCount).compactMap { seqs.integer($0, 0) }.map { UInt64($0) }
            let drop = Self.checkpointsToDrop(stored, keeping: options.checkpointsKept)
            if !drop.isEmpty {
                let values = drop.map { PostgresValue.bigEndian(Int64($0)) }
                _ = try run { () throws(PostgresFailure) in
                    try connection.execute(
                        prepared: "drop-checkpoints", statements.dropCheckpoints,
                        [
                            .text(location.list),
                            .array(of: PostgresValue.OID.int8, arrayType: PostgresValue.OID.int8Array, values)
                        ])
                }
            }
            return true
        }
    }

    /// The seqs to drop from `seqs` (ascending) so that `keeping` remain,
    /// spread over the history: the newest and the oldest stay, and each
    /// checkpoint dropped is the one whose neighbours are nearest each other
    /// (the smallest gap its removal leaves).
    package static func checkpointsToDrop(_ seqs: [UInt64], keeping: Int) -> [UInt64] {
        let keep = max(keeping, 2)
        var kept = seqs
        var dropped: [UInt64] = []
        while kept.count > keep {
            var best = 1
            for i in 1..<(kept.count - 1) where kept[i + 1] - kept[i - 1] < kept[best + 1] - kept[best - 1] { best = i }
            dropped.append(kept.remove(at: best))
        }
        return dropped
    }
}
#endif
