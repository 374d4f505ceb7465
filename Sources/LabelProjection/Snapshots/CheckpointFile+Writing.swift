import EventLog

/// Writing a log's checkpoint file: appending the checkpoints of the records
/// written since its newest usable checkpoint, or building it from seq 1.
extension CheckpointFile {
    /// What ``update(logPath:rebuild:interval:fullEvery:progress:)`` did.
    package struct Update: Sendable {
        /// The checkpoints' seqs, as the file now holds them.
        package var seqs: [UInt64]
        /// The file's size in bytes.
        package var byteCount: Int
        /// What was there before.
        package var previous: Lookup
        /// A usable checkpoint that was extended from (`nil`: built from seq 1).
        package var extendedFrom: UInt64?
        /// Why the newest checkpoints (or a damaged tail) there before were dropped, if some were.
        package var dropped: [HistoryIndexFile.Problem]
        /// The record that does not fold, if the log contradicts itself (no checkpoint is written after it).
        package var foldFailure: String?
    }

    /// Brings the checkpoints of the log at `logPath` up to date, in place and
    /// durably, under the file's exclusive lock (a second updater, in this
    /// process or another, waits for the first). A usable version-4 file with
    /// the same interval is cut after its newest checkpoint that belongs to
    /// the log — dropping a torn tail, checkpoints of a history the log no
    /// longer holds and any built on a damaged piece — and the blocks of the
    /// records after it are appended; otherwise (missing, ignored, an older
    /// version, another interval, or `rebuild`) the file is rewritten from the
    /// log's first seq (a based log's fold starts from its base's image). A
    /// checkpoint is taken after every record whose seq is a multiple of
    /// `interval`, behind a removal block of the labels removed since the
    /// checkpoint before it: a delta on the checkpoint before it, or a full
    /// image when the `fullEvery − 1` checkpoints before it are a full image
    /// and deltas, or when the delta would be more than half the last full
    /// image.
    /// The blocks' bytes are synced before their entries are written, so a
    /// crash leaves whole checkpoints and at worst a tail that readers ignore
    /// and the next update cuts. Reads the log without locking it. Removes
    /// temporary files that a killed version-1 writer left
    /// (``SystemFile/removeStaleTemporaries(of:)``).
    ///
    /// - Throws: ``EventLogError`` when the log cannot be read (damage, I/O) or the file
    ///   cannot be written (the checkpoints already durable stay usable).
    /// - Complexity: O(records folded and hashed) plus one checkpoint decoded
    ///   (its full image and deltas, with the removal blocks before it) and
    ///   O(slots) per checkpoint appended; never O(file size).
    package static func update(
        logPath: String, rebuild: Bool = false, interval: UInt64 = defaultInterval, fullEvery: Int = defaultFullEvery,
        progress: ((UInt64) -> Void)? = nil
    ) throws -> Update {
        let path = path(for: logPath)
        // A log is there: no checkpoint file is created beside anything else.
        _ = try LogReader(path: logPath)
        SystemFile.removeStaleTemporaries(of: path)
        // Locked as a file that is also replaced by a rename (``StagedHistoryCaches/finish()``).
        let file = try SystemFile.openLockedReplaceable(path)
        defer { file.close() }
        // Opened under the lock: the log as it is now (a repair may have replaced it while this one waited).
        let reader = try LogReader(path: logPath)
        // Created here, or by another updater that has not written it yet: there was none.
        let empty = try file.size() == 0
        if empty { try SystemFile.syncDirectory(containing: path) }
        let previous: Lookup = empty ? .missing : lookup(file, path: path, header: reader.header, logPath: logPath)
        var list = try LabelList.origin(of: reader.header, path: logPath)
        var tree = HistoryTreeBuilder()
        if let base = reader.header.base {
            guard let builder = HistoryTreeBuilder(count: base.lastCutSeq, frontier: base.frontier) else {
                throw EventLogError(.corruptHeader, "the base block's history tree frontier is damaged", path: logPath)
            }
            tree = builder
        }
        var appender = Appender(logID: reader.header.logID, fullEvery: fullEvery, tree: tree, end: headerLength)
        var dropped: [HistoryIndexFile.Problem] = []
        var extendedFrom: UInt64?
        if !rebuild, let directory = previous.directory, directory.interval == interval {
            let found = checkpoint(atOrBefore: .max, in: directory, reader: reader, decodingRemoved: false)
            dropped = (directory.tail.map { [$0] } ?? []) + found.problems
            if let start = found.checkpoint, let startTree = start.tree,
                let entry = directory.entries.last(where: { $0.seq == start.position.seq })
            {
                let kept = directory.entries.filter { $0.seq <= entry.seq }
                appender.resume(
                    after: start.list, tree: startTree, seqs: kept.map(\.seq), deltas: kept.reversed().prefix { $0.isDelta }.count,
                    fullSize: kept.last { !$0.isDelta }?.imageLength ?? 0, removalCount: entry.removalCount, end: entry.end)
                list = start.list
                extendedFrom = entry.seq
                try reader.seek(
                    toSeq: start.position.seq + 1, atOffset: start.position.end, previousChecksum: start.position.checksum ?? 0)
            }
            if try file.size() != Int64(appender.end) { try file.truncate(to: Int64(appender.end)) }
        } else {
            try file.truncate(to: 0)
            try encodeHeader(logID: reader.header.logID, interval: interval, firstSeq: reader.header.firstSeq).withUnsafeBytes { raw in
                Result { () throws(EventLogError) in try file.write(raw, at: 0) }
            }.get()
        }
        var foldFailure: String?
        do {
            try reader.forEachView(from: reader.nextSeq) { view in
                appender.tree.append(payload: view.payload)
                appender.note(view.event)
                do throws(ProjectionError) {
                    try list.replay(view)
                } catch {
                    let offset = reader.lastPosition?.offset ?? 0
                    foldFailure = "record seq \(view.seq) at byte offset \(offset) contradicts the records before it: \(error.message)"
                    throw error
                }
                if case .removed(let id, _, let title, let isEnabled) = view.event, let slot = list.slot(of: id) {
                    appender.pending.append(slot: slot, id: id, seq: view.seq, title: title.string, isEnabled: isEnabled)
                }
                if view.seq % interval == 0, let position = reader.lastPosition {
                    try appender.append(list, at: position, to: file)
                }
                if view.seq % 4_096 == 0 { progress?(view.seq) }
            }
        } catch is ProjectionError {
        }
        try file.syncAll()
        return Update(
            seqs: appender.seqs, byteCount: appender.end, previous: previous, extendedFrom: extendedFrom, dropped: dropped,
            foldFailure: foldFailure)
    }

