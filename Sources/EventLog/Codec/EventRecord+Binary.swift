/// The decoding of a record payload (docs/FORMAT.md, "Payload"): the parse
/// itself is `EventRecordView+Parsing.swift`; the encoding is in
/// `EventRecord+Encoding.swift`.
extension EventRecord {
    /// Decodes one payload: parses it into an ``EventRecordView`` (every
    /// check of the format is there) and copies that out.
    static func decodePayload(_ payload: UnsafeRawBufferPointer) throws(DecodeFailure) -> EventRecord {
        try EventRecordView.parse(payload).record
    }

    /// Decodes a payload from bytes (for tools and tests).
    ///
    /// - Throws: ``EventLogError/Code/corruptRecord`` naming the reason (truncated,
    ///   unknown kind or flags, invalid UTF-8, trailing bytes, …); the error has no path
    ///   or offset.
    /// - Complexity: O(b) in the payload's bytes (they are copied once, then decoded).
    public static func decode(payload: some Collection<UInt8>) throws(EventLogError) -> EventRecord {
        let bytes = Array(payload)
        let result: Result<EventRecord, DecodeFailure> = bytes.withUnsafeBytes { buffer in
            Result { () throws(DecodeFailure) -> EventRecord in try decodePayload(buffer) }
        }
        switch result {
        case .success(let record): return record
        case .failure(let failure):
            throw EventLogError(.corruptRecord, "record payload cannot be decoded: \(failure.reason)")
        }
    }
}
