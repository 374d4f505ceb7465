/// A storage that hands out its records' payloads as it holds them, every
/// check of a read made but their decoding: the reader decodes them where
/// it likes (a syncing device: on another thread than the one waiting for
/// the next page) and hashes them into the history tree (docs/AUDIT.md)
/// without encoding each record again (docs/SYNC.md, "Proving the server's history").
package protocol PayloadReadingStorage: EventStorage {
    /// The payloads ``EventStorage/read(from:maxCount:)`` would decode, from
    /// `first` (`seq`, or a based storage's first when `seq` is before it) on.
    func readPayloads(from seq: UInt64, maxCount: Int) throws(EventLogError) -> (first: UInt64, payloads: StoredPayloads)

    /// What messages about a payload call the storage, and the path they name.
    var payloadSource: (name: String, path: String) { get }
}

/// Records' payloads one after another: payload `i` is
/// `bytes[offsets[i] ..< offsets[i + 1]]`.
package struct StoredPayloads: Sendable {
    package var bytes: [UInt8] = []
    package var offsets: [Int] = [0]

    package init() {}

    /// The number of payloads.
    package var count: Int { offsets.count - 1 }

    /// Appends one payload.
    package mutating func append(_ payload: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: payload)
        offsets.append(bytes.count)
    }

    /// The records the payloads hold, which must be seqs `first`, `first + 1`, …
    ///
    /// - Throws: `corruptRecord` naming `source` and the seq of a payload
    ///   that does not decode, or holds another seq (as the storage's own read would).
    package func records(first: UInt64, source: (name: String, path: String)) throws(EventLogError) -> [EventRecord] {
        var records: [EventRecord] = []
        records.reserveCapacity(count)
        try bytes.withUnsafeBytes { all in
            Result { () throws(EventLogError) in
                for i in 0..<count { records.append(try view(i, in: all, first: first, source: source).record) }
            }
        }.get()
        return records
    }

    /// Calls `body` with a view of each payload in turn (valid during the
    /// call), which must be seqs `first`, `first + 1`, … — the checks of
    /// ``records(first:source:)``, without making the records.
    ///
    /// - Throws: what ``records(first:source:)`` throws, or what `body` throws (which ends the walk).
    package func forEachView(first: UInt64, source: (name: String, path: String), _ body: (EventRecordView) throws -> Void) throws {
        try bytes.withUnsafeBytes { all in
            for i in 0..<count { try body(try view(i, in: all, first: first, source: source)) }
        }
    }

    /// Payload `i` of `all` (``bytes``) parsed, checked to hold seq `first + i`.
    private func view(_ i: Int, in all: UnsafeRawBufferPointer, first: UInt64, source: (name: String, path: String))
        throws(EventLogError) -> EventRecordView
    {
        let seq = first + UInt64(i)
        let payload = UnsafeRawBufferPointer(rebasing: all[offsets[i]..<offsets[i + 1]])
        let view: EventRecordView
        do throws(EventLogError) {
            view = try EventRecordView.parse(payload: payload)
        } catch {
            throw EventLogError(
                .corruptRecord, "\(source.name): the payload of seq \(seq) cannot be decoded: \(error.message)",
                path: source.path, lastGoodSeq: seq - 1)
        }
        guard view.seq == seq else {
            throw EventLogError(
                .corruptRecord, "\(source.name): the row of seq \(seq) holds a payload of seq \(view.seq)",
                path: source.path, lastGoodSeq: seq - 1)
        }
        return view
    }

    /// The leaf hash of each payload, in order (several at a time with the CPU's SHA instructions).
    package func leafHashes() -> [HistoryHash] {
        guard count > 0 else { return [] }
        var hashes = [HistoryHash](repeating: .empty, count: count)
        bytes.withUnsafeBytes { bytes in
            offsets.withUnsafeBufferPointer { offsets in
                hashes.withUnsafeMutableBufferPointer { out in
                    HistoryHash.leaves(bytes.baseAddress!, offsets: offsets.baseAddress!, count: out.count, into: out.baseAddress!)
                }
            }
        }
        return hashes
    }
}
