/// Every `SparseIndex.stride`-th record's offset, to start reads near a seq.
///
/// Entries can be unknown (a scan that resumed after a snapshot's record did
/// not see the records before it); a lookup then starts at the nearest known
/// entry before, or at the first record.
struct SparseIndex: Sendable {
    static let stride: UInt64 = 1024
    /// `offsets[k]` is the offset of seq `k * stride + 1`, or -1 if unknown.
    private(set) var offsets: [Int64] = []
    /// The log's first record: its seq and offset (seq 1 after the header, unless the log is based).
    var first: (seq: UInt64, offset: Int64) = (1, Int64(LogFormat.headerLength))

    mutating func note(seq: UInt64, offset: Int64) {
        guard (seq - 1) % Self.stride == 0 else { return }
        let k = Int((seq - 1) / Self.stride)
        if k < offsets.count {
            offsets[k] = offset
        } else {
            if k > offsets.count { offsets.append(contentsOf: repeatElement(-1, count: k - offsets.count)) }
            offsets.append(offset)
        }
    }

    /// The closest known (seq, offset) at or before `seq`: an indexed one, or
    /// else the first record's (`nil` only for seq 0).
    func start(for seq: UInt64) -> (seq: UInt64, offset: Int64)? {
        guard seq >= first.seq else { return nil }
        var k = min(Int((seq - 1) / Self.stride), offsets.count - 1)
        while k >= 0 && offsets[k] < 0 { k -= 1 }
        guard k >= 0, UInt64(k) * Self.stride + 1 >= first.seq else { return first }
        return (UInt64(k) * Self.stride + 1, offsets[k])
    }

    /// The index of the same records after a cut of the open log: the log
    /// now starts with seq `firstSeq` at `firstOffset`, and every later
    /// record moved by `shift` bytes. Entries before `firstSeq` are forgotten.
    mutating func rebase(firstSeq: UInt64, firstOffset: Int64, shift: Int64) {
        for k in offsets.indices {
            if UInt64(k) * Self.stride + 1 < firstSeq {
                offsets[k] = -1
            } else if offsets[k] >= 0 {
                offsets[k] += shift
            }
        }
        first = (firstSeq, firstOffset)
    }

    mutating func truncate(after lastSeq: UInt64) {
        let keep = lastSeq == 0 ? 0 : Int((lastSeq - 1) / Self.stride) + 1
        if offsets.count > keep { offsets.removeLast(offsets.count - keep) }
    }
}
