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
    /// `seq` (`nil`: none, fold from seq 1), why newer ones were skipped, and
    /// the chain it was read from (``StorageCheckpointBase``: a writer's next
    /// delta can be written on it). A chain is its full image decoded and its
    /// storage deltas applied in turn (``LabelList/applyStorageDelta(_:)``),
    /// each checked to name this history and its seq; one that does not
    /// check out is skipped, as a whole, for the next older checkpoint. At
    /// most eight checkpoints are tried.
    ///
    /// - Throws: ``StoreError/Code/storage(_:)`` when the storage cannot be asked.
    package static func storageCheckpoint(
        of storage: any CheckpointStorage, atOrBefore seq: UInt64
    ) throws(StoreError) -> (list: LabelList?, skipped: [String], base: StorageCheckpointBase?) {
        var skipped: [String] = []
        var below = seq
        for _ in 0..<8 where below > 0 {
            let lookup: CheckpointLookup
            do throws(EventLogError) { lookup = try storage.checkpoint(atOrBefore: below) } catch { throw StoreError.storage(error) }
            skipped += lookup.skipped
            guard let checkpoint = lookup.checkpoint else { break }
            switch decodeChain(checkpoint, historyID: storage.checkpointHistoryID) {
            case .success(let list):
                return (list, skipped, StorageCheckpointBase(list: list, deltas: checkpoint.deltas.count, fullSize: checkpoint.image.count))
            case .failure(let failure):
                skipped.append(failure.message)
                // The checkpoints before the piece that failed are usable: the next try starts below it.
                below = failure.piece - 1
            }
        }
        return (nil, skipped, nil)
    }

    /// Every id the list at the newest usable checkpoint of `storage` at or
    /// before `seq` knows (live or removed) and that checkpoint's seq, read
    /// from its chain's ids alone (``LabelList/storedCheckpointIDs(image:deltas:)``)
    /// where it can be, else from the list decoded whole: for resolving an id
    /// prefix without decoding a list. `nil`: no usable checkpoint.
    ///
    /// - Throws: ``StoreError/Code/storage(_:)`` when the storage cannot be asked.
    package static func storageCheckpointIDs(of storage: any CheckpointStorage, atOrBefore seq: UInt64) throws(StoreError) -> (
        seq: UInt64, ids: [LabelID]
    )? {
        let lookup: CheckpointLookup
        do throws(EventLogError) { lookup = try storage.checkpoint(atOrBefore: seq) } catch { throw StoreError.storage(error) }
        if let checkpoint = lookup.checkpoint,
            let found = try? LabelList.storedCheckpointIDs(image: checkpoint.image, deltas: checkpoint.deltas.map(\.image)),
            found.seq == checkpoint.seq, found.historyIDs == [storage.checkpointHistoryID]
        {
            return (found.seq, found.ids)
        }
        guard let list = try storageCheckpoint(of: storage, atOrBefore: seq).list else { return nil }
        return (list.lastSeq, list.slots.map(\.id))
    }

    /// Why a stored checkpoint could not be used, and the seq of the piece of
    /// its chain (the image or a delta) that failed.
    struct ChainFailure: Error {
        var message: String
        var piece: UInt64
    }

    /// The list a stored checkpoint gives: its image, then its deltas, each
    /// checked to name `historyID` and its own seq.
    static func decodeChain(_ checkpoint: StoredCheckpoint, historyID: LabelID) -> Result<LabelList, ChainFailure> {
        var list: LabelList
        let header: SnapshotHeader
        do throws(SnapshotError) {
            // Decoded straight into `list`: a second reference (a `Result` kept alive) would make the
            // deltas' first change copy the whole list.
            (list, header) = try checkpoint.image.withUnsafeBytes { raw in
                Result { () throws(SnapshotError) in try LabelList.decodeSnapshot(raw) }
            }.get()
        } catch {
            return .failure(
                ChainFailure(
                    message: "the checkpoint at seq \(checkpoint.imageSeq) does not decode: \(error.message)", piece: checkpoint.imageSeq))
        }
        guard header.logID == historyID, list.lastSeq == checkpoint.imageSeq else {
            return .failure(
                ChainFailure(
                    message:
                        "the checkpoint at seq \(checkpoint.imageSeq) holds the list of history \(header.logID) at seq \(list.lastSeq), not this history's at seq \(checkpoint.imageSeq)",
                    piece: checkpoint.imageSeq))
        }
        let headers: [SnapshotHeader]
        do throws(StorageChainFailure) { headers = try list.applyStorageDeltas(checkpoint.deltas.map(\.image)) } catch {
            let delta = checkpoint.deltas[error.index]
            return .failure(
                ChainFailure(
                    message: "the checkpoint at seq \(delta.seq) does not decode (a delta): \(error.error.message)", piece: delta.seq))
        }
        // Each delta applied to the seq before it (checked as applied); each must also be this history's, at its row's seq.
        for (delta, header) in zip(checkpoint.deltas, headers) where header.logID != historyID || header.seq != delta.seq {
            return .failure(
                ChainFailure(
                    message:
                        "the checkpoint at seq \(delta.seq) holds a delta of history \(header.logID) at seq \(header.seq), not this history's at seq \(delta.seq)",
                    piece: delta.seq))
        }
        return .success(list)
    }

    /// The list to open a store over `storage` from: its newest usable
    /// checkpoint folded on to the end, or the fold of every record on `origin`
    /// (empty, or the storage's base's list); and that checkpoint, when the
    /// storage takes deltas and this store may write them on it.
    static func openingList(over storage: any EventStorage, origin: LabelList = LabelList()) throws(StoreError) -> (
        list: LabelList, base: StorageCheckpointBase?
    ) {
        var list = origin
        var base: StorageCheckpointBase?
        if let checkpoints = storage as? any CheckpointStorage {
            let last: UInt64
            do throws(EventLogError) { last = try storage.refreshLastSeq() } catch { throw StoreError.storage(error) }
            let found = try storageCheckpoint(of: checkpoints, atOrBefore: last)
            if let start = found.list {
                list = start
                // Kept (a second copy of the list once the fold changes it) only where the next checkpoint may be a delta on it.
                if checkpoints.checkpointInterval > 0, checkpoints.checkpointFullEvery > 1 { base = found.base }
            }
        }
        try forEachRecord(in: storage, from: list.lastSeq + 1, through: nil) { (record) throws(StoreError) in
            do throws(ProjectionError) { try list.replay(record) } catch { throw StoreError.inconsistent(error) }
            return true
        }
        return (list, base)
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
    /// recorded in ``snapshotReport`` (`lastWriteError`), never thrown. A
    /// storage delta on the last checkpoint this store wrote or opened from
    /// (``StorageCheckpointBase``) when the storage takes deltas, the chain is
    /// shorter than its ``CheckpointStorage/checkpointFullEvery`` and the
    /// delta is at most half the last full image; else the full image.
    func writeStorageCheckpoint(_ pending: PendingSnapshot) {
        guard let checkpoints = storage as? any CheckpointStorage else {
            state.withLock { $0.snapshots.writing = false }
            return
        }
        let (done, base) = state.withLock { ($0.snapshots.historyFiles.done, $0.snapshots.storageBase) }
        done.enter()
        Thread.detachNewThread { [self] in
            defer { done.leave() }
            let list = pending.list
            let historyID = checkpoints.checkpointHistoryID
            var failure: String?
            var written: StorageCheckpointBase?
            do {
                // The tree's frontier goes with it, continued from the newest checkpoint's before it when that is nearer.
                let before = try checkpoints.checkpointHeads(in: (storage.base?.lastCutSeq ?? 0)...list.lastSeq).last
                let tree = try historyTree(atSeq: list.lastSeq, hint: before?.tree)
                if let base, base.list.lastSeq < list.lastSeq, base.deltas + 1 < checkpoints.checkpointFullEvery {
                    let delta = list.storageDeltaBytes(from: base.list, historyID: historyID)
                    if delta.count <= base.fullSize / 2,
                        try checkpoints.storeCheckpoint(seq: list.lastSeq, delta: delta, on: base.list.lastSeq, frontier: tree)
                    {
                        written = StorageCheckpointBase(list: list, deltas: base.deltas + 1, fullSize: base.fullSize)
                    }
                }
                if written == nil {
                    let image = list.snapshotBytes(logID: historyID, fingerprint: 0, logPosition: nil)
                    // Written, or there already (another host's): either way the checkpoint at this seq is there to build on.
                    _ = try checkpoints.storeCheckpoint(seq: list.lastSeq, image: image, frontier: tree)
                    written = StorageCheckpointBase(list: list, deltas: 0, fullSize: image.count)
                }
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
                if checkpoints.checkpointFullEvery > 1, let written { s.snapshots.storageBase = written }
            }
        }
    }
}

/// The checkpoint a store's next storage delta is written on: the list there,
/// how many deltas its chain has after its full image, and that image's size
/// (a delta larger than half of it is written as a full image instead).
package struct StorageCheckpointBase: Sendable {
    /// The list at the checkpoint.
    package var list: LabelList
    /// The deltas between the chain's full image and this checkpoint.
    package var deltas: Int
    /// The bytes of the chain's full image.
    package var fullSize: Int
}
