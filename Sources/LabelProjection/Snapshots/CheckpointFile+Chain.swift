import EventLog

/// Reading one checkpoint of `LOG.checkpoints` format 5 (docs/SNAPSHOTS.md,
/// "What is trusted"): its nearest full image at or before it and the deltas
/// after that up to it, each checked against its entry's checksum and
/// applied in turn, then the removal blocks before it, then its record's
/// place in the log. A damaged piece makes every checkpoint built on it
/// unusable: it is reported once, and the reader goes on before it.
extension CheckpointFile {
    /// Why a checkpoint could not be used, and the first checkpoint (an index
    /// into ``Directory/entries``) the same problem makes unusable: the reader
    /// goes on from the one before that.
    struct ChainFailure: Error {
        var problem: HistoryIndexFile.Problem
        var firstUnusable: Int
    }

    /// The newest checkpoint at or before `seq` that belongs to the log
    /// `reader` reads (its full image and deltas match their entries'
    /// checksums and decode, the removal blocks before it decode, it names
    /// this log and its seq, and the log keeps its record at the recorded
    /// position with the recorded chained checksum), with the problems of the
    /// newer ones that did not — one per damaged piece.
    ///
    /// Without `decodingRemoved`, the removed labels' titles are skipped and
    /// ``ListCheckpoint/removed`` is empty: only `diff` and `trace` print
    /// removed labels; with `removedAmong`, it holds only those labels.
    ///
    /// The removal blocks are read on another thread while the images are
    /// decoded when the checkpoint has `concurrentFrom` slots or more (tests
    /// take both ways on small histories).
    ///
    /// - Complexity: O(size of the full image and deltas read, and of the
    ///   removal blocks before the checkpoint) plus one frame read of the log
    ///   per checkpoint tried.
    package static func checkpoint(
        atOrBefore seq: UInt64, in directory: Directory, reader: LogReader, decodingRemoved: Bool = true, removedAmong: Set<LabelID>? = nil,
        concurrentFrom: Int = ConcurrentJob<Void>.worthwhileSlotCount
    ) -> (checkpoint: ListCheckpoint?, problems: [HistoryIndexFile.Problem]) {
        var problems: [HistoryIndexFile.Problem] = []
        var next = directory.entries.lastIndex { $0.seq <= seq }
        while let index = next {
            do throws(ChainFailure) {
                let removals = RemovedLabels(keepingTitles: decodingRemoved, wanted: removedAmong)
                return (try checkpoint(index, in: directory, reader: reader, removals: removals, concurrentFrom: concurrentFrom), problems)
            } catch {
                problems.append(error.problem)
                next = error.firstUnusable > 0 ? min(error.firstUnusable, index) - 1 : nil
            }
        }
        return (nil, problems)
    }

