import EventLog

/// The frontiers of the history tree a store has computed: one every
/// 65,536 records (so a head at any seq hashes at most that many records
/// from the nearest one) and the newest. In memory only; computed from the
/// log, never trusted over it. Behind its own lock (``LabelStore/historyFrontiers``).
struct HistoryFrontiers {
    /// Records between kept frontiers.
    static let spacing: UInt64 = 65_536
    /// Frontiers at multiples of ``spacing``, in seq order.
    var kept: [HistoryTreeBuilder] = []
    /// The frontier after the furthest record hashed.
    var newest = HistoryTreeBuilder()
    /// The frontier before the log's first record: empty, or a based log's base frontier.
    var origin = HistoryTreeBuilder()

    /// The frontier to continue from for a head at `seq`: the newest when it
    /// is at or before `seq`, else the kept one nearest before.
    func start(for seq: UInt64) -> HistoryTreeBuilder {
        if newest.count <= seq { return newest }
        return kept.last { $0.count <= seq && $0.count >= origin.count } ?? origin
    }

    /// Keeps what hashing up to `builder.count` found.
    mutating func note(_ builder: HistoryTreeBuilder) {
        if builder.count % Self.spacing == 0, builder.count > 0, !kept.contains(where: { $0.count == builder.count }) {
            kept.append(builder)
            kept.sort { $0.count < $1.count }
        }
        if builder.count > newest.count { newest = builder }
    }
}

/// The history's head and proofs (docs/AUDIT.md): the root of an RFC 9162
/// hash tree over every record's payload, the same value `labelreplay head`
/// prints and whatever holds the records (a file, a server list, a copy).
extension LabelStore {
    /// The head after the last record this store applied: keep it where
    /// whoever can write the log cannot, and check the log against it later
    /// (``consistencyProof(from:to:)``, `labelreplay verify --head`).
    ///
    /// Thread-safe. Computed from the log, never from a cache: the first call
    /// hashes every record (about 3.5 M records/s with the CPU's SHA
    /// instructions), later ones only the records appended since.
    ///
    /// - Throws: ``StoreError/Code/storage(_:)`` when the log cannot be read.
    public var head: HistoryHead {
        get throws(StoreError) { try historyHead(atSeq: lastSeq) }
    }

    /// The head after record `seq` (0: the empty history's).
    ///
    /// - Throws: ``StoreError/Code/seqOutOfRange(seq:lastSeq:)`` if `seq > lastSeq`;
    ///   ``StoreError/Code/storage(_:)`` when the log cannot be read.
    /// - Complexity: O(records hashed): those after the nearest frontier the
    ///   store kept (the newest, or one every 65,536 records) at or before `seq`;
    ///   for a seq before a cut log's first, those from the start of the oldest
    ///   archive holding it (``history()``; each archive is checked first).
    public func historyHead(atSeq seq: UInt64) throws(StoreError) -> HistoryHead {
        try checkInRange(seq)
        let cut = storage.base?.lastCutSeq
        do {
            return try hashHead(atSeq: seq)
        } catch {
            // A cut of the open log (``Options/retention``) may have taken the records it was reading: again from its base.
            guard ownedWriter != nil, storage.base?.lastCutSeq != cut else { throw error }
            return try hashHead(atSeq: seq)
        }
    }

    /// The head after record `seq`, hashed from the nearest frontier at or
    /// before it that is not before the storage's base.
    private func hashHead(atSeq seq: UInt64) throws(StoreError) -> HistoryHead {
        let base = baseFrontier
        guard seq >= (base?.count ?? origin.lastSeq) else { return try hashArchivedHead(atSeq: seq) }
        return try historyTree(atSeq: seq).head
    }

