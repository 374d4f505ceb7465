/// A storage that keeps checkpoints of a projection beside its records, so
/// that a reader that joins late starts from the newest one instead of seq 1
/// (a server list: docs/POSTGRES.md, "Checkpoints").
///
/// The storage holds a checkpoint's image as opaque bytes; what they encode
/// is the projection's business (a `LabelStore` writes its list as a snapshot
/// image and checks, when it reads one, that it decodes, names this
/// history's ``checkpointHistoryID`` and the checkpoint's seq). The storage
/// binds each checkpoint to the chained checksum of the record it follows,
/// and hands out only checkpoints whose record still has that checksum: a
/// checkpoint is a cache, never trusted over the records.
///
/// Writers share the work: the store whose own append crosses a multiple of
/// ``checkpointInterval`` writes the next one, off its write path; two that
/// write the same seq leave one row.
public protocol CheckpointStorage: EventStorage {
    /// Records between checkpoints (0: the storage wants none).
    var checkpointInterval: UInt64 { get }

    /// The id the images must name: the history's (a server list's `log_id`).
    var checkpointHistoryID: LabelID { get }

    /// The newest checkpoint at or before `seq` whose record (the one at its
    /// seq) is still there with the chained checksum it was written for, and
    /// what was skipped on the way to it (checkpoints whose record differs:
    /// each named, for a warning).
    ///
    /// - Throws: ``EventLogError`` when the storage cannot be asked.
    func checkpoint(atOrBefore seq: UInt64) throws(EventLogError) -> CheckpointLookup

    /// Stores `image`, the projection right after record `seq`, bound to that
    /// record's chained checksum as the storage holds it now, with the history
    /// tree's `frontier` after that record (`nil`: the writer has none; else
    /// `frontier.count == seq`); a checkpoint at that seq already there is
    /// kept as it is. The storage may drop older checkpoints to bound their
    /// number.
    ///
    /// - Returns: Whether a checkpoint was written (`false`: one was there, or
    ///   the record at `seq` is not, e.g. the history was replaced).
    /// - Throws: ``EventLogError`` when the storage cannot be written.
    func storeCheckpoint(seq: UInt64, image: [UInt8], frontier: HistoryTreeBuilder?) throws(EventLogError) -> Bool

    /// The history tree's heads the storage's checkpoints hold, for seqs in
    /// `seqs`, ascending: each checkpoint written with a frontier whose record
    /// still has the chained checksum it was written for. A device that
    /// mirrors the storage checks each against the records it pulled
    /// (docs/SYNC.md, "Proving the server's history").
    ///
    /// - Throws: ``EventLogError`` when the storage cannot be asked.
    func checkpointHeads(in seqs: ClosedRange<UInt64>) throws(EventLogError) -> [CheckpointHead]

    /// Of the checkpoints one writer stores in turn, one in this many is a
    /// full image; the others are deltas on the one it stored before
    /// (``storeCheckpoint(seq:delta:on:frontier:)``). 1: full images only
    /// (the default).
    var checkpointFullEvery: Int { get }

    /// Stores `delta`, the projection right after record `seq` as a change of
    /// the checkpoint at seq `base` (which must be there, bound to the same
    /// history), bound to record `seq`'s chained checksum as the storage
    /// holds it now, with the history tree's `frontier` after it (as
    /// ``storeCheckpoint(seq:image:frontier:)``). The storage keeps a delta
    /// only while the checkpoints it is written on are kept: it drops chains
    /// whole.
    ///
    /// - Returns: Whether it was written (`false`: a checkpoint at `seq` is
    ///   there, the record is not, the checkpoint at `base` is not, or the
    ///   storage keeps no deltas — store the full image then).
    /// - Throws: ``EventLogError`` when the storage cannot be written.
    func storeCheckpoint(seq: UInt64, delta: [UInt8], on base: UInt64, frontier: HistoryTreeBuilder?) throws(EventLogError) -> Bool

    /// The first checkpoint stored at a seq in `seqs`, as stored — its own
    /// image: a full image, or a delta on the checkpoint at
    /// ``CheckpointRow/deltaOn`` — whose record still has the chained
    /// checksum it was written for; `nil` when there is none. For checking
    /// every checkpoint against a fold of the records (`labelreplay verify`),
    /// one at a time, each delta applied to the one before it, without
    /// reading a chain per checkpoint as ``checkpoint(atOrBefore:)`` does.
    ///
    /// - Returns: `.none` when the storage cannot list its checkpoints this
    ///   way (the default), else `.some` of the row found or `nil`.
    /// - Throws: ``EventLogError`` when the storage cannot be asked.
    func firstCheckpointRow(in seqs: ClosedRange<UInt64>) throws(EventLogError) -> CheckpointRow??
}

extension CheckpointStorage {
    /// Cannot list its checkpoints row by row: returns `.none`.
    public func firstCheckpointRow(in seqs: ClosedRange<UInt64>) throws(EventLogError) -> CheckpointRow?? { .none }

