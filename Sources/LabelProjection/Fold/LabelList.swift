import EventLog

/// The projection: the ordered list of live labels at one seq of the log.
///
/// A `LabelList` is a value. It changes only through ``apply(_:)`` (the one
/// fold of the log), so any list equals the fold of records `1...lastSeq`.
/// It is `Sendable`; a copy is O(1) until one side is mutated
/// (copy-on-write), at which point that side copies the storage it changes.
///
/// ## Storage
/// Every id the list has seen owns a *slot* for good: a 32-byte record (id,
/// where its title's bytes are, and one word packing the version or removal
/// seq with the live and enabled bits). Titles live as UTF-8 bytes in one
/// `TitleArena`; a `String` is made only when a ``Label`` is read. A
/// removed label keeps its slot as a tombstone; adding the id again reuses
/// it. Slots are numbered in the order ids were first added, so every fold
/// of the same log numbers them alike. An id → slot hash table
/// (`SlotIndex`) and a counted B+-tree of live slots (`LabelOrder`)
/// complete it: no per-label objects, about 50–60 bytes per label plus the
/// title's bytes.
///
/// ## Complexity (n live labels)
/// - by id (``label(_:)``, ``contains(_:)``, ``labelVersion(_:)``, ``removal(of:)``): O(1);
/// - ``position(of:)``, ``subscript(_:)``, ``id(at:)``: O(log n) (see `LabelOrder`);
/// - ``apply(_:)``: O(log n) for every event kind except `reordered`, which is O(n);
/// - ``ids``, ``labels``, ``knownIDs``, `==`: O(n).
public struct LabelList: Sendable {
    /// One known id: its label data if live, its removal seq if removed.
    struct Slot: Sendable {
        var id: LabelID
        /// The title's bytes in ``LabelList/titles`` (empty for a removed slot).
        var title: TitleRef
        /// Bits 0–61: the version (live) or the removal seq (removed); bit 62: enabled; bit 63: live.
        var word: UInt64

        static let liveBit: UInt64 = 1 << 63
        static let enabledBit: UInt64 = 1 << 62
        static let seqMask: UInt64 = (1 << 62) - 1

        var isLive: Bool { word & Self.liveBit != 0 }
        var isEnabled: Bool { word & Self.enabledBit != 0 }
        var seq: UInt64 { word & Self.seqMask }

        static func live(_ id: LabelID, title: TitleRef, isEnabled: Bool, version: UInt64) -> Slot {
            Slot(id: id, title: title, word: liveBit | (isEnabled ? enabledBit : 0) | (version & seqMask))
        }

        static func removed(_ id: LabelID, at seq: UInt64) -> Slot {
            Slot(id: id, title: .empty, word: seq & seqMask)
        }

        /// The label of this (live) slot, with `title` as its title.
        func label(title: String) -> Label { Label(id: id, title: title, isEnabled: isEnabled, version: seq) }
    }

    /// Every known id, live or removed, by slot number.
    var slots: [Slot] = []
    /// The live slots' titles.
    var titles = TitleArena()
    /// id → slot.
    var slotIndex = SlotIndex()
    /// The live slots in list order.
    var order: LabelOrder
    /// While validating a batch (``withRollback(_:)``): how to undo what was applied.
    var journal: Journal?

    /// The number of live labels that are enabled.
    public internal(set) var enabledCount = 0
    /// The seq of the last event that changed membership or order (0 if none).
    public internal(set) var listVersion: UInt64 = 0
    /// The seq of the last applied record (0 for the empty log).
    public internal(set) var lastSeq: UInt64 = 0
    /// The timestamp of the last applied record, if any.
    public internal(set) var lastTimestamp: EventTimestamp?

    /// The empty list, before seq 1.
    public init() { order = LabelOrder() }

    /// An empty list whose order uses these node capacities (small ones exercise the tree in tests).
    init(leafCapacity: Int, innerCapacity: Int) {
        order = LabelOrder(leafCapacity: leafCapacity, innerCapacity: innerCapacity)
    }

    /// The fold of `records`, which must start at seq 1 and be consecutive.
    /// Throws the first inconsistency, naming its seq.
    ///
    /// - Throws: ``ProjectionError`` for the first record that does not fold:
    ///   ``ProjectionError/Code/seqOutOfOrder`` when the records do not start at seq 1 or
    ///   skip a seq; otherwise the code of the contradiction, as ``apply(_:)`` throws it
    ///   (``ProjectionError/Code/duplicateID``, ``ProjectionError/Code/removedID``,
    ///   ``ProjectionError/Code/indexMismatch``, ``ProjectionError/Code/titleMismatch``, …).
    /// - Complexity: O(k log n) for k records over at most n labels; each `reordered`
    ///   costs O(n).
    public init(replaying records: some Sequence<EventRecord>) throws(ProjectionError) {
        self.init()
        for record in records { try replay(record) }
    }

    /// The number of live labels.
    public var count: Int { order.count }

    /// Whether there are no live labels.
    public var isEmpty: Bool { order.count == 0 }

