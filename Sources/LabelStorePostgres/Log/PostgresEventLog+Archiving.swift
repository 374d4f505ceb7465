#if Postgres
import EventLog
import Foundation
import LabelProjection

/// Cutting a list's earliest records off (docs/POSTGRES.md, "Archiving a
/// list"): they move to an archive file (or are dropped), and the list
/// starts after them from a base in its head row, as a based log file does
/// (docs/FORMAT.md, "Based logs").
extension PostgresEventLog {
    /// What ``cutHistory(through:archiveTo:now:progress:)`` did.
    public struct CutReport: Sendable, Hashable {
        /// The seqs cut: from the list's first record through the cut.
        public var cut: ClosedRange<UInt64>
        /// The smallest and largest timestamps among them.
        public var timeRange: ClosedRange<EventTimestamp>
        /// The records left on the server after the cut.
        public var keptRecords: UInt64
        /// The list's first seq after the cut.
        public var firstSeq: UInt64 { cut.upperBound + 1 }
        /// The payload bytes of the records cut.
        public var cutBytes: Int64
        /// The archive file written (`nil`: the records were dropped).
        public var archivePath: String?
        /// Whether an archive already at ``archivePath`` was found to hold exactly these records and was kept.
        public var reusedArchive: Bool
        /// The history tree's frontier after the last record cut (the base keeps it).
        public var frontier: [HistoryHash]
        /// The chained checksum of the last record cut (the first row left continues it).
        public var chainValue: UInt32
    }

    /// Cuts the records through `lastCutSeq` off the list: with `archiveTo`
    /// (a file path), they are written there first as a log file of this
    /// history (the records' stored payloads, chained as on the server, so
    /// `labelreplay verify` checks it alone and its last checksum is the
    /// base's chain value), synced and linked into place; without, they are
    /// dropped. Then one transaction writes the base into the list's head row
    /// (the list after the cut, every label, removed ones included; the
    /// history tree's frontier; what was cut and where it went) and deletes
    /// the records and checkpoints through the cut. Hosts that open the list
    /// later, and stores over it, start from the base; heads and answers from
    /// the cut on are the same as before.
    ///
    /// Every record cut is read and checked (its chained checksum) and
    /// folded; the transaction checks that the record at the cut still has
    /// the checksum the archive ends with and that no other cut happened
    /// meanwhile, so the base always describes the records it replaces.
    /// Appends go on during the read; they wait for the head row only while
    /// the transaction's last statement runs. A host reading records before
    /// the cut afterwards gets `seqGap` naming where they went.
    ///
    /// A crash or a lost connection before the commit leaves the list as it
    /// was (with, at worst, a complete archive at `archiveTo`, which a second
    /// run finds to hold exactly these records and keeps); a lost reply to
    /// the commit is settled by reading the head row's base.
    ///
    /// - Parameters:
    ///   - lastCutSeq: The last seq to cut: after the list's first, at most its last.
    ///   - archivePath: Where the archive file goes (absolute, or relative to the
    ///     current directory; the base names it as an absolute path), or `nil` to drop the records.
    ///   - now: The time the base records as the cut's.
    ///   - progress: Called every 4,096 records read, with the seq reached.
    /// - Throws: `EventLogError`: `invalidEvent` for a seq outside the list;
    ///   `fileExists` when another file is at `archivePath`; `unsupportedVersion`
    ///   on a schema older than version 4; `seqConflict` when another cut
    ///   happened meanwhile; `corruptRecord` for a damaged record; the
    ///   server's and the file system's failures. Nothing is cut then.
    /// - Complexity: O(records cut): each is read, folded and hashed once.
    @discardableResult
    public func cutHistory(
        through lastCutSeq: UInt64, archiveTo archivePath: String?, now: EventTimestamp = .now(),
        progress: ((UInt64) -> Void)? = nil
    ) throws(EventLogError) -> CutReport {
        if isReadOnly { throw Self.readOnly(location, version: Int64(schemaVersion), doing: "cut the list's history") }
        let last = try refreshLastSeq()
        let base = try withSession(retrying: true) { (connection) throws(PostgresStepFailure) in try refreshBase(connection) }
        guard lastCutSeq > base.seq, lastCutSeq <= last else {
            throw EventLogError(
                .invalidEvent,
                lastCutSeq <= base.seq
                    ? "\(location): nothing to cut through seq \(lastCutSeq): the list starts at seq \(base.seq + 1)"
                    : "\(location): cannot cut through seq \(lastCutSeq): the list ends at seq \(last)",
                path: location.description)
        }
        let absolute = archivePath.map { $0.hasPrefix("/") ? $0 : FileManager.default.currentDirectoryPath + "/" + $0 }
        var plan = try readCut(from: base, through: lastCutSeq, archive: absolute, progress: progress)
        let cut = LogBase(
            cut: (base.seq + 1)...lastCutSeq, timeRange: plan.timeRange, cutAt: now,
            disposition: absolute.map { .archived(file: $0) } ?? .dropped, frontier: plan.tree.frontier,
            image: plan.list.baseImageBytes(logID: checkpointHistoryID))
        try commitCut(cut, chainValue: plan.chainValue, after: base)
        plan.archive = nil
        if let archivePath { ArchiveIndex.write(for: archivePath) }
        return CutReport(
            cut: cut.cut, timeRange: cut.timeRange, keptRecords: max(lastSeq, last) - lastCutSeq, cutBytes: plan.bytes,
            archivePath: absolute, reusedArchive: plan.reused, frontier: cut.frontier, chainValue: plan.chainValue)
    }

