/// What a history is after seq `seq`: the root of the history tree over
/// records `1…seq` (RFC 9162's Merkle Tree Hash, SHA-256, over each record's
/// payload in seq order). One 32-byte value commits to every byte of every
/// record up to `seq` and to their order.
///
/// Kept somewhere the log's writer cannot change (a server, a ticket, a
/// second machine), a head lets anyone later prove that the log still holds
/// exactly that history (a ``ConsistencyProof``), or that a record is in it
/// (an ``InclusionProof``). A head kept only beside the log proves nothing.
///
/// Its text form is `SEQ:HEX` (`1200:3f9a…`, 64 lowercase hex digits), which
/// ``init(parsing:)`` reads back.
public struct HistoryHead: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The last record the head covers (0: the empty history).
    public var seq: UInt64
    /// The tree's root over records `1…seq`.
    public var hash: HistoryHash

    /// A head of `seq` records whose tree root is `hash`.
    public init(seq: UInt64, hash: HistoryHash) {
        self.seq = seq
        self.hash = hash
    }

    /// The head written as `SEQ:HEX`; `nil` for any other text.
    public init?(parsing text: some StringProtocol) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let seq = UInt64(parts[0]), let hash = HistoryHash(hex: parts[1]) else { return nil }
        self.init(seq: seq, hash: hash)
    }

    /// `SEQ:HEX`.
    public var description: String { "\(seq):\(hash.hex)" }
}
