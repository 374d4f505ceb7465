import EventLog

/// Title text as the fold reads it: a `String` (an ``EventRecord``'s) or
/// bytes borrowed from a log buffer. The fold compares and stores bytes, and
/// makes a `String` only for a ``Label`` it must return or an error message.
protocol FoldText {
    /// Calls `body` with the text's UTF-8 bytes.
    func withUTF8Bytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R
    /// The number of UTF-8 bytes.
    var utf8Count: Int { get }
    /// The text as a `String`.
    var stringValue: String { get }
}

extension String: FoldText {
    @inline(__always)
    func withUTF8Bytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        var copy = self
        return try copy.withUTF8 { try body(UnsafeRawBufferPointer($0)) }
    }

    var utf8Count: Int { utf8.count }
    var stringValue: String { self }
}

extension UTF8Text: FoldText {
    @inline(__always)
    func withUTF8Bytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { try body(bytes) }
    var utf8Count: Int { count }
    var stringValue: String { string }
}
