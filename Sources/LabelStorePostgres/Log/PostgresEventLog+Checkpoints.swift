#if Postgres
import EventLog

/// Server-side checkpoints (docs/POSTGRES.md, "Checkpoints"): the list every
/// ``Options-swift.struct/checkpointInterval`` records, in the schema's
/// `checkpoints` table — full images, and storage deltas on the checkpoint
/// before them (chains) — so a host that joins a long list, `show --at` and
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

    /// ``Options-swift.struct/checkpointFullEvery``.
    public var checkpointFullEvery: Int { max(1, options.checkpointFullEvery) }

    /// The newest checkpoint at or before `seq` whose chain is whole — the
    /// row, and the rows it is a delta on back to a full image, each still
    /// bound to its record's chained checksum — with the images of that
    /// chain. Two round trips: the rows' seqs, links and checksums beside
    /// their records' (at most ``Options-swift.struct/checkpointsKept``
    /// chains of them), then the chain's images.
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
            var found: [Int64: (crc: Int64, held: Int64?, deltaOn: Int64?)] = [:]
            var newestFirst: [Int64] = []
            for row in 0..<rows.rowCount {
                guard let at = rows.integer(row, 0), let crc = rows.integer(row, 1) else { continue }
                found[at] = (crc, rows.integer(row, 2), rows.integer(row, 3))
                newestFirst.append(at)
            }
            var skipped: [String] = []
            // Rows already found unusable: a chain built on one is skipped without naming it again.
            var unusable: Set<Int64> = []
            for candidate in newestFirst where !unusable.contains(candidate) {
                var chain: [Int64] = []
                var link: Int64? = candidate
                var problem: String?
                while let at = link {
                    guard let row = found[at] else {
                        problem =
                            "the checkpoint at seq \(chain.last ?? candidate) is a delta on the checkpoint at seq \(at), which is gone"
                        break
                    }
                    if unusable.contains(at) { break }
                    chain.append(at)
                    guard let held = row.held else {
                        problem = "the checkpoint at seq \(at) follows a record the list no longer has"
                        break
                    }
                    guard held == row.crc else {
                        problem =
                            "the checkpoint at seq \(at) was written for a record whose checksum was \(row.crc), and seq \(at)'s is now \(held)"
                        break
                    }
                    // The schema's CHECK keeps a delta on an earlier row; a row edited past it would make the walk loop.
                    if let on = row.deltaOn, on >= at {
                        problem = "the checkpoint at seq \(at) is a delta on the checkpoint at seq \(on), which is not before it"
                        break
                    }
                    link = row.deltaOn
                }
                if link != nil {
                    if let problem { skipped.append("\(location): \(problem)") }
                    unusable.formUnion(chain)
                    continue
                }
                let images = try run { () throws(PostgresFailure) in
                    try connection.execute(
                        prepared: "checkpoint-images", statements.checkpointImages,
                        [
                            .text(location.list),
                            .array(
                                of: PostgresValue.OID.int8, arrayType: PostgresValue.OID.int8Array,
                                chain.map { PostgresValue.bigEndian($0) })
                        ])
                }
                var bytes: [Int64: [UInt8]] = [:]
                for row in 0..<images.rowCount {
                    guard let at = images.integer(row, 0), images.integer(row, 1) == found[at]?.crc else { continue }
                    bytes[at] = Array(images.bytes(row, 2))
                }
                guard let full = chain.last, let image = bytes[full], chain.allSatisfy({ bytes[$0] != nil }) else {
                    skipped.append("\(location): the checkpoint at seq \(candidate) was removed while it was read")
                    unusable.formUnion(chain)
                    continue
                }
                let deltas = chain.dropLast().reversed().map { StoredCheckpoint.Delta(seq: UInt64($0), image: bytes[$0]!) }
                let checkpoint = StoredCheckpoint(
                    seq: UInt64(candidate), chainValue: UInt32(truncatingIfNeeded: found[candidate]!.crc), image: image,
                    imageSeq: UInt64(full), deltas: deltas)
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

    /// The first checkpoint with a seq in `seqs` whose record still has the
    /// chained checksum it was written for, as stored: its own image (a full
    /// image, or a delta on the checkpoint at its `deltaOn`), not decoded
    /// (one round trip). `nil` when there is none; for a schema this build
    /// reads only (whose checkpoints it does not read), `nil` too.
    ///
    /// - Throws: `EventLogError`: the server's failures, as a read throws them.
    public func firstCheckpointRow(in seqs: ClosedRange<UInt64>) throws(EventLogError) -> CheckpointRow?? {
        guard !isReadOnly, seqs.upperBound >= 1 else { return .some(nil) }
        let rows = try withSession(retrying: true, doing: "read the list's checkpoints") {
            (connection) throws(PostgresStepFailure) -> PostgresResult in
            try run { () throws(PostgresFailure) in
                try connection.execute(
                    prepared: "first-checkpoint-row", statements.firstCheckpointRow,
                    [.text(location.list), .int8(Int64(clamping: seqs.lowerBound)), .int8(Int64(clamping: seqs.upperBound))])
            }
        }
        guard rows.rowCount > 0, let seq = rows.integer(0, 0), seq >= 1, let crc = rows.integer(0, 1) else { return .some(nil) }
        let deltaOn = rows.integer(0, 2).flatMap { $0 >= 1 && $0 < seq ? UInt64($0) : nil }
        if rows.integer(0, 2) != nil && deltaOn == nil {
            throw EventLogError(
                .corruptRecord, "\(location): the checkpoint at seq \(seq) is a delta on a checkpoint not before it",
                path: location.description)
        }
        return .some(
            CheckpointRow(
                seq: UInt64(seq), chainValue: UInt32(truncatingIfNeeded: crc), deltaOn: deltaOn, image: Array(rows.bytes(0, 3))))
    }

    /// Inserts the checkpoint at `seq` with the checksum of the list's record
    /// there (nothing when a row for that seq exists, or the record does not),
    /// then thins the list's checkpoints to ``Options-swift.struct/checkpointsKept``
    /// chains, dropping chains whole (docs/POSTGRES.md, "Checkpoints"). On
    /// the log's checkpoint connection, not the one appends use.
    ///
    /// - Throws: `EventLogError` naming the location: `unsupportedVersion` for
    ///   a read-only schema; the server's failures.
    public func storeCheckpoint(seq: UInt64, image: [UInt8], frontier: HistoryTreeBuilder?) throws(EventLogError) -> Bool {
        try insertCheckpoint(seq: seq, image: image, deltaOn: nil, frontier: frontier)
    }

    /// Inserts the storage delta at `seq` on the checkpoint at `base` (nothing
    /// when a row for that seq exists, the record does not, or no checkpoint
    /// at `base` does), then thins the list's checkpoints as
    /// ``storeCheckpoint(seq:image:frontier:)`` does.
    ///
    /// - Throws: `EventLogError` naming the location: `unsupportedVersion` for
    ///   a read-only schema; the server's failures.
    public func storeCheckpoint(seq: UInt64, delta: [UInt8], on base: UInt64, frontier: HistoryTreeBuilder?) throws(EventLogError) -> Bool {
        precondition(base >= 1 && base < seq, "a delta on a later checkpoint")
        return try insertCheckpoint(seq: seq, image: delta, deltaOn: base, frontier: frontier)
    }

    private func insertCheckpoint(seq: UInt64, image: [UInt8], deltaOn: UInt64?, frontier: HistoryTreeBuilder?) throws(EventLogError)
        -> Bool
    {
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
                        PostgresValue(type: PostgresValue.OID.bytea, bytes: frontier.map { $0.frontier.flatMap(\.bytes) }),
                        PostgresValue(type: PostgresValue.OID.int8, bytes: deltaOn.map { PostgresValue.bigEndian(Int64($0)) })
                    ])
            }
            guard inserted.affectedRows == 1 else { return false }
            let links = try run { () throws(PostgresFailure) in
                try connection.execute(prepared: "checkpoint-links", statements.checkpointLinks, [.text(location.list)])
            }
            let stored = (0..<links.rowCount).compactMap { row in
                links.integer(row, 0).map { (seq: UInt64($0), deltaOn: links.integer(row, 1).map { UInt64($0) }) }
            }
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

    /// The checkpoints to drop from `rows` (ascending, each with the seq of
    /// the one it is a delta on, or `nil` for a full image) so that
    /// `keeping` chains remain — a full image with the deltas built on it —
    /// spread over the history by their full images' seqs (as the overload
    /// over seqs alone picks them), dropping a chain whole;
    /// and every delta whose chain does not reach a full image.
    package static func checkpointsToDrop(_ rows: [(seq: UInt64, deltaOn: UInt64?)], keeping: Int) -> [UInt64] {
        var root: [UInt64: UInt64] = [:]
        for row in rows {
            // Ascending, and a delta is always on an earlier checkpoint: its base's root is known by now.
            if let base = row.deltaOn {
                if let baseRoot = root[base] { root[row.seq] = baseRoot }
            } else {
                root[row.seq] = row.seq
            }
        }
        let fulls = rows.filter { $0.deltaOn == nil }.map(\.seq)
        let droppedRoots = Set(checkpointsToDrop(fulls, keeping: keeping))
        return rows.compactMap { row in
            guard let rowRoot = root[row.seq] else { return row.seq }
            return droppedRoots.contains(rowRoot) ? row.seq : nil
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