    /// Decodes and checks the checkpoint `directory.entries[index]`.
    private static func checkpoint(_ index: Int, in directory: Directory, reader: LogReader, removals: RemovedLabels, concurrentFrom: Int)
        throws(ChainFailure) -> ListCheckpoint
    {
        let entry = directory.entries[index]
        /// The problem of `piece`, at byte `offset` of the file (`nil`: its body's first; `inLog`: none, the log is at fault).
        func fail(_ piece: Entry, _ reason: String, at offset: Int? = nil, inLog: Bool = false, unusable: Int? = nil) -> ChainFailure {
            let problem = HistoryIndexFile.Problem(
                path: directory.path, reason: "the checkpoint at seq \(piece.seq) " + reason, offset: inLog ? nil : offset ?? piece.offset)
            return ChainFailure(problem: problem, firstUnusable: unusable ?? index)
        }
        guard let first = directory.entries[...index].lastIndex(where: { !$0.isDelta }) else {
            throw fail(entry, "is a delta with no full image before it")  // readDirectory refuses such a file; kept for safety
        }
        // The pieces' bytes, read and checked against their entries' checksums as they are decoded.
        func pieceBytes(_ k: Int) throws(ChainFailure) -> [UInt8] {
            let piece = directory.entries[k]
            let bytes: [UInt8]
            do throws(EventLogError) {
                bytes = try directory.bytes(at: piece.offset, count: piece.length, of: "the checkpoint at seq \(piece.seq)")
            } catch {
                throw fail(piece, "cannot be read: \(error.message)", unusable: k)
            }
            guard bytes.withUnsafeBytes({ CRC32C.checksum($0) }) == piece.checksum else {
                throw fail(piece, "does not match its entry's checksum (damaged, or an append that did not reach the disk)", unusable: k)
            }
            return bytes
        }
        // The last piece is read first for its counts (a failure is thrown
        // when the loop reaches it, so an earlier damaged piece is named first).
        let lastBytes = try? pieceBytes(index)
        // The removal blocks are read and checked on another thread while the
        // images are decoded here, when the last image's counts say the table
        // is large; those counts are checked against the decoded state before the table is used.
        let chainBytes = directory.entries[first...index].reduce(0) { $0 + $1.length }
        let counts = lastBytes?.withUnsafeBytes { raw in
            CheckpointState.counts(ofImage: UnsafeRawBufferPointer(rebasing: raw[0..<entry.imageLength]), liveLimit: chainBytes)
        }
        let removalJob = counts.flatMap { counts -> (counts: (slotCount: Int, liveCount: Int), job: ConcurrentJob<RemovalRead>)? in
            guard counts.slotCount >= concurrentFrom else { return nil }
            let blocks = directory.removals[0..<entry.blocksBefore]
            return (
                counts,
                ConcurrentJob {
                    var removals = removals
                    let table = Result { () throws(SnapshotError) in
                        try removals.read(
                            blocks, of: directory, count: entry.removalCount, slotCount: counts.slotCount, liveCount: counts.liveCount)
                    }
                    return RemovalRead(removals: removals, table: table)
                }
            )
        }
        removalJob?.job.start()
        // The job reads only what it was given; it is awaited all the same, so a failure here leaves no work running.
        defer { removalJob?.job.wait() }
        var state: CheckpointState?
        var frontier: [HistoryHash] = []
        for k in first...index {
            let piece = directory.entries[k]
            let removedLimit = Int(min(piece.removalCount, UInt64(Int32.max))) + (directory.origin?.slotCount ?? 0)
            let bytes: [UInt8]
            if k == index, let lastBytes { bytes = lastBytes } else { bytes = try pieceBytes(k) }
            // The state is changed in place (a delta costs what it changed, not a copy of the list).
            let decoded = bytes.withUnsafeBytes { raw in
                Result { () throws(SnapshotError) in
                    let image = UnsafeRawBufferPointer(rebasing: raw[0..<piece.imageLength])
                    if state == nil {
                        state = try CheckpointState(fullImage: image, removedLimit: removedLimit)
                        // Room for the deltas' titles and those a fold from the checkpoint adds,
                        // so the titles are not copied as they grow.
                        state!.titles.reserve(
                            LabelList.roomToFold(directory.entries[(first + 1)..<(index + 1)].reduce(0) { $0 + $1.length }))
                    } else {
                        try state!.apply(delta: image, removedLimit: removedLimit)
                    }
                }
            }
            if case .failure(let error) = decoded {
                throw fail(piece, "does not decode\(piece.isDelta ? " (a delta)" : ""): \(error.message)", unusable: k)
            }
            let header = state!.header
            guard header.logID == directory.logID, header.seq == piece.seq, header.logPosition?.checksum != nil else {
                throw fail(piece, "is not the checkpoint its entry names (seq \(header.seq), log \(header.logID))", unusable: k)
            }
            if k == index {
                frontier = (0..<piece.seq.nonzeroBitCount).compactMap { h in
                    HistoryHash(bytes: bytes[(piece.imageLength + h * hashLength)..<(piece.imageLength + (h + 1) * hashLength)])
                }
            }
        }
        guard let decoded = state, let position = decoded.header.logPosition else {
            throw fail(entry, "has no image")  // not reached: the loop ran at least once and checked the position
        }
        var removals = removals
        let list: LabelList
        do throws(SnapshotError) {
            let tombstones: TombstoneTable
            if let removalJob, removalJob.counts.slotCount == decoded.slotCount, removalJob.counts.liveCount == decoded.liveCount {
                let read = removalJob.job.take()
                removals = read.removals
                tombstones = try read.table.get()
            } else {
                tombstones = try removals.read(
                    directory.removals[0..<entry.blocksBefore], of: directory, count: entry.removalCount, slotCount: decoded.slotCount,
                    liveCount: decoded.liveCount)
            }
            state = nil
            list = try decoded.list(tombstones: consume tombstones)
        } catch {
            // A damaged removal block makes every checkpoint after it unusable.
            let unusable = removals.failedBlock.map { block in directory.entries.firstIndex { $0.blocksBefore > block } ?? index }
            throw fail(entry, "does not decode: \(error.message)", unusable: unusable)
        }
        guard let tree = HistoryTreeBuilder(count: entry.seq, frontier: frontier) else {
            throw fail(entry, "has a damaged history tree frontier", at: entry.offset + entry.imageLength)
        }
        let keeping: RecordKeeping
        do throws(EventLogError) { keeping = try reader.keeps(position) } catch {
            throw fail(entry, "could not be checked against the log: \(error.message)", inLog: true)
        }
        switch keeping {
        case .kept:
            break
        case .notHeld:
            throw fail(
                entry,
                "is of a history the log does not hold: record \(position.seq) is not at byte offset \(position.offset) with its checksum (the log was cut or rewritten)",
                inLog: true)
        case .notKept:
            throw fail(entry, "is not usable: " + RecordKeeping.notKeptReason(position.seq), inLog: true)
        }
        return ListCheckpoint(list: list, position: position, removed: removals.labels(of: list), tree: tree)
    }

    /// What reading the removal blocks gave: the removed labels (with
    /// ``RemovedLabels/failedBlock`` set after a failure) and the table, or the error.
    struct RemovalRead {
        var removals: RemovedLabels
        var table: Result<TombstoneTable, SnapshotError>
    }
}
