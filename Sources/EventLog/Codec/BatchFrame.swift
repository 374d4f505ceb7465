import Foundation

/// The body of a batch frame of log file format 4 (docs/FORMAT.md, "Batch
/// frames (version 4)"): the constants its encoder (`BatchFrameEncoder`) and
/// decoder (`BatchFrameDecoder`) share, so the layout's numbers are written
/// once.
enum BatchFrame {
    /// Bits 0–2 of a record's first byte: the kind's code, 1…7 (``EventKind/code``).
    static let kindMask: UInt8 = 0x07
    /// Bit 3 of a record's first byte: an actor follows, as a string code.
    static let actorFlag: UInt8 = 0x08
    /// Bit 4 of a record's first byte: a note follows, as a string code.
    static let noteFlag: UInt8 = 0x10
    /// Bit 5 of a record's first byte, on `renamed` and `removed` only: the
    /// old title (`renamed`) or the title (`removed`) is the label's last
    /// title stated earlier in the frame, and is not coded.
    static let sameTitleFlag: UInt8 = 0x20

    /// The code of a literal id or string: the single byte `0` (a reference is odd).
    static let literalCode: UInt64 = 0

    /// Most records in one frame.
    static let maxRecords = 65_536
    /// Fewest bytes a record takes: its kind byte, its time delta and at
    /// least one byte of fields (an empty reorder's count).
    static let minRecordBytes = 3
    /// Most bytes in a body: what one frame holds (``LogLimits/maxPayloadBytes``).
    static let maxBodyBytes = LogLimits.maxPayloadBytes
    /// Most bytes the canonical (format 2) payloads of one frame's records add
    /// up to: a frame decodes to no more than 64 MiB of payloads, however small
    /// its references make it.
    static let maxCanonicalBytes = LogLimits.maxPayloadBytes
    /// Most words in a title: one of ``LogLimits/maxTitleBytes`` spaces has one more.
    static let maxTitleWords = LogLimits.maxTitleBytes + 1
    /// The byte that separates a title's words (U+0020 SPACE).
    static let wordSeparator: UInt8 = 0x20

    /// The code of a reference to entry `k` of a table: `k << 1 | 1`.
    @inline(__always)
    static func referenceCode(_ k: Int) -> UInt64 { UInt64(k) << 1 | 1 }

    /// The code of a literal word of `length` bytes: `length << 1`.
    @inline(__always)
    static func literalWordCode(length: Int) -> UInt64 { UInt64(length) << 1 }

    /// Whether two strings are the same UTF-8 bytes: the codec's equality of
    /// titles (the same-title flag). Not `String`'s `==`, which is Unicode
    /// canonical equivalence: `é` and `e` + U+0301 are equal to it, not here.
    static func sameUTF8(_ a: String, _ b: String) -> Bool {
        let x = a.utf8, y = b.utf8
        guard x.count == y.count else { return false }
        let fast: Bool?? = x.withContiguousStorageIfAvailable { p in
            y.withContiguousStorageIfAvailable { q in p.count == 0 || memcmp(p.baseAddress!, q.baseAddress!, p.count) == 0 }
        }
        if case .some(.some(let equal)) = fast { return equal }
        return x.elementsEqual(y)
    }
}
