import EventLog
import Foundation

/// Checkpoints kept by the storage itself (a ``CheckpointStorage``, such as a
/// PostgreSQL list): a store over it opens from the newest one, time travel
/// folds from the nearest one, and a store whose own append crosses a
/// multiple of the storage's interval writes the next one on a background
/// thread, so no write waits for it.
///
/// A checkpoint's image is the list's snapshot encoding (every slot, removed
/// labels included, no log position), naming the storage's history id and
/// the checkpoint's seq; one that does not decode, or names another history
/// or seq, is skipped for the next older one, as are those the storage finds
/// bound to a record that changed. A checkpoint is a cache: the answers from
/// one are the answers from seq 1.
extension LabelStore {
    /// The list at the newest usable checkpoint of `storage` at or before
    /// `seq` (`nil`: none, fold from seq 1), and why newer ones were skipped.
    /// At most eight checkpoints are tried.
    ///
    /// - Throws: ``StoreError/Code/storage(_:)`` when the storage cannot be asked.
    package static func storageCheckpoint(
        of storage: any CheckpointStorage, atOrBefore seq: UInt64
    ) throws(StoreError) -> (list: LabelList?, skipped: [String]) {
        var skipped: [String] = []
        var below = seq
        for _ in 0..<8 where below > 0 {
            let lookup: CheckpointLookup
            do throws(EventLogError) { lookup = try storage.checkpoint(atOrBefore: below) } catch { throw StoreError.storage(error) }
            skipped += lookup.skipped
            guard let checkpoint = lookup.checkpoint else { break }
            let decoded = checkpoint.image.withUnsafeBytes { raw in
                Result { () throws(SnapshotError) in try LabelList.decodeSnapshot(raw) }
            }
            switch decoded {
            case .success(let (list, header)) where header.logID == storage.checkpointHistoryID && list.lastSeq == checkpoint.seq:
                return (list, skipped)
            case .success(let (list, header)):
                skipped.append(
                    "the checkpoint at seq \(checkpoint.seq) holds the list of history \(header.logID) at seq \(list.lastSeq), not this history's at seq \(checkpoint.seq)"
                )
            case .failure(let error):
                skipped.append("the checkpoint at seq \(checkpoint.seq) does not decode: \(error.message)")
            }
            below = checkpoint.seq - 1
        }
        return (nil, skipped)
    }

    /// The list to open a store over `storage` from: its newest usable
    /// checkpoint folded on to the end, or the fold of every record on `origin`
    /// (empty, or the storage's base's list).
    static func openingList(over storage: any EventStorage, origin: LabelList = LabelList()) throws(StoreError) -> LabelList {
        var list = origin
        if let checkpoints = storage as? any CheckpointStorage {
            let last: UInt64
            do throws(EventLogError) { last = try storage.refreshLastSeq() } catch { throw StoreError.storage(error) }
            if let found = try storageCheckpoint(of: checkpoints, atOrBefore: last).list { list = found }
        }
        try forEachRecord(in: storage, from: list.lastSeq + 1, through: nil) { (record) throws(StoreError) in
            do throws(ProjectionError) { try list.replay(record) } catch { throw StoreError.inconsistent(error) }
            return true
        }
        return list
    }

    /// Under the lock, after this store appended `records`: notes whether they
    /// crossed a multiple of the storage's checkpoint interval.
    func noteOwnAppend(_ records: [EventRecord], _ s: inout State) {
        guard ownedWriter == nil, let first = records.first?.seq, let last = records.last?.seq,
            let checkpoints = storage as? any CheckpointStorage
        else { return }
        let interval = checkpoints.checkpointInterval
        if interval > 0, (first - 1) / interval < last / interval { s.snapshots.checkpointCrossed = true }
    }

    /// Under the lock: the list to store as a checkpoint, if this store's own
    /// append crossed the interval and none is being written.
    func storageCheckpointDue(_ s: inout State) -> PendingSnapshot? {
        guard s.snapshots.checkpointCrossed, !s.snapshots.writing, s.broken == nil else { return nil }
        s.snapshots.checkpointCrossed = false
        s.snapshots.writing = true
        return PendingSnapshot(list: s.list, logPosition: nil)
    }

    /// Encodes and stores `pending` on a background thread; a failure is
    /// recorded in ``snapshotReport`` (`lastWriteError`), never thrown.
    func writeStorageCheckpoint(_ pending: PendingSnapshot) {
        guard let checkpoints = storage as? any CheckpointStorage else {
            state.withLock { $0.snapshots.writing = false }
            return
        }
        let done = state.withLock { $0.snapshots.historyFiles.done }
        done.enter()
        Thread.detachNewThread { [self] in
            defer { done.leave() }
            let list = pending.list
            let image = list.snapshotBytes(logID: checkpoints.checkpointHistoryID, fingerprint: 0, logPosition: nil)
            var failure: String?
            do {
                // The tree's frontier goes with it, continued from the newest checkpoint's before it when that is nearer.
                let before = try checkpoints.checkpointHeads(in: (storage.base?.lastCutSeq ?? 0)...list.lastSeq).last
                let tree = try historyTree(atSeq: list.lastSeq, hint: before?.tree)
                _ = try checkpoints.storeCheckpoint(seq: list.lastSeq, image: image, frontier: tree)
            } catch let error as EventLogError {
                failure = error.message
            } catch let error as StoreError {
                failure = error.message
            } catch {
                failure = "\(error)"
            }
            state.withLock { s in
                s.snapshots.writing = false
                if let failure { s.snapshots.report.lastWriteError = failure }
                if list.lastSeq > s.snapshots.seq { s.snapshots.seq = list.lastSeq }
            }
        }
    }
}
