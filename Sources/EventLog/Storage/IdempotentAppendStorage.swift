import Foundation

/// An ``EventStorage`` whose appends carry the caller's batch id, stored
/// with the batch's first record, so a writer that lost track of an append
/// (it crashed, or its connection dropped before the reply) can find out
/// whether it committed: if it was sent to follow seq `s`, the record at
/// `s + 1` holds its batch id exactly when it did (an append with an
/// expected last seq commits there or nowhere).
///
/// A device syncing through a server list relies on it for exactly-once
/// pushes (docs/SYNC.md, "Exactly once").
public protocol IdempotentAppendStorage: EventStorage {
    /// Appends `entries` after `expectedLastSeq` (when given), all or
    /// nothing, storing `batchID` with the first record; durability and
    /// errors are the storage's ``EventStorage/append(_:expectedLastSeq:)``.
    func append(_ entries: [LogEntry], expectedLastSeq: UInt64?, batchID: UUID) throws(EventLogError) -> [EventRecord]

    /// The batch id stored with the record at `seq` — the first record of an
    /// append that carried one — or `nil` (no record there, or a record that
    /// does not start such an append).
    func batchID(atSeq seq: UInt64) throws(EventLogError) -> UUID?
}
