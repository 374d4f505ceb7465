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

/// A checkpoint as a ``CheckpointStorage`` holds it.
public struct StoredCheckpoint: Sendable, Hashable {
    /// The seq of the record the image follows.
    public let seq: UInt64
    /// That record's chained checksum when the checkpoint was written (and now).
    public let chainValue: UInt32
    /// The projection's image, as its writer encoded it.
    public let image: [UInt8]

    /// Creates a stored checkpoint.
    public init(seq: UInt64, chainValue: UInt32, image: [UInt8]) {
        self.seq = seq
        self.chainValue = chainValue
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
