import EventLog

/// A device's proof of the server's history as it pulls (docs/SYNC.md,
/// "Proving the server's history"): the history tree of the mirror's
/// records up to the newest server head proven, the leaf hashes of the
/// records hashed since, and the heads the server keeps that are still to
/// be proven. Each head the leaves reach is proven at once: a consistency
/// proof from the proven tree, built from the leaves up to the head, must
/// verify against the head the server claims.
///
/// A value behind the session's lock; not thread-safe by itself.
package struct SyncHeadProver: Sendable {
    /// The tree up to the newest head proven (or the mirror's start).
    private(set) var proven: HistoryTreeBuilder
    /// The leaf hashes of the records after ``proven``, in seq order.
    private var leaves: [HistoryHash] = []
    /// Heads the server keeps after ``proven``, ascending, not yet proven.
    private var heads: [CheckpointHead] = []

    init(from proven: HistoryTreeBuilder) { self.proven = proven }

    /// The seq of the last record hashed.
    var hashedThrough: UInt64 { proven.count + UInt64(leaves.count) }

    /// Takes the heads the server keeps after the proven tree (those already
    /// known are replaced), and proves those the leaves already reach.
    ///
    /// - Throws: `historyDiverged` as ``add(_:mirrorPath:)``.
    mutating func expect(_ kept: [CheckpointHead], mirrorPath: String) throws(EventLogError) {
        heads = kept.filter { $0.seq > proven.count }.sorted { $0.seq < $1.seq }
        while let next = heads.first, next.seq <= hashedThrough { try prove(next, mirrorPath: mirrorPath) }
    }

    /// Adds the leaf of the next record (seq ``hashedThrough`` + 1) and
    /// proves the head kept at its seq, if there is one.
    ///
    /// - Throws: `historyDiverged` naming the head's seq and the one proven
    ///   before it when the records do not give the server's head.
    mutating func add(_ leaf: HistoryHash, mirrorPath: String) throws(EventLogError) {
        leaves.append(leaf)
        if let next = heads.first, next.seq == hashedThrough { try prove(next, mirrorPath: mirrorPath) }
    }

    /// Adds `records` (just pulled, in seq order) with their leaf hashes
    /// (`nil`: hashed here from their payloads), proving each head they
    /// reach. Records that do not follow those hashed (never expected) are
    /// not added, and the leaves are dropped: the next round hashes the
    /// mirror again from the proven head.
    ///
    /// - Throws: `historyDiverged` as ``add(_:mirrorPath:)``; what encoding a record throws.
    mutating func add(_ records: [EventRecord], leaves: [HistoryHash]?, mirrorPath: String) throws(EventLogError) {
        guard let first = records.first else { return }
        guard first.seq == hashedThrough + 1 else {
            self = SyncHeadProver(from: proven)
            return
        }
        let hashes: [HistoryHash]
        if let leaves { hashes = leaves } else { hashes = try SyncSession.leaves(of: records) }
        for leaf in hashes { try add(leaf, mirrorPath: mirrorPath) }
    }

    /// Whether the server keeps a head this prover has not reached yet.
    var awaitsHeads: Bool { !heads.isEmpty }

    private mutating func prove(_ claimed: CheckpointHead, mirrorPath: String) throws(EventLogError) {
        let count = Int(claimed.seq - proven.count)
        let ours = ConsistencyProof.extending(proven, by: Array(leaves[..<count]))
        let theirs = ConsistencyProof(old: ours.old, new: claimed.head, path: ours.path)
        do throws(EventLogError) {
            guard ours.new == claimed.head else { throw EventLogError(.invalidProof, "the records give \(ours.new.hash.hex)") }
            try theirs.verify()
        } catch {
            throw EventLogError(
                .historyDiverged,
                "the server list's head at seq \(claimed.seq) (\(claimed.head.hash.hex), kept with its checkpoint) is not proven to extend the head this device proved at seq \(proven.count) by the records it pulled (\(error.message)): the server's records through seq \(claimed.seq) are not the ones this mirror holds — its history was rewritten after this device saw them, or the checkpoint was written from other records; nothing was pushed",
                path: mirrorPath, lastGoodSeq: proven.count)
        }
        // The server's frontier gives the root the proof checked, so (SHA-256 being collision resistant) it is the
        // frontier of the records hashed: no need to hash them into one again.
        proven = claimed.tree
        leaves.removeFirst(count)
        heads.removeFirst()
    }
}
