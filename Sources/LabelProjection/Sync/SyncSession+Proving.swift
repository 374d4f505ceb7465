import EventLog

/// Proving the server's history (docs/SYNC.md, "Proving the server's
/// history"): each round first asks for the heads the server keeps with
/// its checkpoints after the one proven last; while there are any to
/// reach, every record the round pulls is hashed (from its payload as the
/// server holds it, when the server hands payloads out) and each head
/// proven as its seq is reached, before anything is pushed.
extension SyncSession {
    /// The server's newest head this session proved: the history tree's head
    /// of a server checkpoint the mirror's records were found to give, by a
    /// consistency proof from the head proven before it (`nil`: none yet — the
    /// list keeps no head among the mirror's seqs, or no sync ran).
    public var provenHead: HistoryHead? {
        state.withLock { s in s.prover.flatMap { $0.proven.count > mirrorStart(s.mirror).count ? $0.proven.head : nil } }
    }

    /// What this session proved and hashed, for a session opened on the same mirror later.
    package var prover: SyncHeadProver? { state.withLock { $0.prover } }

    /// Asks for the heads the server keeps after the one proven last and,
    /// when there are any, makes sure the prover holds the mirror's records
    /// (hashing them from the proven head once per session) and proves those
    /// the mirror already reaches.
    ///
    /// - Throws: ``StoreError``: `storage` wrapping `historyDiverged` for a
    ///   head that is not proven; what asking the server or reading the mirror throws.
    func beginProving(mirror: LogWriter, _ s: inout State) throws(StoreError) {
        guard let checkpoints = serverLog as? any CheckpointStorage else { return }
        do throws(EventLogError) {
            var prover = s.prover ?? SyncHeadProver(from: mirrorStart(mirror))
            let heads = try checkpoints.checkpointHeads(in: (prover.proven.count + 1)...UInt64.max)
            guard !heads.isEmpty || s.prover != nil else { return }
            if prover.hashedThrough < mirror.lastSeq {
                // Once per session: the mirror's records after the proven head (from its start, at first).
                let records = try HistoryRecords(path: mirrorPath)
                var failure: EventLogError?
                try records.forEachLeaf(from: prover.hashedThrough + 1, through: mirror.lastSeq) { _, leaf in
                    guard failure == nil else { return }
                    do throws(EventLogError) { try prover.add(leaf, mirrorPath: mirrorPath) } catch { failure = error }
                }
                if let failure { throw failure }
            }
            try prover.expect(heads, mirrorPath: mirrorPath)
            s.prover = prover
        } catch {
            throw .storage(error)
        }
    }

    /// The leaf hashes of `records` (their payloads as stored).
    static func leaves(of records: [EventRecord]) throws(EventLogError) -> [HistoryHash] {
        var hashes: [HistoryHash] = []
        hashes.reserveCapacity(records.count)
        for record in records { hashes.append(try .leaf(of: record)) }
        return hashes
    }

    /// The tree before the mirror's first record: empty, or its base's frontier.
    func mirrorStart(_ mirror: LogWriter?) -> HistoryTreeBuilder {
        mirror?.base.flatMap { HistoryTreeBuilder(count: $0.lastCutSeq, frontier: $0.frontier) } ?? HistoryTreeBuilder()
    }
}
