/// An error from the event log: a code, a readable message that names the
/// thing (path, byte offset, seq), and, where there is one, the OS cause.
public struct EventLogError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a stable machine-readable code.
    public enum Code: String, Sendable, Hashable, Codable {
        /// The file does not exist (and creation was not requested).
        case fileNotFound
        /// The path names a directory, a FIFO, a socket or a device, not a
        /// regular file; the message says which.
        case notARegularFile
        /// The file exists where a new log was to be created.
        case fileExists
        /// The file is empty (a log always has a header).
        case emptyFile
        /// The file does not start with the log magic.
        case notALog
        /// The log was written by a newer format version.
        case unsupportedVersion
        /// The file header fails its checksum or has impossible fields.
        case corruptHeader
        /// A record before the tail is damaged: checksum, length, or content.
        case corruptRecord
        /// A record's seq is not the one after the record before it.
        case seqGap
        /// Another writer holds the log's lock.
        case logInUse
        /// An event cannot be encoded: a title too long, an index out of range, …
        case invalidEvent
        /// An append's expected last seq did not match the log.
        case seqConflict
        /// An earlier failed write or sync left the log in an unknown state;
        /// the writer refuses appends until it is reopened.
        case poisoned
        /// The writer was closed.
        case closed
        /// An operating-system call failed.
        case ioError
        /// A ``LogReader`` was used from inside its own ``LogReader/forEachView(from:_:)``
        /// closure, which would move the buffer the view being visited points into.
        case readerBusy
        /// A server location cannot be used as written: not a PostgreSQL URL, no
        /// list named, a bad list or schema name (the PostgreSQL backend).
        case invalidLocation
        /// The server cannot be reached, or the connection to it was lost (the
        /// PostgreSQL backend). An append that failed with it may or may not
        /// have been committed; the backend's own retry settles which.
        case connectionFailed
        /// No server that accepts writes was found: the one reached is
        /// read-only (a standby, a primary fenced by a failover tool, or a
        /// session the connection string makes read-only). Nothing of the
        /// write took effect. Thrown at once when waiting cannot help (the
        /// connection string asks for read-only sessions, or its one host is a
        /// standby); else after the reconnect window, in which a failover
        /// could have made a server writable (the PostgreSQL backend).
        case readOnlyServer
        /// The server refused the login (wrong password, unknown role, no
        /// password to give).
        case authenticationFailed
        /// The server refused access: the role lacks a privilege it needs (no
        /// `CONNECT` on the database, no right to the schema or a table).
        case accessDenied
        /// The server refused a statement; the message carries its SQLSTATE.
        case serverError
        /// A statement or lock wait outlasted its timeout (`statement_timeout`,
        /// `lock_timeout`); nothing of the statement took effect.
        case timedOut
        /// The server's database has no list of this name (and creating it
        /// was not asked for).
        case listNotFound
        /// The server's database has no label store schema (and creating it
        /// was not asked for).
        case schemaMissing
        /// The server list was deleted and created again since it was opened:
        /// another history under the same name (its `log_id` differs). Nothing
        /// is read from or appended to it through the old handle; the message
        /// names the list and both ids. Reopen to use the new list.
        case listReplaced
        /// The connection was lost after an append was sent, and whether the
        /// server committed it could not be found out (the server stayed out
        /// of reach). The message names the batch id and how to look it up;
        /// appending the same entries again may double them.
        case outcomeUnknown
        /// A history proof does not check out: it does not fit its tree, or
        /// the hashes do not give the head it names (``InclusionProof``,
        /// ``ConsistencyProof``).
        case invalidProof
        /// The log does not extend a head it is checked against: a record up
        /// to that head was changed, removed, inserted or reordered, or the
        /// log is shorter than the head (the message names the first seq
        /// that differs where it can be found).
        case historyDiverged
        /// A seq asked for is before the first record the history holds: the
        /// records through it were cut off (``LogBase``) to an archive file
        /// that is not there, or dropped. The message names the seq, the
        /// archive file (or that the records were dropped) and the cut.
        case archived
        /// An archive file is not the one a base names: another log's, cut
        /// at other seqs, truncated, or its records changed since the cut
        /// (they do not end with the chained checksum the next file
        /// continues, or do not hash to the history tree's frontier the base
        /// keeps). The message names the archive and the first thing that
        /// differs; nothing is read from it.
        case archiveMismatch
    }

    /// The stable code.
    public var code: Code
    /// A sentence naming what and where.
    public var message: String
    /// The file concerned, if any.
    public var path: String?
    /// The byte offset in the file, if any.
    public var offset: Int64?
    /// The last seq known to be good, if any.
    public var lastGoodSeq: UInt64?
    /// The `errno` of the failing OS call, if any.
    public var errno: Int32?

    /// Creates an error.
    public init(
        _ code: Code, _ message: String, path: String? = nil, offset: Int64? = nil,
        lastGoodSeq: UInt64? = nil, errno: Int32? = nil
    ) {
        self.code = code
        self.message = message
        self.path = path
        self.offset = offset
        self.lastGoodSeq = lastGoodSeq
        self.errno = errno
    }

    /// `message`, followed by the path, offset and last good seq where known.
    public var description: String {
        var parts = [message]
        if let path { parts.append("path: \(path)") }
        if let offset { parts.append("byte offset: \(offset)") }
        if let lastGoodSeq { parts.append("last good seq: \(lastGoodSeq)") }
        if let errno { parts.append("cause: \(SystemFile.describe(errno: errno))") }
        return parts.joined(separator: "; ")
    }
}
