import EventLog

/// What a `LOG.checkpoints` delta is written on (docs/SNAPSHOTS.md, "A
/// delta"): the list at the checkpoint before, kept as what the delta
/// compares with — each slot's word (state, version or removal seq), the
/// order, and, noted from the records since (``note(_:)``), the title at
/// that checkpoint of each label a record since renamed or removed — instead
/// of as a whole list. A writer of checkpoints then holds one list (the one
/// it folds, or is handed) and this, a few bytes per slot, where it held two
/// lists with their titles and id index.
///
/// A slot changed since when its word differs (every change stamps its seq);
/// a changed slot that was and is live has a new title exactly when a record
/// since renamed it away from, or removed it with, a title that differs from
/// its title now: the first such record states its title at the checkpoint.
struct CheckpointDeltaBase {
    /// The seq of the checkpoint.
    let lastSeq: UInt64
    /// Each slot's word at the checkpoint, by slot number.
    let words: [UInt64]
    /// The live slots in list order at the checkpoint.
    let order: [UInt32]
    /// The labels a record since named first by an add, a rename or a
    /// removal, numbered in that order (found through ``noted``).
    private var notedIDs: [LabelID] = []
    private var noted = SlotIndex()
    /// By noted label, where its title at the checkpoint is in ``titleBytes``
    /// (its first record renamed or removed it), or `nil` (it added it: the
    /// label was not live at the checkpoint).
    private var titlesBefore: [Range<Int>?] = []
    /// The titles at the checkpoint, back to back.
    private var titleBytes: [UInt8] = []

    /// The base of a delta on `list`, the list at a checkpoint.
    ///
    /// - Complexity: O(s + n) for s slots and n live labels.
    init(_ list: LabelList) {
        lastSeq = list.lastSeq
        words = list.slots.map(\.word)
        order = list.order.elements
    }

    /// Notes a record after the checkpoint (every one, in seq order, up to the next checkpoint's).
    mutating func note(_ event: EventRecordView.Event) {
        switch event {
        case .added(let id, _, _, _):
            noteFirst(id, title: nil)
        case .renamed(let id, let title, _), .removed(let id, _, let title, _):
            noteFirst(id, title: title.bytes)
        case .toggled, .moved, .reordered, .rejected:
            break
        }
    }

    /// Notes the first record since the checkpoint that added (`title` `nil`),
    /// renamed or removed `id`; a later one changes nothing.
    private mutating func noteFirst(_ id: LabelID, title: UnsafeRawBufferPointer?) {
        guard number(of: id) == nil else { return }
        let number = UInt32(notedIDs.count)
        notedIDs.append(id)
        notedIDs.withUnsafeBufferPointer { ids in noted.insert(id, slot: number) { ids[Int($0)] } }
        guard let title else { return titlesBefore.append(nil) }
        titlesBefore.append(titleBytes.count..<titleBytes.count + title.count)
        titleBytes.append(contentsOf: title)
    }

    /// Whether the label `id`, live at the checkpoint and now, has a title
    /// other than `now` at the checkpoint.
    func titleChanged(_ id: LabelID, now: UnsafeRawBufferPointer) -> Bool {
        guard let number = number(of: id), let range = titlesBefore[Int(number)] else { return false }
        return titleBytes.withUnsafeBytes { !TitleArena.bytesEqual(UnsafeRawBufferPointer(rebasing: $0[range]), now) }
    }

    /// The number of the noted label `id`, if it was noted.
    private func number(of id: LabelID) -> UInt32? {
        notedIDs.withUnsafeBufferPointer { ids in noted.find(id) { ids[Int($0)] } }
    }
}
