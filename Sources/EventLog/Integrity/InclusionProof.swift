/// A proof that one record is in the history under a head (RFC 9162
/// §2.1.3): the hashes of the subtrees beside the record's path to the root.
///
/// Anyone holding the record's payload, the proof and a head they trust can
/// check it without the log (``verify(payload:)``): the payload's leaf hash
/// combined with each hash in turn must give the head. Every step is
/// recomputed; a proof with a hash more or less than the tree's shape needs
/// is refused.
public struct InclusionProof: Sendable, Hashable, Codable {
    /// The record proven (leaf `seq − 1` of the tree).
    public var seq: UInt64
    /// The head the record is proven to be under.
    public var head: HistoryHead
    /// The subtree hashes, from the record's sibling up to the root's other child.
    public var path: [HistoryHash]

    /// A proof that record `seq` is under `head`, by `path`.
    public init(seq: UInt64, head: HistoryHead, path: [HistoryHash]) {
        self.seq = seq
        self.head = head
        self.path = path
    }

    /// The root that `leaf` and ``path`` give (RFC 9162 §2.1.3.2).
    ///
    /// - Throws: ``EventLogError/Code/invalidProof`` when the proof does not
    ///   fit a tree of ``HistoryHead/seq`` records (seq out of range, a hash
    ///   too many or too few).
    public func root(fromLeaf leaf: HistoryHash) throws(EventLogError) -> HistoryHash {
        guard seq >= 1, seq <= head.seq else {
            throw EventLogError(.invalidProof, "the proof is of record \(seq), which is not in a history of \(head.seq) records")
        }
        var fn = seq - 1
        var sn = head.seq - 1
        var hash = leaf
        for sibling in path {
            guard sn != 0 else {
                throw EventLogError(
                    .invalidProof, "the proof of record \(seq) under head \(head.seq) has more hashes than its tree has levels")
            }
            if fn & 1 == 1 || fn == sn {
                hash = .node(sibling, hash)
                if fn & 1 == 0 {
                    while fn & 1 == 0 && fn != 0 {
                        fn >>= 1
                        sn >>= 1
                    }
                }
            } else {
                hash = .node(hash, sibling)
            }
            fn >>= 1
            sn >>= 1
        }
        guard sn == 0 else {
            throw EventLogError(
                .invalidProof, "the proof of record \(seq) under head \(head.seq) has fewer hashes than its tree has levels")
        }
        return hash
    }

    /// Checks that the record whose payload is `payload` is record ``seq``
    /// of the history under ``head``.
    ///
    /// - Throws: ``EventLogError/Code/invalidProof`` when the proof is
    ///   malformed or the payload and path do not give the head.
    public func verify(payload: some Collection<UInt8>) throws(EventLogError) {
        try verify(leaf: .leaf(payload: payload))
    }

    /// Checks that the record whose leaf hash is `leaf` is record ``seq``
    /// of the history under ``head``.
    ///
    /// - Throws: ``EventLogError/Code/invalidProof`` as ``verify(payload:)``.
    public func verify(leaf: HistoryHash) throws(EventLogError) {
        let computed = try root(fromLeaf: leaf)
        guard computed == head.hash else {
            throw EventLogError(
                .invalidProof,
                "record \(seq) is not proven under head \(head): the record and the proof give \(computed.hex)")
        }
    }
}