    /// Full images only.
    public var checkpointFullEvery: Int { 1 }

    /// Keeps no deltas: returns `false`, so the writer stores the full image.
    public func storeCheckpoint(seq: UInt64, delta: [UInt8], on base: UInt64, frontier: HistoryTreeBuilder?) throws(EventLogError) -> Bool {
        false
    }
}

/// The history tree's frontier a ``CheckpointStorage`` keeps with a
/// checkpoint: the storage's own account of its history's head at ``seq``,
/// written by the host that wrote the checkpoint from the records it read.
public struct CheckpointHead: Sendable, Hashable {
    /// The seq of the record the checkpoint follows.
    public let seq: UInt64
    /// That record's chained checksum (now, and when the checkpoint was written).
    public let chainValue: UInt32
    /// The tree's frontier after record ``seq`` (`tree.count == seq`).
    public let tree: HistoryTreeBuilder

    /// Creates a checkpoint head; `tree.count` must be `seq`.
    public init(seq: UInt64, chainValue: UInt32, tree: HistoryTreeBuilder) {
        precondition(tree.count == seq, "a frontier of \(tree.count) records for seq \(seq)")
        self.seq = seq
        self.chainValue = chainValue
        self.tree = tree
    }

    /// The head the frontier gives.
    public var head: HistoryHead { tree.head }
}

/// A checkpoint as a ``CheckpointStorage`` holds it: an image, or a chain of
/// an image and the deltas written on it, the last at ``seq``.
public struct StoredCheckpoint: Sendable, Hashable {
    /// The seq of the record the checkpoint follows (the last delta's, if any).
    public let seq: UInt64
    /// That record's chained checksum when the checkpoint was written (and now).
    public let chainValue: UInt32
    /// The projection's full image, as its writer encoded it: at ``imageSeq``.
    public let image: [UInt8]
    /// The seq of ``image``: ``seq`` when there are no ``deltas``, else the
    /// seq the first of them is written on.
    public let imageSeq: UInt64
    /// The deltas to apply on ``image`` in turn, each on the list the one
    /// before it gives, the last giving the list at ``seq`` (empty: ``image``
    /// is the checkpoint itself). Each was checked by the storage against its
    /// record's chained checksum, as the checkpoint is.
    public let deltas: [Delta]

    /// One delta of a chain: the list at ``seq`` as a change of the list at
    /// the checkpoint before it in the chain.
    public struct Delta: Sendable, Hashable {
        /// The seq of the record the delta follows.
        public let seq: UInt64
        /// The delta's bytes, as its writer encoded them.
        public let image: [UInt8]

        /// Creates a delta of a chain.
        public init(seq: UInt64, image: [UInt8]) {
            self.seq = seq
            self.image = image
        }
    }

    /// Creates a stored checkpoint: `image` at `imageSeq` (`nil`: `seq`),
    /// then `deltas` (oldest first), which end at `seq`.
    public init(seq: UInt64, chainValue: UInt32, image: [UInt8], imageSeq: UInt64? = nil, deltas: [Delta] = []) {
        precondition(deltas.last.map { $0.seq == seq } ?? true, "a chain that ends at another seq")
        precondition(deltas.isEmpty ? (imageSeq ?? seq) == seq : (imageSeq ?? seq) < deltas[0].seq, "a chain out of order")
        self.seq = seq
        self.chainValue = chainValue
        self.image = image
        self.imageSeq = imageSeq ?? seq
        self.deltas = deltas
    }
}

/// One checkpoint as a ``CheckpointStorage`` stores it: its own image, which
/// is the projection's full image or a delta on an earlier checkpoint
/// (``CheckpointStorage/firstCheckpointRow(in:)``).
public struct CheckpointRow: Sendable, Hashable {
    /// The seq of the record the checkpoint follows.
    public let seq: UInt64
    /// That record's chained checksum (now, and when the checkpoint was written).
    public let chainValue: UInt32
    /// The seq of the checkpoint ``image`` is a delta on; `nil`: a full image.
    public let deltaOn: UInt64?
    /// The image's bytes, as its writer encoded them.
    public let image: [UInt8]

    /// Creates a row; `deltaOn` must be before `seq`.
    public init(seq: UInt64, chainValue: UInt32, deltaOn: UInt64?, image: [UInt8]) {
        precondition(deltaOn.map { $0 < seq } ?? true, "a delta on a later checkpoint")
        self.seq = seq
        self.chainValue = chainValue
        self.deltaOn = deltaOn
        self.image = image
    }
}

/// What ``CheckpointStorage/checkpoint(atOrBefore:)`` found.
public struct CheckpointLookup: Sendable {
    /// The newest usable checkpoint at or before the seq asked for, if any.
    public var checkpoint: StoredCheckpoint?
    /// The newer checkpoints that were not used, each with why (for a warning).
    public var skipped: [String]

    /// Creates a lookup result.
    public init(checkpoint: StoredCheckpoint?, skipped: [String] = []) {
        self.checkpoint = checkpoint
        self.skipped = skipped
    }
}
