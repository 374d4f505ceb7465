/// A storage that hands out its records' payloads as it holds them, with
/// the records, so that a reader hashing them into the history tree
/// (docs/AUDIT.md) does not encode each record again (a syncing device
/// proving the server's heads: docs/SYNC.md, "Proving the server's history").
package protocol PayloadReadingStorage: EventStorage {
    /// ``EventStorage/read(from:maxCount:)`` with each record's payload, in the same order.
    func readWithPayloads(from seq: UInt64, maxCount: Int) throws(EventLogError) -> (records: [EventRecord], payloads: StoredPayloads)
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
