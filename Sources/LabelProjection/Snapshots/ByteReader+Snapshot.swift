import EventLog

/// Snapshot files are read with the log codec's ``ByteReader`` (and written
/// with its `ByteWriter`). These read one field each and turn a failure into
/// a ``SnapshotError`` that names the field (`what`) and the byte it is at.
extension ByteReader {
    mutating func u8(_ what: @autoclosure () -> String) throws(SnapshotError) -> UInt8 {
        try field(what) { (r) throws(DecodeFailure) in try r.u8() }
    }

    mutating func u16(_ what: @autoclosure () -> String) throws(SnapshotError) -> UInt16 {
        try field(what) { (r) throws(DecodeFailure) in try r.u16() }
    }

    mutating func u32(_ what: @autoclosure () -> String) throws(SnapshotError) -> UInt32 {
        try field(what) { (r) throws(DecodeFailure) in try r.u32() }
    }

    mutating func u64(_ what: @autoclosure () -> String) throws(SnapshotError) -> UInt64 {
        try field(what) { (r) throws(DecodeFailure) in try r.u64() }
    }

    /// A canonical LEB128 varint of at most 10 bytes. (Read without the
    /// closure of the other fields: checkpoints read millions of them.)
    @inline(__always)
    mutating func varint(_ what: @autoclosure () -> String) throws(SnapshotError) -> UInt64 {
        do throws(DecodeFailure) { return try varint() } catch { throw Self.failure(error, reading: what(), at: position) }
    }

    mutating func id(_ what: @autoclosure () -> String) throws(SnapshotError) -> LabelID {
        try field(what) { (r) throws(DecodeFailure) in try r.id() }
    }

    /// A count that must be at most `limit` (checked before anything is allocated for it).
    @inline(__always)
    mutating func count(_ what: @autoclosure () -> String, limit: Int) throws(SnapshotError) -> Int {
        let start = position
        let v = try varint(what())
        guard v <= UInt64(limit) else {
            throw SnapshotError(.invalidContent, "\(what()) \(v) at byte \(start) is more than the \(limit) the rest of the file can hold")
        }
        return Int(v)
    }

    /// `count` slot numbers in ascending order, each written as its gap after
    /// the one before (the first as itself), each below `slotCount`; `what`
    /// names them in errors (`live slot`, `changed slot`).
    mutating func ascendingSlotNumbers(_ count: Int, below slotCount: Int, naming what: String) throws(SnapshotError) -> [Int] {
        var numbers: [Int] = []
        numbers.reserveCapacity(count)
        var next = 0
        for index in 0..<count {
            let number = next + (try self.count("the number of \(what) \(index)", limit: slotCount))
            guard number < slotCount else {
                throw SnapshotError(.invalidContent, "\(what) \(index) is slot \(number), past the \(slotCount) slots")
            }
            numbers.append(number)
            next = number + 1
        }
        return numbers
    }

    /// `count` seqs, each written as how far it lies before `seq` (a varint),
    /// each at least 1; `what` names the `k`th in errors (`changed slot 4`)
    /// and `field` what the seq is to it (`seq`, `version`).
    mutating func seqsBefore(
        _ seq: UInt64, count: Int, naming what: (Int) -> String, field: String
    ) throws(SnapshotError) -> [UInt64] {
        var seqs: [UInt64] = []
        seqs.reserveCapacity(count)
        for k in 0..<count {
            let back = try varint("the \(field) of \(what(k))")
            guard back < seq else { throw SnapshotError(.invalidContent, "\(what(k)) has a \(field) before seq 1") }
            seqs.append(seq - back)
        }
        return seqs
    }

    /// A string's bytes, checked to be valid UTF-8, borrowed from the input
    /// (no copy, no allocation).
    mutating func utf8(_ what: @autoclosure () -> String, maxBytes: Int) throws(SnapshotError) -> UnsafeRawBufferPointer {
        let start = position
        let length = try count("\(what()) length", limit: maxBytes)
        guard length <= remaining else {
            throw SnapshotError(.invalidContent, "\(what()) at byte \(start) is \(length) bytes long, past the end of the snapshot")
        }
        let slice = try field(what) { (r) throws(DecodeFailure) in try r.bytes(length) }
        guard UTF8Validation.isValid(slice) else {
            throw SnapshotError(.invalidContent, "\(what()) at byte \(start) is not valid UTF-8")
        }
        return slice
    }

    /// `read` from this reader, its failure worded for the field `what`.
    private mutating func field<T>(_ what: () -> String, _ read: (inout ByteReader) throws(DecodeFailure) -> T) throws(SnapshotError) -> T {
        do throws(DecodeFailure) {
            return try read(&self)
        } catch {
            throw Self.failure(error, reading: what(), at: position)
        }
    }

    /// The error for `error`, which reading the field `what` at byte `position` threw.
    private static func failure(_ error: DecodeFailure, reading what: String, at position: Int) -> SnapshotError {
        let at = error.offset ?? position
        switch error.fault {
        case .truncated: return SnapshotError(.invalidContent, "the snapshot ends inside \(what) at byte \(at)")
        case .varintOverflow: return SnapshotError(.invalidContent, "\(what) overflows 64 bits at byte \(at)")
        case .overlongVarint: return SnapshotError(.invalidContent, "\(what) is an overlong varint at byte \(at)")
        case .invalid: return SnapshotError(.invalidContent, "\(what) at byte \(at) is invalid: \(error.reason)")
        }
    }
}
