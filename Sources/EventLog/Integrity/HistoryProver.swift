/// Computes heads and proofs of a history by reading its records once from
/// seq 1: a ``LogReader`` (each frame's payload, as stored) or any
/// ``EventStorage`` (each record's payload, encoded again: the decoder
/// accepts only the canonical encoding, so it is the stored bytes).
///
/// A based log's records start after its base: heads and proofs over it
/// continue the tree from the base's frontier (``LogBase/frontier``), and
/// are the whole history's; seqs before its first are refused
/// (``EventLogError/Code/invalidProof``, naming the archive's range).
///
/// Nothing here trusts a cache: every answer is computed from the records.
/// The cost is one read of the records up to the largest seq asked about and
/// one SHA-256 leaf hash per record, with memory for a few frontiers.
public enum HistoryProver {
    /// The head after record `seq` (the last record when `nil`).
    ///
    /// - Throws: ``EventLogError``: what reading throws; ``EventLogError/Code/historyDiverged``
    ///   when the history ends before `seq`.
    public static func head(of source: HistoryRecords, atSeq seq: UInt64? = nil) throws(EventLogError) -> HistoryHead {
        if let start = source.start {
            // A based log: the tree continues from its base's frontier.
            guard seq.map({ $0 >= start.count }) ?? true else { throw archived(seq!, source) }
            var builder = start
            try source.forEachLeaf(through: seq ?? .max) { _, leaf in builder.append(leaf: leaf) }
            try requireLength(builder.count, seq, source)
            return builder.head
        }
        var hasher = HistoryRangeHasher(ranges: [])
        try source.forEachLeaf(through: seq ?? .max) { _, leaf in hasher.add(leaf: leaf) }
        try requireLength(hasher.nextLeaf, seq, source)
        return hasher.whole.head
    }

    /// The proof that record `seq` is under the head at `headSeq` (the last
    /// record when `nil`), with that head and the record's payload.
    ///
    /// - Throws: ``EventLogError``: what reading throws; ``EventLogError/Code/historyDiverged``
    ///   when the history ends before `seq` or `headSeq`; ``EventLogError/Code/invalidProof``
    ///   when `seq` is 0 or after `headSeq`.
    public static func inclusionProof(
        ofSeq seq: UInt64, underHeadAt headSeq: UInt64? = nil, in source: HistoryRecords
    ) throws(EventLogError) -> (proof: InclusionProof, payload: [UInt8]) {
        let size: UInt64
        if let headSeq { size = headSeq } else { size = try source.lastSeq() }
        guard seq >= 1, seq <= size else {
            throw EventLogError(.invalidProof, "record \(seq) is not in a history of \(size) records: no proof of it")
        }
        if seq <= source.startSeq { throw archived(seq, source) }
        var hasher = try rangeHasher(HistoryTree.inclusionRanges(leaf: seq - 1, size: size), source)
        var payload: [UInt8] = []
        try source.forEachLeaf(through: size) { recordSeq, leaf in
            hasher.add(leaf: leaf)
            if recordSeq == seq { payload = Array(source.currentPayload) }
        }
        try requireLength(hasher.nextLeaf, size, source)
        let proof = InclusionProof(seq: seq, head: hasher.whole.head, path: hasher.hashes ?? [])
        try proof.verify(payload: payload)  // never hand out a proof that does not check
        return (proof, payload)
    }

    /// The proof that the head at `newSeq` (the last record when `nil`)
    /// extends the head at `oldSeq`, with both heads.
    ///
    /// - Throws: ``EventLogError``: what reading throws; ``EventLogError/Code/historyDiverged``
    ///   when the history ends before `newSeq`; ``EventLogError/Code/invalidProof`` when
    ///   `oldSeq` is after `newSeq`.
    public static func consistencyProof(
        from oldSeq: UInt64, to newSeq: UInt64? = nil, in source: HistoryRecords
    ) throws(EventLogError) -> ConsistencyProof {
        let size: UInt64
        if let newSeq { size = newSeq } else { size = try source.lastSeq() }
        guard oldSeq <= size else {
            throw EventLogError(.invalidProof, "head \(oldSeq) is after head \(size): no proof that one extends the other")
        }
        if oldSeq < source.startSeq || size < source.startSeq { throw archived(min(oldSeq, size), source) }
        let ranges = oldSeq == 0 ? [] : HistoryTree.consistencyRanges(old: oldSeq, new: size)
        var hasher = try rangeHasher(ranges, source)
        var old = source.start ?? HistoryTreeBuilder()
        try source.forEachLeaf(through: size) { seq, leaf in
            hasher.add(leaf: leaf)
            if seq <= oldSeq { old.append(leaf: leaf) }
        }
        try requireLength(hasher.nextLeaf, size, source)
        let proof = ConsistencyProof(old: old.head, new: hasher.whole.head, path: hasher.hashes ?? [])
        try proof.verify()
        return proof
    }

