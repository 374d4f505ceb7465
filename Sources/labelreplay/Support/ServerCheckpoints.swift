import EventLog
import LabelProjection

/// A server list's checkpoints (its schema's `checkpoints` table, docs/POSTGRES.md,
/// "Checkpoints") as ``Checkpoints`` hands them to a ``Replay``: the list at
/// the newest usable one at or before a seq, checked as a store checks it
/// (``LabelStore/storageCheckpoint(of:atOrBefore:)``).
struct ServerCheckpoints {
    /// The list read (shared with the command's other readers: ``ServerStorage/openForReading(_:)``).
    let storage: any CheckpointStorage
    /// The seqs of its checkpoint rows when opened, as stored (not yet checked): for planning folds.
    let seqs: [UInt64]

    /// The checkpoints of the list at `location`; `nil` when its storage keeps none.
    static func open(_ location: LogLocation) throws -> ServerCheckpoints? {
        guard let storage = try ServerStorage.openForReading(location).storage as? any CheckpointStorage else { return nil }
        return ServerCheckpoints(storage: storage, seqs: try ServerStorage.checkpointSeqs(in: storage))
    }

    /// The newest usable checkpoint at or before `seq`, and why newer ones
    /// were not used. The server's images keep no removed label's title: with
    /// `removedAmong`, those of its labels that the checkpoint's list has
    /// removed are read from their removal records (through the label index);
    /// without, ``ListCheckpoint/removed`` is empty.
    func checkpoint(atOrBefore seq: UInt64, removedAmong: Set<LabelID>? = nil) -> (ListCheckpoint?, [String]) {
        let found: (list: LabelList?, skipped: [String], base: StorageCheckpointBase?)
        do {
            found = try LabelStore.storageCheckpoint(of: storage, atOrBefore: seq)
        } catch {
            return (nil, ["the list's checkpoints cannot be read: \(error.message)"])
        }
        guard let list = found.list else { return (nil, found.skipped) }
        let position = LogPosition(seq: list.lastSeq, offset: 0, length: 0)
        var removed: [LabelID: RemovedLabel] = [:]
        if let wanted = removedAmong {
            let tombstones = Set(list.removedIDs).intersection(wanted)
            do {
                guard let found = try ServerStorage.removals(of: tombstones, removedIn: list, in: storage) else {
                    return (nil, found.skipped)
                }
                removed = found
            } catch {
                return (nil, found.skipped + ["the removed labels of the checkpoint at seq \(list.lastSeq) cannot be read: \(error)"])
            }
        }
        return (ListCheckpoint(list: list, position: position, removed: removed), found.skipped)
    }
}