    /// What reading the records to cut found.
    private struct CutPlan {
        var list: LabelList
        var tree: HistoryTreeBuilder
        var timeRange: ClosedRange<EventTimestamp>
        var chainValue: UInt32
        var bytes: Int64 = 0
        var reused = false
        /// The archive written, until the cut commits (removed if it does not).
        var archive: ArchiveFileWriter?
    }

    /// Reads, checks, folds and hashes the records after `base` through
    /// `lastCutSeq`, writing them to an archive at `archivePath` (or checking
    /// one there holds exactly them).
    private func readCut(
        from base: ListBase, through lastCutSeq: UInt64, archive archivePath: String?, progress: ((UInt64) -> Void)?
    ) throws(EventLogError) -> CutPlan {
        let origin: LabelList
        do throws(StoreError) {
            origin = try LabelList.origin(of: base.block, logID: checkpointHistoryID, describe: location.description)
        } catch {
            throw EventLogError(.corruptHeader, error.message, path: location.description)
        }
        var tree = base.block.flatMap { HistoryTreeBuilder(count: $0.lastCutSeq, frontier: $0.frontier) } ?? HistoryTreeBuilder()
        var list = origin
        var chain = base.crc
        var low = Int64.max
        var high = Int64.min
        var bytes: Int64 = 0
        var writer: ArchiveFileWriter?
        var existing: LogReader?
        if let archivePath, SystemFile.exists(archivePath) {
            existing = try LogReader(path: archivePath)
        }
        defer { if let writer, writer.nextSeq <= lastCutSeq { writer.abandon() } }
        var next = base.seq + 1
        while next <= lastCutSeq {
            let records = try read(from: next, maxCount: Int(min(4096, lastCutSeq - next + 1)))
            guard let first = records.first, first.seq == next else {
                throw EventLogError(
                    .seqGap, "\(location): seq \(next) is missing: the list ended while it was cut", path: location.description)
            }
            if let archivePath, writer == nil, existing == nil {
                writer = try ArchiveFileWriter(
                    path: archivePath, logID: checkpointHistoryID, createdAt: first.timestamp, base: base.block,
                    previousChecksum: base.crc)
            }
            for record in records {
                do throws(ProjectionError) { try list.replay(record) } catch {
                    throw EventLogError(.corruptRecord, "\(location): record \(record.seq) does not fold: \(error.message)")
                }
                let payload = try record.storedPayload()
                payload.withUnsafeBytes { tree.append(payload: $0) }
                chain = checksums.next(after: chain, payload: payload)
                bytes += Int64(payload.count)
                low = min(low, record.timestamp.millisecondsSince1970)
                high = max(high, record.timestamp.millisecondsSince1970)
                try writer?.append(record)
            }
            next = records[records.count - 1].seq + 1
            progress?(next - 1)
        }
        var reused = false
        if let writer {
            let written = try writer.finish()
            guard written == chain else {
                throw EventLogError(
                    .corruptRecord, "\(writer.path): the archive's chain value differs from the list's at seq \(lastCutSeq)",
                    path: writer.path)
            }
            CutCrashPoint.reached(.archiveWritten)
        } else if let existing, let archivePath {
            try checkArchive(existing, path: archivePath, base: base, lastCutSeq: lastCutSeq, chainValue: chain)
            reused = true
        }
        return CutPlan(
            list: list, tree: tree,
            timeRange: EventTimestamp(millisecondsSince1970: low)...EventTimestamp(millisecondsSince1970: high), chainValue: chain,
            bytes: bytes, reused: reused, archive: writer)
    }