    /// The live ids in list order.
    ///
    /// - Complexity: O(n) to copy them out.
    public var ids: [LabelID] {
        var result: [LabelID] = []
        result.reserveCapacity(count)
        order.forEachLeaf { leaf in for slot in leaf { result.append(slots[Int(slot)].id) } }
        return result
    }

    /// The live labels in list order.
    ///
    /// - Complexity: O(n + t) for n labels with t title bytes (each title is made into a
    ///   `String`).
    public var labels: [Label] {
        var result: [Label] = []
        result.reserveCapacity(count)
        order.forEachLeaf { leaf in for slot in leaf { result.append(label(slot: slot)) } }
        return result
    }

    /// The label at `position`, which must be in `0..<count`.
    ///
    /// - Complexity: O(log n) (a descent of the counted B+-tree), plus the title's length
    ///   to make its `String`.
    public subscript(position: Int) -> Label { label(slot: order[position]) }

    /// The id at `position`, which must be in `0..<count`.
    ///
    /// - Complexity: O(log n).
    public func id(at position: Int) -> LabelID { slots[Int(order[position])].id }

    /// The first label, or `nil` when the list is empty.
    ///
    /// - Complexity: O(log n), plus the title's length.
    public var first: Label? { isEmpty ? nil : self[0] }

    /// The last label, or `nil` when the list is empty.
    ///
    /// - Complexity: O(log n), plus the title's length.
    public var last: Label? { isEmpty ? nil : self[count - 1] }

    /// The live label with this id, or `nil`.
    ///
    /// - Complexity: O(1) expected (a lookup in the id hash index), plus the title's
    ///   length to make its `String`.
    public func label(_ id: LabelID) -> Label? { liveSlot(id).map { label(slot: $0) } }

    /// Whether a live label has this id.
    ///
    /// - Complexity: O(1) expected.
    public func contains(_ id: LabelID) -> Bool { liveSlot(id) != nil }

    /// The position of the live label with this id, or `nil`.
    ///
    /// - Complexity: O(log n): an O(1) expected id lookup, then a walk from the label's
    ///   leaf up the counted B+-tree.
    public func position(of id: LabelID) -> Int? { liveSlot(id).flatMap { order.position(of: $0) } }

    /// The version of the live label with this id (see ``Label/version``), or `nil`.
    ///
    /// - Complexity: O(1) expected.
    public func labelVersion(_ id: LabelID) -> UInt64? { liveSlot(id).map { slots[Int($0)].seq } }

    /// The seq that removed this id, if it is removed and was not added again.
    ///
    /// - Complexity: O(1) expected.
    public func removal(of id: LabelID) -> UInt64? {
        guard let slot = slot(of: id), !slots[Int(slot)].isLive else { return nil }
        return slots[Int(slot)].seq
    }

    /// Every id this list has seen: the live ones and the removed ones.
    ///
    /// - Complexity: O(s) in the ids ever added (a new `Set` each time).
    public var knownIDs: Set<LabelID> { Set(slots.lazy.map(\.id)) }

    // MARK: - Slots

    /// The slot of a known id (live or removed), or `nil` (O(1)).
    @inline(__always)
    func slot(of id: LabelID) -> UInt32? {
        slots.withUnsafeBufferPointer { storage in slotIndex.find(id) { storage[Int($0)].id } }
    }

    /// The slot of a live id, or `nil`.
    @inline(__always)
    func liveSlot(_ id: LabelID) -> UInt32? {
        guard let slot = slot(of: id), slots[Int(slot)].isLive else { return nil }
        return slot
    }

    /// The label in slot `number` (which must be live), its title made into a `String`.
    @inline(__always)
    func label(slot number: UInt32) -> Label {
        let slot = slots[Int(number)]
        return slot.label(title: titles.string(slot.title))
    }

    /// The title of slot `number` (empty for a removed slot).
    func title(slot number: UInt32) -> String { titles.string(slots[Int(number)].title) }

    /// Reclaims the bytes of renamed and removed titles once they outweigh
    /// the live ones (never while a rollback journal is open: its saved
    /// slots refer to the old bytes). O(live title bytes + slots), amortized
    /// O(1) per title byte written.
    mutating func compactTitlesIfNeeded() {
        guard journal == nil, titles.wantsCompaction else { return }
        var storage = slots
        slots = []
        titles.compact { move in
            for i in storage.indices where storage[i].isLive && storage[i].title.length > 0 {
                storage[i].title = move(storage[i].title)
            }
        }
        slots = storage
    }

    /// The number of slots (known ids).
    var slotCount: Int { slots.count }

    /// The capacity to give storage decoded for `count` elements (slots, or
    /// title bytes) that records will then be folded onto: an eighth more
    /// (at least 4,096), so that the first record that adds a label or a
    /// title does not copy the whole array to grow it (33 MB of slots for a
    /// million ids). Pages of the room that are never used are never touched.
    static func roomToFold(_ count: Int) -> Int { count + max(4_096, count / 8) }

    /// Adds a slot for a new id and returns its number.
    mutating func appendSlot(_ slot: Slot) -> UInt32 {
        let number = UInt32(slots.count)
        slots.append(slot)
        let storage = slots
        slotIndex.insert(slot.id, slot: number) { storage[Int($0)].id }
        return number
    }
}
