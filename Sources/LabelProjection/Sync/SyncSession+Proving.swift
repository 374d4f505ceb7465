import EventLog

/// Proving the server's history (docs/SYNC.md, "Proving the server's
/// history"): after each pull, the device checks every head the server
/// keeps with a checkpoint among the seqs it holds against the records it
/// pulled, by a consistency proof from the head it proved before.
extension SyncSession {
    /// The server's newest head this session proved: the history tree's head
    /// of a server checkpoint the mirror's records were found to give, by a
    /// consistency proof from the head proven before it (`nil`: none yet — the
    /// list has no checkpoint with a frontier among the mirror's seqs, or no
    /// sync ran).
    public var provenHead: HistoryHead? { state.withLock { $0.proven?.head } }

    /// The tree behind ``provenHead``, for a session opened on the same mirror later.
    package var provenTree: HistoryTreeBuilder? { state.withLock { $0.proven } }

    /// Records read from the mirror per call while hashing.
    private static let proofChunk = 65_536

    /// Checks the heads the server's checkpoints hold for seqs after the one
    /// proven last, through the mirror's last seq, in seq order: for each, a
    /// consistency proof from the proven head, built from the mirror's records
    /// after it, must verify against the server's head — else the server's
    /// history is not the one the device pulled, and the round stops before
    /// anything is pushed.
    ///
    /// - Throws: ``StoreError``: `storage` wrapping `historyDiverged`, naming
    ///   the checkpoint's seq and the seq proven before it; what reading the
    ///   mirror or asking the server throws.
    func proveServerHistory(mirror: LogWriter, _ s: inout State) throws(StoreError) {
        guard let checkpoints = serverLog as? any CheckpointStorage else { return }
        var proven = s.proven ?? mirrorStart(mirror)
        let last = mirror.lastSeq
        guard last > proven.count else { return }
        do throws(EventLogError) {
            let heads = try checkpoints.checkpointHeads(in: (proven.count + 1)...last)
            var next = proven.count + 1
            for claimed in heads {
                var leaves: [HistoryHash] = []
                leaves.reserveCapacity(Int(claimed.seq - proven.count))
                while next <= claimed.seq {
                    let records = try mirror.read(from: next, maxCount: Int(min(claimed.seq - next + 1, UInt64(Self.proofChunk))))
                    guard let lastRead = records.last else { break }
                    for record in records { leaves.append(.leaf(payload: try record.storedPayload())) }
                    next = lastRead.seq + 1
                }
                let ours = ConsistencyProof.extending(proven, by: leaves)
                let theirs = ConsistencyProof(old: ours.old, new: claimed.head, path: ours.path)
                do throws(EventLogError) {
                    guard ours.new == claimed.head else {
                        throw EventLogError(.invalidProof, "the records give \(ours.new.hash.hex)")
                    }
                    try theirs.verify()
                } catch {
                    throw EventLogError(
                        .historyDiverged,
                        "the server list's head at seq \(claimed.seq) (\(claimed.head.hash.hex), kept with its checkpoint) is not proven to extend the head this device proved at seq \(proven.count) by the records it pulled (\(error.message)): the server's records through seq \(claimed.seq) are not the ones this mirror holds — its history was rewritten after this device saw it, or the checkpoint was written from other records; nothing was pushed",
                        path: mirrorPath, lastGoodSeq: proven.count)
                }
                for leaf in leaves { proven.append(leaf: leaf) }
                s.proven = proven
            }
        } catch {
            throw .storage(error)
        }
    }

    /// The tree before the mirror's first record: empty, or its base's frontier.
    private func mirrorStart(_ mirror: LogWriter) -> HistoryTreeBuilder {
        mirror.base.flatMap { HistoryTreeBuilder(count: $0.lastCutSeq, frontier: $0.frontier) } ?? HistoryTreeBuilder()
    }
}