    /// The history tree's frontier after record `seq` (not before the
    /// storage's base), hashed from the nearest frontier this store computed,
    /// or from `hint` when it is nearer (a frontier someone else computed,
    /// such as a server checkpoint's; what is hashed from it is not kept as
    /// the store's own).
    package func historyTree(atSeq seq: UInt64, hint: HistoryTreeBuilder? = nil) throws(StoreError) -> HistoryTreeBuilder {
        var builder = historyFrontiers.withLock { $0.start(for: seq) }
        if let base = baseFrontier, builder.count < base.count { builder = base }
        var own = true
        if let hint, hint.count <= seq, hint.count > builder.count {
            builder = hint
            own = false
        }
        guard builder.count < seq else { return builder }
        let records = try historyRecords()
        do throws(EventLogError) {
            try records.forEachLeaf(from: builder.count + 1, through: seq) { _, leaf in
                builder.append(leaf: leaf)
                if own, builder.count % HistoryFrontiers.spacing == 0 {
                    let kept = builder
                    historyFrontiers.withLock { $0.note(kept) }
                }
            }
        } catch {
            throw StoreError.storage(error)
        }
        guard builder.count == seq else {
            throw StoreError.storage(
                EventLogError(.historyDiverged, "The log ends at seq \(builder.count), before seq \(seq).", lastGoodSeq: builder.count))
        }
        if own {
            let found = builder
            historyFrontiers.withLock { $0.note(found) }
        }
        return builder
    }

    /// The head after record `seq`, a seq before the log's first: hashed
    /// through the archives holding it (``history()``, each checked against
    /// the base naming it first), from the oldest one's start.
    private func hashArchivedHead(atSeq seq: UInt64) throws(StoreError) -> HistoryHead {
        let records = try historyRecords(reaching: seq)
        var builder = records.start ?? HistoryTreeBuilder()
        guard builder.count < seq else {
            guard builder.count == seq else { throw archived(seq) }
            return builder.head
        }
        do throws(EventLogError) {
            try records.forEachLeaf(from: builder.count + 1, through: seq) { _, leaf in builder.append(leaf: leaf) }
        } catch {
            throw StoreError.storage(error)
        }
        guard builder.count == seq else {
            throw StoreError.storage(
                EventLogError(.historyDiverged, "The history ends at seq \(builder.count), before seq \(seq).", lastGoodSeq: builder.count))
        }
        return builder.head
    }

    /// A proof that record `seq` is under the head at `headSeq` (the last seq
    /// when `nil`), checked before it is returned; anyone holding the
    /// record's payload and that head checks it with `InclusionProof.verify(payload:)` (EventLog).
    ///
    /// - Throws: ``StoreError/Code/seqOutOfRange(seq:lastSeq:)`` if `seq` is 0 or either
    ///   seq is past the last; ``StoreError/Code/storage(_:)`` when the log cannot be read.
    /// - Complexity: O(`headSeq`): the records are read and hashed from seq 1
    ///   (a based log: from its first, its base's frontier standing for the
    ///   records cut; a seq before it is read through the archives holding
    ///   it, ``history()``, or refused naming the archive when it is not there).
    public func inclusionProof(ofSeq seq: UInt64, underHeadAt headSeq: UInt64? = nil) throws(StoreError) -> InclusionProof {
        let size = headSeq ?? lastSeq
        try checkInRange(size)
        guard seq >= 1, seq <= size else {
            throw StoreError(.seqOutOfRange(seq: seq, lastSeq: size), "There is no record \(seq) under the head at seq \(size).", seq: seq)
        }
        let records = try historyRecords(reaching: seq)
        do throws(EventLogError) {
            return try HistoryProver.inclusionProof(ofSeq: seq, underHeadAt: size, in: records).proof
        } catch {
            throw StoreError.storage(error)
        }
    }

