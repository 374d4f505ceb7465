import EventLog

/// One checkpoint of the list (docs/SNAPSHOTS.md, "Checkpoints"): the
/// projection right after one record, where that record is in the log, the
/// history tree's frontier there, and the title and state every removed
/// label had when it was last removed (which the list itself does not keep,
/// and `diff` and `trace` print).
///
/// A checkpoint read from `LOG.checkpoints` is handed out only once it
/// proved it belongs to the log (``CheckpointFile/checkpoint(atOrBefore:in:reader:)``).
package struct ListCheckpoint: Sendable {
    /// The list right after record ``position``'s seq.
    package var list: LabelList
    /// Where that record's frame is in the log, with its chained checksum.
    package var position: LogPosition
    /// For every removed label (a tombstone of ``list``), its title and state at its last removal.
    package var removed: [LabelID: RemovedLabel]
    /// The history tree after ``position``'s seq (its frontier, as the
    /// checkpoint file holds it: a cache, like the rest of the checkpoint),
    /// if known.
    package var tree: HistoryTreeBuilder?

    package init(list: LabelList, position: LogPosition, removed: [LabelID: RemovedLabel], tree: HistoryTreeBuilder? = nil) {
        self.list = list
        self.position = position
        self.removed = removed
        self.tree = tree
    }
}

/// A removed label as its (last) `removed` event stated it.
package struct RemovedLabel: Sendable, Hashable {
    package var title: String
    package var isEnabled: Bool

    package init(title: String, isEnabled: Bool) {
        self.title = title
        self.isEnabled = isEnabled
    }
}

extension LabelList {
    /// The ids of the removed labels (tombstones), in slot order.
    package var removedIDs: [LabelID] { slots.lazy.filter { !$0.isLive }.map(\.id) }
}
