import EventLog

extension CheckpointFile {
    /// The checkpoints being appended to a checkpoint file, in seq order:
    /// the rule that makes each one a delta or a full image, the removal block
    /// before it, and the history tree's frontier at its seq.
    ///
    /// Both writers of the file go through it, so they write the same bytes
    /// for the same history: an update that folds the log
    /// (``CheckpointFile/update(logPath:rebuild:interval:fullEvery:progress:)``)
    /// and an import that hands over the lists its own fold made
    /// (``StagedHistoryCaches``). The caller notes every record (``note(_:)``),
    /// its leaf in ``tree`` and every removal in ``pending``, up to and
    /// including the checkpoint's record, then calls ``append(_:at:to:)``.
    /// Between checkpoints it keeps no list: a delta is written on a
    /// ``CheckpointDeltaBase``.
    struct Appender {
        /// The log the checkpoints belong to.
        let logID: LabelID
        /// At most this many checkpoints in a row: a full image and the deltas after it.
        let fullEvery: Int
        /// The history tree up to the last record noted.
        var tree: HistoryTreeBuilder
        /// The labels removed since the last checkpoint (its removal block).
        var pending = PendingRemovals()
        /// The checkpoint before, on which a delta is written.
        private var base: CheckpointDeltaBase?
        /// The deltas since the last full image.
        private(set) var deltas = 0
        /// The last full image's size in bytes.
        private(set) var fullSize = 0
        /// The removals at or before the last checkpoint.
        private(set) var removalCount: UInt64 = 0
        /// The file's end: where the next block goes.
        private(set) var end: Int
        /// The checkpoints' seqs, as the file holds them.
        private(set) var seqs: [UInt64] = []

        /// An appender to a file that ends at `end` and holds no checkpoint yet.
        init(logID: LabelID, fullEvery: Int, tree: HistoryTreeBuilder, end: Int) {
            self.logID = logID
            self.fullEvery = fullEvery
            self.tree = tree
            self.end = end
        }

        /// Notes a record after the last checkpoint, for the next delta.
        mutating func note(_ event: EventRecordView.Event) {
            base?.note(event)
        }

        /// Drops what is kept for the next delta (no checkpoint follows): its memory is freed.
        mutating func forgetBase() { base = nil }

        /// Goes on after the file's checkpoint whose list is `list` (the
        /// newest it keeps, ending at `end`), with the file's checkpoints `seqs`.
        mutating func resume(
            after list: LabelList, tree: HistoryTreeBuilder, seqs: [UInt64], deltas: Int, fullSize: Int, removalCount: UInt64, end: Int
        ) {
            base = CheckpointDeltaBase(list)
            self.tree = tree
            self.seqs = seqs
            self.deltas = deltas
            self.fullSize = fullSize
            self.removalCount = removalCount
            self.end = end
        }

        /// Appends the checkpoint of `list`, the list after the record at
        /// `position`, behind the removal block of ``pending``: a delta on the
        /// checkpoint before, unless the ``fullEvery`` − 1 checkpoints before
        /// it are a full image and deltas or the delta would be more than half
        /// the last full image. Synced before its entries are written
        /// (``CheckpointFile/append(seq:image:isDelta:frontier:removals:removalCount:to:at:)``).
        mutating func append(_ list: LabelList, at position: LogPosition, to file: SystemFile) throws(EventLogError) {
            var delta: [UInt8]?
            if let base, deltas + 1 < fullEvery {
                let bytes = list.checkpointDeltaBytes(from: base, logID: logID, logPosition: position)
                if bytes.count <= fullSize / 2 { delta = bytes }
            }
            let image = delta ?? list.checkpointImageBytes(logID: logID, logPosition: position)
            if delta == nil {
                fullSize = image.count
                deltas = 0
            } else {
                deltas += 1
            }
            removalCount += UInt64(pending.count)
            end = try CheckpointFile.append(
                seq: position.seq, image: image, isDelta: delta != nil, frontier: tree.frontier, removals: pending,
                removalCount: removalCount, to: file, at: end)
            pending = PendingRemovals()
            seqs.append(position.seq)
            base = CheckpointDeltaBase(list)
        }
    }
}