    /// Checks that the history extends `head`: its records `1…head.seq`
    /// give exactly that head. Returns the history's head now.
    ///
    /// - Throws: ``EventLogError/Code/historyDiverged`` when they do not, or
    ///   the history is shorter (naming the seq it ends at); what reading throws.
    public static func verify(_ source: HistoryRecords, extends head: HistoryHead) throws(EventLogError) -> HistoryHead {
        let result = try check(source, against: [head])
        if let failure = result.failures[0] { throw failure }
        return result.now
    }

    /// Checks, in one pass, whether the history extends each of `heads`.
    /// Returns its head now and, for each of `heads` in order, `nil` when the
    /// history extends it, else the ``EventLogError/Code/historyDiverged``
    /// error saying why.
    ///
    /// - Throws: what reading throws.
    public static func check(
        _ source: HistoryRecords, against heads: [HistoryHead]
    ) throws(EventLogError) -> (now: HistoryHead, failures: [EventLogError?]) {
        // Every core hashes: whole chunks of records are perfect subtrees (ChunkedTreeHasher).
        let hasher = ChunkedTreeHasher(start: source.start ?? HistoryTreeBuilder(), wanted: Set(heads.map(\.seq)))
        try source.forEachPayload(through: .max) { _, payload in hasher.append(payload: payload) }
        return outcome(of: hasher, against: heads, startSeq: source.startSeq, name: source.name)
    }

    /// What ``check(_:against:)`` returns, for a `hasher` (made with every head's
    /// seq wanted) that was given every payload of the history after `startSeq`
    /// in seq order — by a caller that reads the records for its own checks too
    /// (`labelreplay verify`: one pass, hashing beside the checks).
    package static func outcome(
        of hasher: ChunkedTreeHasher, against heads: [HistoryHead], startSeq: UInt64, name: String
    ) -> (now: HistoryHead, failures: [EventLogError?]) {
        let builder = hasher.finish()
        let found = hasher.found
        let failures = heads.map { head -> EventLogError? in
            if head.seq < startSeq { return archived(head.seq, name: name, startSeq: startSeq) }
            guard let hash = found[head.seq] else {
                return EventLogError(
                    .historyDiverged,
                    "\(name) ends at seq \(builder.count), before the seq of head \(head): records "
                        + "\(builder.count + 1)…\(head.seq) are missing",
                    lastGoodSeq: builder.count)
            }
            guard hash != head.hash else { return nil }
            return EventLogError(
                .historyDiverged,
                "\(name) does not extend head \(head): its records 1…\(head.seq) give \(hash.hex), so at least one of "
                    + "them was changed, removed, inserted or reordered since that head was taken")
        }
        return (builder.head, failures)
    }

    /// The error for a seq before a based log's first record.
    private static func archived(_ seq: UInt64, _ source: HistoryRecords) -> EventLogError {
        archived(seq, name: source.name, startSeq: source.startSeq)
    }

    /// The error for a seq before the first record of the history `name`, which starts after `startSeq`.
    private static func archived(_ seq: UInt64, name: String, startSeq: UInt64) -> EventLogError {
        EventLogError(
            .invalidProof,
            "\(name) starts after seq \(startSeq) (its earlier records were archived or dropped): seq \(seq) can be checked only against the archive that holds it"
        )
    }

    /// The hasher of a proof's `ranges` over `source`: from seq 1, or from a
    /// based log's base frontier (the subtrees before its first record).
    private static func rangeHasher(_ ranges: [Range<UInt64>], _ source: HistoryRecords) throws(EventLogError) -> HistoryRangeHasher {
        guard let start = source.start else { return HistoryRangeHasher(ranges: ranges) }
        guard let hasher = HistoryRangeHasher(ranges: ranges, start: start) else {
            // Not reached for the proofs asked of a based log (see HistoryRangeHasher.init(ranges:start:)).
            throw EventLogError(
                .invalidProof,
                "\(source.name) starts after seq \(source.startSeq): this proof needs records before it, which only its archive holds")
        }
        return hasher
    }

    private static func requireLength(_ count: UInt64, _ wanted: UInt64?, _ source: HistoryRecords) throws(EventLogError) {
        guard let wanted, count < wanted else { return }
        throw EventLogError(
            .historyDiverged, "\(source.name) ends at seq \(count), before seq \(wanted)", lastGoodSeq: count)
    }
}
