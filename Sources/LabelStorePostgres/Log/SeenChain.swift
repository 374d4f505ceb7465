#if Postgres
/// The chained checksums of the last records a log handle appended, or read
/// and checked, one per seq for up to ``capacity`` consecutive seqs: what the
/// handle can compare with the server's rows to name the first seq at which
/// the server's history is no longer the one the handle saw (after a failover
/// to a standby that had not received the last records, or a hand edit).
///
/// Consecutive seqs only: a seq after a gap (records other hosts appended
/// that this handle did not read) starts the window again there. Held behind
/// the log's `Mutex`; a value type.
struct SeenChain: Sendable {
    /// The most seqs remembered (256 KiB of checksums).
    static let capacity = 65_536

    /// The seq of `values[0]`.
    private(set) var firstSeq: UInt64 = 0
    /// The chained checksum of each seq from `firstSeq` on.
    private var values: [UInt32] = []

    /// The seqs remembered, or `nil` before the first.
    var seqs: ClosedRange<UInt64>? { values.isEmpty ? nil : firstSeq...(firstSeq + UInt64(values.count) - 1) }

    /// The checksum remembered at `seq`, if it is in the window.
    func value(at seq: UInt64) -> UInt32? {
        guard let seqs, seqs.contains(seq) else { return nil }
        return values[Int(seq - firstSeq)]
    }

    /// Remembers `crc` as the chained checksum of `seq`: extends the window when
    /// `seq` follows it, replaces the window's tail from `seq` when it is
    /// inside it (a record read again), and starts a new window otherwise.
    mutating func note(seq: UInt64, crc: UInt32) {
        if let seqs, seq >= seqs.lowerBound, seq <= seqs.upperBound + 1 {
            values.removeSubrange(Int(seq - firstSeq)...)
        } else {
            values.removeAll(keepingCapacity: true)
            firstSeq = seq
        }
        values.append(crc)
        if values.count >= 2 * Self.capacity {
            values.removeFirst(Self.capacity)
            firstSeq += UInt64(Self.capacity)
        }
    }

    /// Remembers the checksums of the consecutive seqs `first, first + 1, …`.
    mutating func note(from first: UInt64, crcs: [UInt32]) {
        for (i, crc) in crcs.enumerated() { note(seq: first + UInt64(i), crc: crc) }
    }
}
#endif
