/// The records a ``HistoryProver`` hashes, read once from seq 1: a log file
/// through a new ``LogReader``, or any ``EventStorage`` (a server list, a
/// store's log). Not shared between threads.
public final class HistoryRecords {
    private enum Source {
        case file(LogReader)
        case storage(any EventStorage)
        /// A based log's archives (oldest first), then the log (``init(archives:log:name:)``).
        case joined(archives: [LogReader], log: LogReader)
        /// A based storage's archives (oldest first), then the storage (``init(archives:storage:chainValue:name:)``).
        case archivesThenStorage(archives: [LogReader], storage: any EventStorage, chainValue: UInt32)
    }

    private let source: Source
    /// What the messages call the history (a path, a list).
    public let name: String
    /// The payload of the record being passed (valid only inside the pass's closure).
    package private(set) var currentPayload: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0)
    /// Records read per call to a storage.
    private let pageSize = 4096
    /// Called every 4,096 records with the seq passed and where reading is:
    /// a byte offset in a file, the seq in a storage (for a progress line).
    package var onProgress: ((_ seq: UInt64, _ position: Int64) -> Void)?

    /// The records of the log file at `path`, read through a new ``LogReader``
    /// (each frame checked as any read checks it; a torn tail ends the history).
    ///
    /// - Throws: what ``LogReader/init(path:fileSystem:)`` throws.
    public convenience init(path: String) throws(EventLogError) {
        self.init(reader: try LogReader(path: path), name: path)
    }

    /// The records `reader` reads from its next seq, which must be its log's
    /// first (1, or a based log's first seq: the tree then continues from the
    /// frontier its base block holds, ``LogBase/frontier``).
    public init(reader: LogReader, name: String) {
        precondition(reader.nextSeq == reader.header.firstSeq, "a history is hashed from its first record")
        source = .file(reader)
        self.name = name
        if let base = reader.header.base { start = HistoryTreeBuilder(count: base.lastCutSeq, frontier: base.frontier) }
    }

    /// The records of a based log read through its archive: `archive`'s
    /// records, then `log`'s (``init(archives:log:name:)`` with one archive).
    public convenience init(archive: LogReader, log: LogReader, name: String) {
        self.init(archives: [archive], log: log, name: name)
    }

    /// The records of a based log read through its archives (``LogHistory/archives(from:)``,
    /// oldest first): each archive's records from its first, then `log`'s, so
    /// heads and proofs at seqs before the log's first are answered as by the
    /// log before the cuts. The pass checks each join: an archive ends at the
    /// seq before the next file's first, with the chained checksum that
    /// file's first record continues (else `corruptRecord`, naming the archive).
    ///
    /// - Precondition: every reader is at its first record, and every archive is the log's (the same log id).
    public init(archives: [LogReader], log: LogReader, name: String) {
        precondition(
            (archives + [log]).allSatisfy { $0.nextSeq == $0.header.firstSeq }, "a history is hashed from its first record")
        precondition(archives.allSatisfy { $0.header.logID == log.header.logID }, "not the log's archive")
        precondition(!archives.isEmpty, "a history read through archives has one")
        source = .joined(archives: archives, log: log)
        self.name = name
        if let base = archives[0].header.base { start = HistoryTreeBuilder(count: base.lastCutSeq, frontier: base.frontier) }
    }

    /// The records of a based storage read through its archive (``init(archives:storage:chainValue:name:)`` with one).
    public convenience init(archive: LogReader, storage: any EventStorage, chainValue: UInt32, name: String) {
        self.init(archives: [archive], storage: storage, chainValue: chainValue, name: name)
    }

    /// The records of a based storage (a server list whose first records were
    /// cut off, `EventStorage.base`) read through its archives (oldest
    /// first): their records, then the storage's from the seq after its base,
    /// as ``init(archives:log:name:)`` reads a based log file's. The pass
    /// checks each join; the last archive ends at the base's last cut seq
    /// with `chainValue`, the chained checksum the storage's first record continues.
    ///
    /// - Precondition: every archive is at its first record and `storage` has a base.
    public init(archives: [LogReader], storage: any EventStorage, chainValue: UInt32, name: String) {
        precondition(archives.allSatisfy { $0.nextSeq == $0.header.firstSeq }, "a history is hashed from its first record")
        precondition(storage.base != nil && !archives.isEmpty, "only a based storage has an archive")
        source = .archivesThenStorage(archives: archives, storage: storage, chainValue: chainValue)
        self.name = name
        if let base = archives[0].header.base { start = HistoryTreeBuilder(count: base.lastCutSeq, frontier: base.frontier) }
    }

    /// The tree over the records before the first one read: empty, or a based log's base frontier.
    package private(set) var start: HistoryTreeBuilder?

    /// The seq of the last record before the first one read (0, or the last one a based log's base cut).
    package var startSeq: UInt64 { start?.count ?? 0 }

    /// The records `storage` holds, read from seq 1; or, with `start` (the
    /// tree's frontier after `start.count` records: a based log's base,
    /// ``LogBase/frontier``), from seq `start.count + 1`, continuing that tree.
    public init(storage: any EventStorage, name: String, start: HistoryTreeBuilder? = nil) {
        source = .storage(storage)
        self.name = name
        self.start = start.flatMap { $0.count > 0 ? $0 : nil }
    }

    /// The last seq of the history now.
    ///
    /// - Throws: what reading throws.
    func lastSeq() throws(EventLogError) -> UInt64 {
        switch source {
        case .storage(let storage), .archivesThenStorage(_, let storage, _): return try storage.refreshLastSeq()
        case .file(let reader), .joined(_, log: let reader):
            // A second reader of the same file, so the pass still starts at seq 1.
            let counter = try LogReader(path: reader.path)
            var last = reader.header.firstSeq - 1
            do {
                try counter.forEachView { last = $0.seq }
            } catch let error as EventLogError {
                throw error
            } catch {
                throw EventLogError(.ioError, "\(error)")
            }
            return last
        }
    }

    /// Calls `body` with each record's seq and leaf hash, from seq `first`
    /// (records before it are read and checked but not hashed) through
    /// `lastSeq` or the end of the history. A pass starts where the last one
    /// ended: pass each range once, in order.
    package func forEachLeaf(from first: UInt64 = 1, through lastSeq: UInt64, _ body: (UInt64, HistoryHash) -> Void) throws(EventLogError) {
        try forEachPayload(from: first, through: lastSeq) { seq, payload in body(seq, .leaf(payload: payload)) }
    }

    /// Calls `body` with each record's seq and payload (valid only during the
    /// call), from seq `first` through `lastSeq` or the end of the history, as
    /// ``forEachLeaf(from:through:_:)`` does with their leaves.
    package func forEachPayload(
        from first: UInt64 = 1, through lastSeq: UInt64, _ body: (UInt64, UnsafeRawBufferPointer) -> Void
    ) throws(EventLogError) {
        switch source {
        case .file(let reader):
            _ = try pass(reader, from: first, through: lastSeq, body)
        case .joined(let archives, let log):
            guard
                try pass(
                    archives, before: log.header.firstSeq, chainValue: log.header.previousChecksum, next: log.path, from: first,
                    through: lastSeq, body)
            else { break }
            _ = try pass(log, from: first, through: lastSeq, body)
        case .archivesThenStorage(let archives, let storage, let chainValue):
            let cut = storage.base?.lastCutSeq ?? 0
            guard try pass(archives, before: cut + 1, chainValue: chainValue, next: name, from: first, through: lastSeq, body) else {
                break
            }
            try pass(storage, from: max(first, cut + 1), through: lastSeq, body)
        case .storage(let storage):
            try pass(storage, from: max(first, startSeq + 1), through: lastSeq, body)
        }
        currentPayload = UnsafeRawBufferPointer(start: nil, count: 0)
    }

    /// The archives' part of a pass (oldest first), each checked to join the
    /// file after it (the last one: the part starting at seq `end`, whose
    /// first record continues `chainValue`); returns whether the pass goes on.
    private func pass(
        _ archives: [LogReader], before end: UInt64, chainValue: UInt32, next: String, from first: UInt64, through lastSeq: UInt64,
        _ body: (UInt64, UnsafeRawBufferPointer) -> Void
    ) throws(EventLogError) -> Bool {
        for (index, archive) in archives.enumerated() {
            let following = index + 1 < archives.count ? archives[index + 1] : nil
            let cut = (following?.header.firstSeq ?? end) - 1
            guard first <= cut else { continue }
            guard try pass(archive, from: first, through: lastSeq, body) else { return false }
            try checkJoin(
                archive, cut: cut, chainValue: following?.header.previousChecksum ?? chainValue, log: following?.path ?? next)
        }
        return true
    }

    /// Throws unless `archive`, read to its end, ends at seq `cut` with `chainValue` (what the log after it continues).
    private func checkJoin(_ archive: LogReader, cut: UInt64, chainValue: UInt32, log: String) throws(EventLogError) {
        guard archive.lastPosition?.seq == cut, archive.lastPosition?.checksum ?? chainValue == chainValue else {
            throw EventLogError(
                .corruptRecord,
                "\(archive.path): the archive does not join \(log): it ends at seq \(archive.lastPosition?.seq ?? archive.header.firstSeq - 1), not at seq \(cut) with the chained checksum the log's first record continues",
                path: archive.path)
        }
    }

    /// A storage's part of a pass: its records from `first` through `lastSeq`.
    private func pass(
        _ storage: any EventStorage, from first: UInt64, through lastSeq: UInt64, _ body: (UInt64, UnsafeRawBufferPointer) -> Void
    )
        throws(EventLogError)
    {
        var next = first
        while next <= lastSeq {
            let records = try storage.read(from: next, maxCount: pageSize)
            guard !records.isEmpty else { return }
            for record in records {
                guard record.seq <= lastSeq else { return }
                let payload = try record.storedPayload()
                payload.withUnsafeBytes { bytes in
                    currentPayload = bytes
                    body(record.seq, bytes)
                }
                next = record.seq + 1
            }
            onProgress?(next - 1, Int64(next - 1))
        }
    }

    /// One file's part of a pass: its records from `first` through `lastSeq`;
    /// returns whether the pass goes on past it (it did not reach `lastSeq`).
    private func pass(
        _ reader: LogReader, from first: UInt64, through lastSeq: UInt64, _ body: (UInt64, UnsafeRawBufferPointer) -> Void
    )
        throws(EventLogError) -> Bool
    {
        struct Done: Error {}
        do {
            // Frames checked (length, chained checksum, seq), payloads hashed as stored, not decoded.
            try reader.forEachPayload(from: first) { seq, payload in
                guard seq <= lastSeq else { throw Done() }
                currentPayload = payload
                body(seq, payload)
                if seq & 4095 == 0, let onProgress { onProgress(seq, reader.offset) }
                if seq == lastSeq { throw Done() }
            }
        } catch is Done {
            return false
        } catch let error as EventLogError {
            throw error
        } catch {
            throw EventLogError(.ioError, "\(error)")
        }
        return true
    }
}
