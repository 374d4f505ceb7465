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

/// `verify LOG --checkpoints`: every checkpoint of `LOG.checkpoints` (a
/// cache `index` and the store write) compared with the fold of the records
/// at its seq, read as a reader reads it (its chain decoded, bound to the
/// record's chained checksum). A checkpoint that does not check out is one
/// the readers skip; one that holds another list is one `show --at`, `diff`
/// and `trace` would answer from. Either is the problem, with the remedy:
/// `index --rebuild` writes the file again from the log.
extension Verify {
    struct FileCheckpointCheck {
        private let path: String
        private let directory: CheckpointFile.Directory?
        /// A reader of its own, for the checkpoints' lookups (the verify pass has its own).
        private let reader: LogReader?
        /// The seqs of the checkpoints not compared yet.
        private var pending: ArraySlice<UInt64> = []
        /// How many were compared.
        private(set) var checked = 0
        /// The labels the records removed since the last checkpoint compared,
        /// as each one's last removal states it: the titles the next one must
        /// keep for them (those removed earlier were compared at an earlier
        /// one, from the same removal blocks).
        private var removedSince: [LabelID: RemovedLabel] = [:]
        /// A problem with the file itself (it cannot be used, or its tail is damaged).
        private(set) var fileProblem: VerifyResult.Problem?

        /// The checkpoints of the log at `path` (a based log's starting from `origin`).
        init(path: String, origin: LabelList) {
            self.path = path
            let reader = try? LogReader(path: path)
            self.reader = reader
            switch reader.map({ CheckpointFile.load(for: $0, origin: origin) }) {
            case .usable(let directory)?:
                self.directory = directory
                pending = directory.entries.map(\.seq)[...]
                if let tail = directory.tail { fileProblem = Self.problem(.corruptRecord, seq: nil, tail.description, path: path) }
            case .ignored(let problem)?:
                directory = nil
                fileProblem = Self.problem(.corruptRecord, seq: nil, problem.description, path: path)
            case .missing?, nil:
                directory = nil
            }
        }

        /// Notes what `view` removes, for the next checkpoint's titles of removed labels.
        mutating func note(_ view: EventRecordView) {
            guard directory != nil, !pending.isEmpty, case .removed(let id, _, let title, let isEnabled) = view.event else { return }
            removedSince[id] = RemovedLabel(title: title.string, isEnabled: isEnabled)
        }

        /// Compares the checkpoint at `folded.lastSeq`, if there is one, with
        /// `folded`, and the titles it keeps for the labels removed since the
        /// one before with what their removals state.
        mutating func check(_ folded: LabelList) -> VerifyResult.Problem? {
            guard let seq = pending.first, seq == folded.lastSeq, let directory, let reader else { return nil }
            pending.removeFirst()
            let removed = removedSince.filter { folded.removal(of: $0.key) != nil }
            removedSince = [:]
            let (checkpoint, problems) = CheckpointFile.checkpoint(
                atOrBefore: seq, in: directory, reader: reader, decodingRemoved: !removed.isEmpty, removedAmong: Set(removed.keys))
            guard let checkpoint, checkpoint.position.seq == seq else {
                let why = problems.map(\.reason).joined(separator: "; ")
                return Self.problem(
                    .corruptRecord, seq: seq, "the checkpoint at seq \(seq) cannot be used\(why.isEmpty ? "" : ": \(why)")", path: path)
            }
            checked += 1
            if checkpoint.list != folded, let difference = checkpoint.list.firstDifference(from: folded) {
                return Self.problem(
                    .historyDiverged, seq: seq,
                    "the checkpoint at seq \(seq) holds a list that is not the records' fold there: \(difference); 'show --at', 'diff' and 'trace' start from that list",
                    path: path)
            }
            // In id order, so the label named is the same every run.
            for (id, expected) in removed.sorted(by: { $0.key < $1.key }) where checkpoint.removed[id] != expected {
                let kept = checkpoint.removed[id].map { "as \(Self.describe($0))" } ?? "no title"
                return Self.problem(
                    .historyDiverged, seq: seq,
                    "the checkpoint at seq \(seq) keeps \(kept) for label \(id), removed at seq \(folded.removal(of: id) ?? 0) as \(Self.describe(expected)); 'diff' and 'trace' print removed labels from it",
                    path: path)
            }
            return nil
        }

        private static func describe(_ label: RemovedLabel) -> String {
            "\"\(label.title)\" (\(label.isEnabled ? "on" : "off"))"
        }

        /// A problem once every record was read: a checkpoint past the log's last record (none of its records).
        func leftover(lastSeq: UInt64) -> VerifyResult.Problem? {
            guard let seq = pending.first, seq > lastSeq else { return nil }
            return Self.problem(
                .seqGap, seq: seq,
                "the checkpoint at seq \(seq) is past the log's last record (seq \(lastSeq)): the log lost records it was written for",
                path: path)
        }

        private static func problem(_ code: EventLogError.Code, seq: UInt64?, _ message: String, path: String) -> VerifyResult.Problem {
            .init(
                kind: "checkpoint", code: code.rawValue, offset: nil, seq: seq,
                message: "\(message). The log is sound: '\(Tool.name) index --rebuild \(path)' writes the checkpoints again from it")
        }
    }
}