    /// Appends one checkpoint (a delta image when `isDelta`) at `end`, after the removal block of the labels
    /// removed since the checkpoint before it (if any): both bodies behind the
    /// room for their entries, synced, then the entries (until then zero:
    /// readers stop there). Returns the file's new end.
    static func append(
        seq: UInt64, image: [UInt8], isDelta: Bool, frontier: [HistoryHash], removals: PendingRemovals, removalCount: UInt64,
        to file: SystemFile, at end: Int
    ) throws(EventLogError) -> Int {
        var entries: [(offset: Int, bytes: [UInt8])] = []
        var at = end
        func put(_ body: [UInt8], magic: [UInt8], flags: UInt32 = 0, count: UInt64) throws(EventLogError) {
            let checksum = body.withUnsafeBytes { CRC32C.checksum($0) }
            entries.append((at, encodeEntry(magic: magic, flags: flags, seq: seq, length: body.count, count: count, checksum: checksum)))
            try body.withUnsafeBytes { raw in Result { () throws(EventLogError) in try file.write(raw, at: Int64(at + entryLength)) } }
                .get()
            at += entryLength + body.count
        }
        if removals.count > 0 { try put(removals.encoded(), magic: removalsMagic, count: UInt64(removals.count)) }
        var body = image
        body.reserveCapacity(image.count + hashLength * frontier.count)
        for hash in frontier { body.append(contentsOf: hash.bytes) }
        try put(body, magic: checkpointMagic, flags: isDelta ? deltaFlag : 0, count: removalCount)
        try file.syncData()
        for entry in entries {
            try entry.bytes.withUnsafeBytes { raw in Result { () throws(EventLogError) in try file.write(raw, at: Int64(entry.offset)) } }
                .get()
        }
        return at
    }
}
