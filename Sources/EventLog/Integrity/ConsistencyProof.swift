/// A proof that a later head extends an earlier one (RFC 9162 §2.1.4): the
/// history under ``new`` is the history under ``old`` with records appended,
/// none changed, removed, inserted or reordered.
///
/// ``verify()`` recomputes *both* roots from the same hashes, every step
/// (checking only the ends was the flaw in one audited store's consistency
/// check); it needs neither log.
public struct ConsistencyProof: Sendable, Hashable, Codable {
    /// The earlier head.
    public var old: HistoryHead
    /// The later head.
    public var new: HistoryHead
    /// The subtree hashes (empty when the heads have the same seq).
    public var path: [HistoryHash]

    /// A proof that `new` extends `old`, by `path`.
    public init(old: HistoryHead, new: HistoryHead, path: [HistoryHash]) {
        self.old = old
        self.new = new
        self.path = path
    }

    /// Checks that ``new`` extends ``old`` (RFC 9162 §2.1.4.2).
    ///
    /// - Throws: ``EventLogError/Code/invalidProof`` when the proof is
    ///   malformed or does not give both heads.
    public func verify() throws(EventLogError) {
        func refuse(_ why: String) -> EventLogError {
            EventLogError(.invalidProof, "head \(new) is not proven to extend head \(old): \(why)")
        }
        guard old.seq <= new.seq else { throw refuse("the earlier head has more records") }
        if old.seq == 0 {
            // Every history extends the empty one; there is nothing to prove.
            guard old.hash == .empty else { throw refuse("a head of no records is \(HistoryHash.empty.hex)") }
            guard path.isEmpty else { throw refuse("a proof from the empty history has no hashes") }
            return
        }
        if old.seq == new.seq {
            guard path.isEmpty else { throw refuse("a proof between heads of one seq has no hashes") }
            guard old.hash == new.hash else { throw refuse("two heads of one seq differ") }
            return
        }
        guard !path.isEmpty else { throw refuse("the proof has no hashes") }
        let (oldRoot, newRoot) = try roots(refuse)
        guard oldRoot == old.hash else { throw refuse("the proof gives \(oldRoot.hex) for the earlier head") }
        guard newRoot == new.hash else { throw refuse("the proof gives \(newRoot.hex) for the later head") }
    }

    /// The roots of the earlier and the later tree the path gives, with the
    /// earlier head's hash standing for its tree when its seq is a power of
    /// two (RFC 9162 §2.1.4.2, every step); the heads' seqs must differ and
    /// the earlier must not be 0.
    func roots(_ refuse: (String) -> EventLogError) throws(EventLogError) -> (old: HistoryHash, new: HistoryHash) {
        var hashes = path
        if old.seq & (old.seq - 1) == 0 { hashes.insert(old.hash, at: 0) }
        var fn = old.seq - 1
        var sn = new.seq - 1
        while fn & 1 == 1 {
            fn >>= 1
            sn >>= 1
        }
        var oldRoot = hashes[0]
        var newRoot = hashes[0]
        for hash in hashes.dropFirst() {
            guard sn != 0 else { throw refuse("the proof has more hashes than the trees have levels") }
            if fn & 1 == 1 || fn == sn {
                oldRoot = .node(hash, oldRoot)
                newRoot = .node(hash, newRoot)
                while fn & 1 == 0 && fn != 0 {
                    fn >>= 1
                    sn >>= 1
                }
            } else {
                newRoot = .node(newRoot, hash)
            }
            fn >>= 1
            sn >>= 1
        }
        guard sn == 0 else { throw refuse("the proof has fewer hashes than the trees have levels") }
        return (oldRoot, newRoot)
    }
}
