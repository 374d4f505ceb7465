/// Why a snapshot file was not used. Opening a store never fails because of
/// a snapshot: it reports the error (``SnapshotReport``) and replays the log.
public struct SnapshotError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, as a stable code.
    public enum Code: String, Sendable, Hashable, Codable {
        /// The file does not start with the snapshot magic, or is too short to be one.
        case notASnapshot
        /// The file was written by a newer format version.
        case unsupportedVersion
        /// The checksum does not match: the file is damaged or was cut short.
        case checksumMismatch
        /// The checksum matches but the content is impossible (counts, seqs, duplicates, …).
        case invalidContent
        /// The snapshot belongs to another log (its log id differs).
        case foreignLog
        /// The snapshot is ahead of the log (its seq is past the log's last seq).
        case stale
        /// The log's record at the snapshot's seq is not the one the snapshot was taken after.
        case historyMismatch
        /// Reading or writing the file failed.
        case ioError
    }

    /// The code.
    public var code: Code
    /// A sentence naming what is wrong and where.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `code: message`.
    public var description: String { "\(code.rawValue): \(message)" }
}
