import EventLog
import Foundation
import LabelProjection

/// `verify` of a server list's checkpoints: each list they hold compared with
/// the fold of the records at its seq, as `verify` reads them. A store that
/// opens the list starts from its newest checkpoint, and time travel from the
/// nearest, so a checkpoint that decodes to another list — written by a
/// faulty writer, or forged with its checksums recomputed — would give every
/// host that list; the readers can tell only a checkpoint that does not
/// decode. Each image is read once (``StorageCheckpointWalk``: a delta is
/// applied to the list of the checkpoint before it).
extension Verify {
    struct CheckpointListCheck {
        private let storage: (any CheckpointStorage)?
        private let last: UInt64
        /// The list's schema and name, for the remedy a problem states.
        private let table: String
        private let list: String
        private var walk: StorageCheckpointWalk?
        /// The next checkpoint to compare (`nil`: none left).
        private var next: CheckpointRow?

        /// The checkpoints of `storage` with seqs in `first…last` (none for a
        /// storage that keeps none or cannot list them); one that cannot be
        /// read is `result`'s problem.
        init(
            storage: any EventStorage, schema: String, list: String, from first: UInt64, through last: UInt64,
            into result: inout VerifyResult
        ) {
            self.last = last
            self.table = "\"" + schema.replacingOccurrences(of: "\"", with: "\"\"") + "\".checkpoints"
            self.list = list
            guard let checkpoints = storage as? any CheckpointStorage, first <= last else {
                self.storage = nil
                return
            }
            self.storage = checkpoints
            do {
                guard case .some(let row) = try checkpoints.firstCheckpointRow(in: first...last) else { return }
                next = row
                walk = StorageCheckpointWalk(storage: checkpoints)
                if row != nil { result.serverChecks?.append("checkpoint lists") }
            } catch {
                result.problem = .init(kind: "checkpoint", code: error.code.rawValue, offset: nil, seq: nil, message: error.message)
            }
        }

        /// Compares the checkpoint at `folded.lastSeq`, if there is one, with
        /// `folded` (the records' fold there), then reads the next; a
        /// checkpoint that does not decode, or holds another list, is the problem.
        mutating func check(_ folded: LabelList) -> VerifyResult.Problem? {
            guard let row = next, row.seq == folded.lastSeq, let storage else { return nil }
            switch walk?.list(of: row) {
            case .success(let held):
                // `==` first: naming the difference makes each label's strings (many times slower).
                if held != folded, let difference = held.firstDifference(from: folded) {
                    return problem(
                        .historyDiverged, seq: row.seq,
                        "the checkpoint at seq \(row.seq) holds a list that is not the records' fold there: \(difference); a store that opens from it starts from that list"
                    )
                }
            case .failure(let failure):
                return problem(.corruptRecord, seq: row.seq, "\(failure.message); readers skip it, and every checkpoint built on it")
            case nil:
                return nil
            }
            do throws(EventLogError) {
                next = row.seq < last ? (try storage.firstCheckpointRow(in: (row.seq + 1)...last) ?? nil) : nil
            } catch {
                return .init(kind: "checkpoint", code: error.code.rawValue, offset: nil, seq: row.seq + 1, message: error.message)
            }
            return nil
        }

        /// A problem with the checkpoint at `seq`, with the remedy: the
        /// records are sound, and the checkpoints are a cache the writers
        /// write again.
        private func problem(_ code: EventLogError.Code, seq: UInt64, _ message: String) -> VerifyResult.Problem {
            .init(
                kind: "checkpoint", code: code.rawValue, offset: nil, seq: seq,
                message:
                    "\(message). The records are sound: delete the list's checkpoints from seq \(seq) on (DELETE FROM \(table) WHERE list = '\(list.replacingOccurrences(of: "'", with: "''"))' AND seq >= \(seq)), and its writers write new ones"
            )
        }
    }
}