    /// Checks that the file at `path` is this list's archive of exactly the records after `base` through `lastCutSeq`.
    private func checkArchive(
        _ reader: LogReader, path: String, base: ListBase, lastCutSeq: UInt64, chainValue: UInt32
    ) throws(EventLogError) {
        func refuse(_ why: String) -> EventLogError {
            EventLogError(
                .fileExists, "another file is there (\(why)); choose another archive name or remove it", path: path)
        }
        guard reader.header.logID == checkpointHistoryID else { throw refuse("a log of history \(reader.header.logID)") }
        guard reader.header.firstSeq == base.seq + 1 else { throw refuse("a log from seq \(reader.header.firstSeq)") }
        while try reader.next() != nil {}
        guard let end = reader.lastPosition, end.seq == lastCutSeq, end.checksum == chainValue else {
            throw refuse("a log of this list ending at seq \(reader.lastPosition?.seq ?? base.seq), not at seq \(lastCutSeq) as cut")
        }
    }

    /// Writes `cut` into the head row and deletes the records and
    /// checkpoints it replaces, in one transaction, if the list still starts
    /// after `previous` and the record at the cut still has `chainValue`.
    private func commitCut(_ cut: LogBase, chainValue: UInt32, after previous: ListBase) throws(EventLogError) {
        let s = schema.identifier
        let list = PostgresValue.text(location.list)
        let lastCut = Int64(cut.lastCutSeq)
        let block = cut.encoded()
        try withSession(retrying: true, writing: true, doing: "cut the list's history") { (connection) throws(PostgresStepFailure) in
            // A commit whose reply was lost: the head row says whether it landed.
            let now = try refreshBase(connection)
            if now.seq == cut.lastCutSeq && now.crc == chainValue { return }
            guard now.seq == previous.seq else {
                throw .log(
                    EventLogError(
                        .seqConflict, "\(location): the list was cut through seq \(now.seq) meanwhile; nothing more was cut",
                        path: location.description))
            }
            _ = try run { () throws(PostgresFailure) in try connection.execute("BEGIN") }
            do throws(PostgresStepFailure) {
                let at = try run { () throws(PostgresFailure) in
                    try connection.execute("SELECT crc FROM \(s).records WHERE list = $1 AND seq = $2", [list, .int8(lastCut)])
                }
                guard at.rowCount == 1, UInt32(truncatingIfNeeded: at.integer(0, 0) ?? -1) == chainValue else {
                    throw PostgresStepFailure.log(
                        damage(
                            .corruptRecord, "the row of seq \(lastCut) changed while the list was cut; nothing was cut",
                            seq: UInt64(lastCut - 1)))
                }
                let moved = try run { () throws(PostgresFailure) in
                    // The cut rows' batch ids stay answerable: a device's open push is settled by them.
                    _ = try connection.execute(
                        "INSERT INTO \(s).cut_batches (list, seq, batch_id) SELECT list, seq, batch_id FROM \(s).records WHERE list = $1 AND seq <= $2 AND batch_id IS NOT NULL ON CONFLICT DO NOTHING",
                        [list, .int8(lastCut)])
                    _ = try connection.execute("DELETE FROM \(s).records WHERE list = $1 AND seq <= $2", [list, .int8(lastCut)])
                    _ = try connection.execute("DELETE FROM \(s).checkpoints WHERE list = $1 AND seq <= $2", [list, .int8(lastCut)])
                    // The deltas after the cut whose chains started before it go with them.
                    _ = try connection.execute(statements.dropBrokenChains, [list])
                    // The head row last: appends wait for it only from here to the commit.
                    return try connection.execute(
                        "UPDATE \(s).lists SET base_seq = $2, base_crc = $3, base = $4 WHERE list = $1 AND log_id = $5 AND base_seq = $6",
                        [list, .int8(lastCut), .int8(Int64(chainValue)), .bytes(block), .uuid(logID), .int8(Int64(previous.seq))])
                }
                guard moved.affectedRows == 1 else {
                    throw PostgresStepFailure.log(
                        EventLogError(
                            .seqConflict, "\(location): the list was cut or replaced meanwhile; nothing was cut", path: location.description
                        ))
                }
                _ = try run { () throws(PostgresFailure) in try connection.execute("COMMIT") }
            } catch {
                _ = try? connection.execute("ROLLBACK")
                throw error
            }
        }
        listBase.withLock { $0 = ListBase(block: cut, crc: chainValue) }
    }
}
#endif
