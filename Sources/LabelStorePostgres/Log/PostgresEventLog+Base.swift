#if Postgres
import EventLog

/// Where a list starts: at seq 1, or after a base once its first records
/// were cut off to an archive file or dropped (schema version 4;
/// docs/POSTGRES.md, "Archiving a list").
struct ListBase: Sendable, Hashable {
    /// The seq of the last record cut (0: none; the list starts at seq 1).
    var seq: UInt64 = 0
    /// That record's chained checksum: the first row left continues it.
    var crc: UInt32 = 0
    /// The base block (the list and the tree's frontier at `seq`, what was cut), decoded; `nil` when `seq` is 0.
    var block: LogBase?

    /// A list from seq 1.
    init() {}

    /// A list that starts after `block`, whose last record cut has the chained checksum `crc`.
    init(block: LogBase, crc: UInt32) {
        self.seq = block.lastCutSeq
        self.crc = crc
        self.block = block
    }

    /// The base columns `base_seq`, `base_crc`, `base` of `result`'s first row, from `column` on.
    ///
    /// - Throws: `corruptHeader` naming the list when the base block does not decode or disagrees with `base_seq`.
    init(row result: PostgresResult, column: Int, location: PostgresLocation) throws(PostgresStepFailure) {
        let seq = UInt64(max(0, result.integer(0, column) ?? 0))
        guard seq > 0 else { return }
        self.seq = seq
        self.crc = UInt32(truncatingIfNeeded: result.integer(0, column + 1) ?? 0)
        guard !result.isNull(0, column + 2) else {
            throw .log(
                EventLogError(
                    .corruptHeader, "\(location): list '\(location.list)': base_seq is \(seq) but the head row has no base block",
                    path: location.description))
        }
        do {
            block = try LogBase.decode(Array(result.bytes(0, column + 2)), firstSeq: seq + 1)
        } catch {
            throw .log(
                EventLogError(
                    .corruptHeader,
                    "\(location): list '\(location.list)': the head row's base block is damaged: \(error.reason)\(error.offset.map { " (at byte \($0))" } ?? "")",
                    path: location.description))
        }
    }
}

extension PostgresEventLog {
    /// The list's base when its records before its first were cut off
    /// (``cutHistory(through:archiveTo:now:progress:)``): the list and the history
    /// tree's frontier after the last record cut, and what was cut; `nil` for
    /// a list from seq 1. As read when the log was opened, or later when a
    /// read found the list cut further (`EventStorage.base`).
    public var base: LogBase? { listBase.withLock { $0.block } }

    /// The chained checksum of the last record the list's base cut (the first
    /// row continues it); 0 for a list from seq 1.
    public var baseChainValue: UInt32 { listBase.withLock { $0.crc } }

    /// The list's id, base and the chained checksum its first row continues, read together.
    public var historyStart: LogHistory.Start? {
        listBase.withLock { LogHistory.Start(logID: LabelID(logID), base: $0.block, chainValue: $0.crc) }
    }

    /// The seq of the list's first record: 1, or the one after its base.
    public var firstSeq: UInt64 { listBase.withLock { $0.seq } + 1 }

    /// Where a base's records went, in words: `archived to FILE on TIME`, `dropped on TIME`.
    static func describe(_ base: LogBase) -> String {
        switch base.disposition {
        case .archived(let file): "archived to \(file) on \(base.cutAt.iso8601)"
        case .dropped: "dropped on \(base.cutAt.iso8601)"
        }
    }

    /// Reads the head row's base columns again (another host cut the list
    /// further since this log read them), on `connection`.
    func refreshBase(_ connection: PostgresConnection) throws(PostgresStepFailure) -> ListBase {
        let result = try run { () throws(PostgresFailure) in
            try connection.execute(statements.base, [.text(location.list)])
        }
        guard result.rowCount == 1 else {
            throw .log(
                EventLogError(.listNotFound, "\(location): the list '\(location.list)' no longer exists", path: location.description))
        }
        let found = try ListBase(row: result, column: 0, location: location)
        listBase.withLock { known in if found.seq > known.seq { known = found } }
        return found
    }
}
#endif
