/// The two hashes of the history tree (RFC 9162 §2.1.1, with SHA-256): a
/// record's leaf is `SHA-256(0x00 ‖ payload)`, an inner node
/// `SHA-256(0x01 ‖ left ‖ right)`. The prefixes keep a leaf from ever being
/// taken for a node (a second-preimage defence).
extension HistoryHash {
    /// The head of the empty history: SHA-256 of no bytes.
    public static let empty: HistoryHash = SHA256.digest([UInt8]())

    /// The leaf hash of a record whose payload is `payload` (the record's
    /// exact bytes: a file frame's payload, a server row's `payload`).
    public static func leaf(payload: some Collection<UInt8>) -> HistoryHash {
        let array = Array(payload)
        return array.withUnsafeBytes { leaf(payload: $0) }
    }

    /// The leaf hash of a record whose payload is `payload`.
    package static func leaf(payload: UnsafeRawBufferPointer) -> HistoryHash {
        prefixed(0x00, payload)
    }

    /// The leaf hash of `record`: of its payload as it is stored (the bytes
    /// it was read from, else its encoding), what every pass over a history hashes.
    ///
    /// - Throws: `EventLogError` when the record cannot be encoded.
    package static func leaf(of record: EventRecord) throws(EventLogError) -> HistoryHash {
        .leaf(payload: try record.storedPayload())
    }

    /// The inner node over `left` and `right`.
    public static func node(_ left: HistoryHash, _ right: HistoryHash) -> HistoryHash {
        // 65 bytes: two blocks, the second holding right's last byte and the padding.
        withUnsafeTemporaryAllocation(byteCount: 128, alignment: 8) { buffer in
            let base = buffer.baseAddress!
            nodeBlocks(left, right, into: base)
            var state = SHA256.initialState
            SHA256.compress(&state, base, blocks: 2)
            return HistoryHash(state: state)
        }
    }

    /// The two blocks of `node(left, right)`'s message (`0x01 ‖ left ‖ right`, padded) at `base`.
    @inline(__always)
    static func nodeBlocks(_ left: HistoryHash, _ right: HistoryHash, into base: UnsafeMutableRawPointer) {
        base.initializeMemory(as: UInt8.self, repeating: 0, count: 128)
        base.storeBytes(of: 0x01, as: UInt8.self)
        left.store(to: base + 1)
        right.store(to: base + 33)
        base.storeBytes(of: 0x80, toByteOffset: 65, as: UInt8.self)
        base.storeBytes(of: UInt64(65 * 8).bigEndian, toByteOffset: 120, as: UInt64.self)
    }

    /// SHA-256 of one byte `prefix` then `bytes`, padded in one stack buffer.
    private static func prefixed(_ prefix: UInt8, _ bytes: UnsafeRawBufferPointer) -> HistoryHash {
        let length = 1 + bytes.count
        let padded = (length + 9 + 63) / 64 * 64
        return withUnsafeTemporaryAllocation(byteCount: padded, alignment: 8) { buffer in
            let base = buffer.baseAddress!
            base.storeBytes(of: prefix, as: UInt8.self)
            if let source = bytes.baseAddress { (base + 1).copyMemory(from: source, byteCount: bytes.count) }
            (base + length).initializeMemory(as: UInt8.self, repeating: 0, count: padded - length)
            base.storeBytes(of: 0x80, toByteOffset: length, as: UInt8.self)
            base.storeBytes(of: (UInt64(length) &* 8).bigEndian, toByteOffset: padded - 8, as: UInt64.self)
            var state = SHA256.initialState
            SHA256.compress(&state, base, blocks: padded / 64)
            return HistoryHash(state: state)
        }
    }
}
