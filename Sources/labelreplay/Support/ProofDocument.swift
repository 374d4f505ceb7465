import EventLog

/// The JSON form of a history proof, as `prove --json` writes it and
/// `check-proof` reads it (docs/AUDIT.md):
///
/// - inclusion: `{"kind": "inclusion", "seq", "head": {"seq", "hash"}, "path": [hex…], "payload": hex}`
/// - consistency: `{"kind": "consistency", "old": {"seq", "hash"}, "new": {"seq", "hash"}, "path": [hex…]}`
struct ProofDocument: Codable {
    /// `inclusion` or `consistency`.
    var kind: String
    /// The record proven (inclusion).
    var seq: UInt64?
    /// The head the record is under (inclusion).
    var head: HistoryHead?
    /// The earlier and the later head (consistency).
    var old: HistoryHead?
    var new: HistoryHead?
    /// The proof's hashes, in order.
    var path: [HistoryHash]
    /// The record's payload, hexadecimal (inclusion): what the leaf hashes.
    var payload: String?

    /// The document of an inclusion proof of the record whose payload is `payload`.
    init(_ proof: InclusionProof, payload: [UInt8]) {
        kind = "inclusion"
        seq = proof.seq
        head = proof.head
        path = proof.path
        self.payload = Self.hex(payload)
    }

    /// The document of a consistency proof.
    init(_ proof: ConsistencyProof) {
        kind = "consistency"
        old = proof.old
        new = proof.new
        path = proof.path
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
    }

    /// The bytes of `text`, an even number of hexadecimal digits; `nil` otherwise.
    static func bytes(hex text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for i in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[i...i + 1], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
        }
        return bytes
    }
}
