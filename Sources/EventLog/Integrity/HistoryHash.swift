/// A 32-byte SHA-256 value of the history tree: a record's leaf hash, an
/// inner node, or the head of a history (``HistoryHead``).
///
/// Written as 64 lowercase hexadecimal digits (``hex``), which is also its
/// `Codable` form. Comparing two values compares all 32 bytes.
public struct HistoryHash: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The digest's eight 32-bit words, as SHA-256 produces them (the bytes
    /// are each word big-endian, in order).
    package var words: SIMD8<UInt32>

    package init(state: SHA256.State) {
        words = SIMD8(state.0, state.1, state.2, state.3, state.4, state.5, state.6, state.7)
    }

    /// The value whose bytes are `bytes`; `nil` unless there are exactly 32.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 32 else { return nil }
        let array = Array(bytes)
        var words = SIMD8<UInt32>()
        for i in 0..<8 {
            words[i] =
                UInt32(array[i * 4]) << 24 | UInt32(array[i * 4 + 1]) << 16 | UInt32(array[i * 4 + 2]) << 8 | UInt32(array[i * 4 + 3])
        }
        self.words = words
    }

    /// The value written as `hex`: exactly 64 hexadecimal digits (either case); `nil` otherwise.
    public init?(hex: some StringProtocol) {
        let digits = Array(hex.utf8)
        guard digits.count == 64 else { return nil }
        var bytes = [UInt8]()
        bytes.reserveCapacity(32)
        for i in stride(from: 0, to: 64, by: 2) {
            guard let high = Self.nibble(digits[i]), let low = Self.nibble(digits[i + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        self.init(bytes: bytes)
    }

    /// The 32 bytes.
    public var bytes: [UInt8] {
        var result = [UInt8]()
        result.reserveCapacity(32)
        for i in 0..<8 {
            let word = words[i]
            result.append(contentsOf: [
                UInt8(word >> 24), UInt8(truncatingIfNeeded: word >> 16), UInt8(truncatingIfNeeded: word >> 8),
                UInt8(truncatingIfNeeded: word)
            ])
        }
        return result
    }

    /// The 64 lowercase hexadecimal digits.
    public var hex: String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(64)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// ``hex``.
    public var description: String { hex }

    /// Decodes the 64-digit hexadecimal form.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let value = HistoryHash(hex: text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "'\(text)' is not 64 hexadecimal digits"))
        }
        self = value
    }

    /// Encodes the 64-digit hexadecimal form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }

    /// Writes the 32 bytes at `destination`.
    package func store(to destination: UnsafeMutableRawPointer) {
        for i in 0..<8 { destination.storeBytes(of: words[i].bigEndian, toByteOffset: i * 4, as: UInt32.self) }
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