    /// A proof that the head at `newSeq` (the last seq when `nil`) extends
    /// the head at `oldSeq`, checked before it is returned; a client that
    /// kept the old head checks it with `ConsistencyProof.verify()` and
    /// then trusts the new one.
    ///
    /// - Throws: ``StoreError/Code/seqOutOfRange(seq:lastSeq:)`` if a seq is past the last
    ///   or `oldSeq > newSeq`; ``StoreError/Code/storage(_:)`` when the log cannot be read.
    /// - Complexity: O(`newSeq`): the records are read and hashed from seq 1
    ///   (a based log: from its first, its base's frontier standing for the
    ///   records cut; an `oldSeq` before it is read through the archives
    ///   holding it, ``history()``, or refused naming the archive when it is not there).
    public func consistencyProof(from oldSeq: UInt64, to newSeq: UInt64? = nil) throws(StoreError) -> ConsistencyProof {
        let size = newSeq ?? lastSeq
        try checkInRange(size)
        guard oldSeq <= size else {
            throw StoreError(.seqOutOfRange(seq: oldSeq, lastSeq: size), "Head \(oldSeq) is after head \(size).", seq: oldSeq)
        }
        let records = try historyRecords(reaching: oldSeq + 1)  // the old head's frontier: a base's at its cut
        do throws(EventLogError) {
            return try HistoryProver.consistencyProof(from: oldSeq, to: size, in: records)
        } catch {
            throw StoreError.storage(error)
        }
    }

    private func checkInRange(_ seq: UInt64) throws(StoreError) {
        let last = lastSeq
        guard seq <= last else {
            throw StoreError(.seqOutOfRange(seq: seq, lastSeq: last), "There is no seq \(seq): the log ends at seq \(last).", seq: seq)
        }
    }

    /// The tree's frontier at the storage's base (`nil` for a log from seq 1).
    var baseFrontier: HistoryTreeBuilder? {
        storage.base.flatMap { HistoryTreeBuilder(count: $0.lastCutSeq, frontier: $0.frontier) }
    }

    /// The records to hash for a head, proof or record at `first` or later:
    /// ``historyRecords()`` when the log holds `first`; else the archives
    /// holding the seqs from `first` on (``history()``: each checked against
    /// the base naming it; a missing, mismatched or dropped one is an error
    /// naming it), then the log.
    private func historyRecords(reaching first: UInt64) throws(StoreError) -> HistoryRecords {
        guard let base = storage.base, first <= base.lastCutSeq else { return try historyRecords() }
        if state.withLock({ $0.closed }), let path = log.path {
            do throws(EventLogError) {
                let reader = try LogReader(path: path)
                let archives = try Self.archiveReaders(of: LogHistory(logPath: path, header: reader.header), from: first)
                return archives.isEmpty
                    ? HistoryRecords(reader: reader, name: path) : HistoryRecords(archives: archives, log: reader, name: path)
            } catch {
                throw StoreError.storage(error)
            }
        }
        let archives: [LogReader]
        do throws(EventLogError) { archives = try Self.archiveReaders(of: history(), from: first) } catch {
            throw StoreError.storage(error)
        }
        guard !archives.isEmpty, let start = storage.historyStart else { return try historyRecords() }
        return HistoryRecords(archives: archives, storage: storage, chainValue: start.chainValue, name: log.path ?? "the store's log")
    }

    /// Readers of the archives of `history` holding the seqs from `first` on, oldest first, each checked.
    private static func archiveReaders(of history: LogHistory, from first: UInt64) throws(EventLogError) -> [LogReader] {
        var readers: [LogReader] = []
        for archive in try history.archives(from: first) { readers.append(try history.open(archive)) }
        return readers
    }

    /// The records to hash: through the storage while the store is open, the
    /// file (a new reader) once a file log is closed.
    private func historyRecords() throws(StoreError) -> HistoryRecords {
        let closed = state.withLock { $0.closed }
        if closed, let path = log.path {
            do throws(EventLogError) { return try HistoryRecords(path: path) } catch { throw StoreError.storage(error) }
        }
        // A based log's records start after its base: the tree continues from the base's frontier.
        var origin = historyFrontiers.withLock { $0.origin }
        // The storage's base is ahead of it for a moment after a cut of the open log.
        if let base = baseFrontier, origin.count < base.count { origin = base }
        return HistoryRecords(storage: storage, name: log.path ?? "the store's log", start: origin)
    }
}
