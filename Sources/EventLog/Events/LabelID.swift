import Foundation

/// The stable identity of a label.
///
/// A `LabelID` wraps a UUID that is created once, when the label is first
/// added, and never changes afterwards: renaming, toggling or moving a label
/// keeps its id. It is never derived from the title. Its textual form is the
/// lowercase canonical UUID string (`8-4-4-4-12` hex digits).
public struct LabelID: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The underlying UUID.
    public let uuid: UUID

    /// Wraps an existing UUID.
    public init(_ uuid: UUID) { self.uuid = uuid }

    /// Creates a fresh, random identity.
    public init() { self.uuid = UUID() }

    /// Parses the canonical UUID text (any case). Returns `nil` for anything else.
    public init?(_ text: String) {
        guard let uuid = UUID(uuidString: text) else { return nil }
        self.uuid = uuid
    }

    /// Rebuilds an id from its 16 raw bytes (big-endian UUID byte order).
    public init(
        bytes: (
            UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
            UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
        )
    ) {
        self.uuid = UUID(uuid: bytes)
    }

    /// The lowercase canonical text of the UUID.
    public var description: String { uuid.uuidString.lowercased() }

    /// Orders ids by their raw bytes; useful for stable output, not for list order.
    public static func < (lhs: LabelID, rhs: LabelID) -> Bool {
        withUnsafeBytes(of: lhs.uuid.uuid) { l in
            withUnsafeBytes(of: rhs.uuid.uuid) { r in
                l.lexicographicallyPrecedes(r)
            }
        }
    }

    /// Encodes as the lowercase UUID string.
    ///
    /// - Throws: What the encoder's single-value container throws (e.g. `EncodingError`).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    /// Decodes from a UUID string (any case).
    ///
    /// - Throws: `DecodingError.dataCorrupted` when the string is not a UUID; what the
    ///   decoder throws when the value is not a string (`DecodingError.typeMismatch`,
    ///   `DecodingError.valueNotFound`).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let id = LabelID(text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "'\(text)' is not a UUID label id")
        }
        self = id
    }
}
