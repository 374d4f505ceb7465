import EventLog

/// A storage's checkpoints decoded one after another in seq order, as
/// ``CheckpointStorage/firstCheckpointRow(in:)`` hands them out: a full image
/// decoded, a delta applied to the list of the checkpoint before it — each
/// image read once, where a reader reads a whole chain per checkpoint. What
/// `labelreplay verify` compares with its fold at each checkpoint's seq.
///
/// Each list is checked as a reader checks it (``LabelStore/storageCheckpoint(of:atOrBefore:)``):
/// its image decodes, names this history and the row's seq, and a delta
/// applies to the checkpoint it is on. That is usually the one decoded just
/// before it; when it is an earlier one (hosts writing in turn each write on
/// the checkpoint they wrote or opened from), its chain is read from the
/// storage as a reader reads it. Not thread-safe: a value one thread uses.
package struct StorageCheckpointWalk {
    /// Why a checkpoint's list could not be had, naming it.
    package struct Failure: Error {
        package var message: String
    }

    /// The storage whose checkpoints these are (for a delta on an earlier one).
    let storage: any CheckpointStorage
    /// The id the images must name (the storage's ``CheckpointStorage/checkpointHistoryID``).
    let historyID: LabelID
    /// The list of the last checkpoint that decoded (a delta on it applies to it in place
    /// once the caller has let go of its copy).
    private var last: LabelList?

    /// A walk over the checkpoints of `storage`.
    package init(storage: any CheckpointStorage) {
        self.storage = storage
        self.historyID = storage.checkpointHistoryID
    }

    /// The list `row` holds. A failure leaves no list to apply the next delta
    /// to: a delta on the checkpoint that failed fails too, naming it.
    ///
    /// - Complexity: O(b) for a full image's b bytes; O(b + n) for a delta on a
    ///   list of n live labels (its order is rebuilt).
    package mutating func list(of row: CheckpointRow) -> Result<LabelList, Failure> {
        // Moved out, so a delta changes the list in place (no copy).
        var previous = last
        last = nil
        guard let base = row.deltaOn else {
            // A full image: decoded and checked as a reader decodes a chain's image.
            let chain = StoredCheckpoint(seq: row.seq, chainValue: row.chainValue, image: row.image)
            switch LabelStore.decodeChain(chain, historyID: historyID) {
            case .success(let list):
                last = list
                return .success(list)
            case .failure(let failure):
                return .failure(Failure(message: failure.message))
            }
        }
        var list: LabelList
        if previous?.lastSeq == base {
            list = previous.take()!
        } else {
            // A delta on an earlier checkpoint of its chain: that one as a reader has it.
            let found = try? LabelStore.storageCheckpoint(of: storage, atOrBefore: base)
            guard let earlier = found?.list, earlier.lastSeq == base else {
                let why = found.map { $0.skipped.joined(separator: "; ") } ?? "the storage cannot be asked"
                return .failure(
                    Failure(
                        message:
                            "the checkpoint at seq \(row.seq) is a delta on the checkpoint at seq \(base), which cannot be read\(why.isEmpty ? "" : " (\(why))")"
                    ))
            }
            list = earlier
        }
        let header: SnapshotHeader
        do throws(SnapshotError) {
            header = try row.image.withUnsafeBytes { raw in
                Result { () throws(SnapshotError) in try list.applyStorageDelta(raw) }
            }.get()
        } catch {
            return .failure(Failure(message: "the checkpoint at seq \(row.seq) does not decode (a delta): \(error.message)"))
        }
        // Checked as a reader checks each delta of a chain.
        guard header.logID == historyID, header.seq == row.seq else {
            return .failure(
                Failure(
                    message:
                        "the checkpoint at seq \(row.seq) holds a delta of history \(header.logID) at seq \(header.seq), not this history's at seq \(row.seq)"
                ))
        }
        last = list
        return .success(list)
    }
}
