import EventLog

/// The projection: the ordered list of live labels at one seq of the log.
///
/// A `LabelList` is a value. It changes only through ``apply(_:)`` (the one
/// fold of the log), so any list equals the fold of records `1...lastSeq`.
/// It is `Sendable`; a copy is O(1) until one side is mutated
/// (copy-on-write), at which point that side pays an O(n) copy.
///
/// Complexity: lookups by id (``label(_:)``, ``contains(_:)``,
/// ``labelVersion(_:)``, ``removal(of:)``) are O(1) hash lookups, never a
/// scan. ``position(of:)`` is O(n) for now (see the order representation).
public struct LabelList: Sendable, Equatable {
    /// The live ids in list order.
    var order = LabelOrder()
    /// Every live label by id.
    var byID: [LabelID: Label] = [:]
    /// Removed (and not re-added) ids and the seq that removed them.
    var removedAt: [LabelID: UInt64] = [:]

    /// The number of live labels that are enabled.
    public internal(set) var enabledCount = 0
    /// The seq of the last event that changed membership or order (0 if none).
    public internal(set) var listVersion: UInt64 = 0
    /// The seq of the last applied record (0 for the empty log).
    public internal(set) var lastSeq: UInt64 = 0
    /// The timestamp of the last applied record, if any.
    public internal(set) var lastTimestamp: EventTimestamp?

    /// The empty list, before seq 1.
    public init() {}

    /// The fold of `records`, which must start at seq 1 and be consecutive.
    /// Throws the first inconsistency, naming its seq.
    public init(replaying records: some Sequence<EventRecord>) throws(ProjectionError) {
        for record in records { try apply(record) }
    }

    /// The number of live labels.
    public var count: Int { order.count }

    /// Whether there are no live labels.
    public var isEmpty: Bool { order.count == 0 }

    /// The live ids in list order (O(n) to copy out).
    public var ids: [LabelID] { order.ids }

    /// The live labels in list order (O(n)).
    public var labels: [Label] { order.ids.map { byID[$0]! } }

    /// The label at `position`, which must be in `0..<count`.
    public subscript(position: Int) -> Label { byID[order[position]]! }

    /// The first label, or `nil` when the list is empty.
    public var first: Label? { isEmpty ? nil : self[0] }

    /// The last label, or `nil` when the list is empty.
    public var last: Label? { isEmpty ? nil : self[count - 1] }

    /// The live label with this id, or `nil` (O(1)).
    public func label(_ id: LabelID) -> Label? { byID[id] }

    /// Whether a live label has this id (O(1)).
    public func contains(_ id: LabelID) -> Bool { byID[id] != nil }

    /// The position of the live label with this id, or `nil` (O(n) for now).
    public func position(of id: LabelID) -> Int? {
        byID[id] == nil ? nil : order.position(of: id)
    }

    /// The version of the live label with this id (see ``Label/version``), or `nil`.
    public func labelVersion(_ id: LabelID) -> UInt64? { byID[id]?.version }

    /// The seq that removed this id, if it is removed and was not added again.
    public func removal(of id: LabelID) -> UInt64? { removedAt[id] }

    /// Every id this list has seen: the live ones and the removed ones.
    public var knownIDs: Set<LabelID> {
        Set(byID.keys).union(removedAt.keys)
    }
}
