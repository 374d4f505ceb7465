import EventLog

extension StoreError {
    /// What went wrong, as one flat set of cases to `switch` over or `catch`:
    /// ``Code`` without its payloads, with the log's failures (which arrive
    /// wrapped in ``Code/storage(_:)``) lifted to the top.
    ///
    /// ```swift
    /// do {
    ///     try store.rename(id, to: "Groceries")
    /// } catch where error.kind == .labelRemoved {
    ///     // the row is stale: drop it
    /// } catch where error.kind == .logInUse {
    ///     // another process has the log open for writing
    /// } catch {
    ///     print(error.kind, error.message)
    /// }
    /// ```
    ///
    /// The raw value is the case's name, stable across versions (it is what
    /// `labelreplay --json` prints as an error's `kind`).
    public enum Kind: String, Sendable, Hashable, CaseIterable, Codable {
        /// The label was removed (``Code/labelRemoved(removedAtSeq:)``); ``StoreError/seq`` is the removal.
        case labelRemoved
        /// No label with this id was ever added (``Code/labelNeverAdded``).
        case labelNeverAdded
        /// A live label already has this id (``Code/labelAlreadyExists``).
        case labelAlreadyExists
        /// A position outside the list (``Code/positionOutOfRange(position:count:)``).
        case positionOutOfRange
        /// What the write depended on changed since the writer read it
        /// (``Code/staleVersion(expected:current:)``): read again and retry.
        case staleVersion
        /// The list is empty (``Code/nothingToActOn``).
        case nothingToActOn
        /// A malformed command (``Code/invalidCommand``), or an entry the log cannot
        /// store (an actor or note over its limit: `EventLogError.Code.invalidEvent`).
        case invalidCommand
        /// A seq outside the log (``Code/seqOutOfRange(seq:lastSeq:)``).
        case seqOutOfRange
        /// A record contradicts the state it applies to (``Code/inconsistentEvent(_:)``).
        case inconsistentEvent
        /// The store (or its log) was closed (``Code/closed``, `EventLogError.Code.closed`).
        case closed
        /// The calling task was cancelled before the write was committed (``Code/cancelled``).
        case cancelled
        /// Another writer holds the log (`EventLogError.Code.logInUse`).
        case logInUse
        /// There is no log at the path and creating one was not asked for
        /// (`EventLogError.Code.fileNotFound`; on a server, `EventLogError.Code.listNotFound`
        /// or `EventLogError.Code.schemaMissing`), or the server list was deleted
        /// and created again since it was opened (`EventLogError.Code.listReplaced`).
        case logNotFound
        /// The path is not a log this version can open: not a regular file, empty,
        /// another format, or a newer version (`EventLogError.Code.notARegularFile`,
        /// `EventLogError.Code.emptyFile`, `EventLogError.Code.notALog`,
        /// `EventLogError.Code.unsupportedVersion`; a server location that cannot
        /// be used, `EventLogError.Code.invalidLocation`).
        case notALog
        /// The log is damaged where recovery may not cut (`EventLogError.Code.corruptHeader`,
        /// `EventLogError.Code.corruptRecord`, `EventLogError.Code.seqGap`);
        /// ``StoreError/seq`` is the last good seq. `labelreplay verify` and `repair` help.
        case logDamaged
        /// An operating-system call failed (`EventLogError.Code.ioError`), now or
        /// earlier (`EventLogError.Code.poisoned`: the writer refuses appends until
        /// the log is reopened). Nothing unacknowledged is assumed written.
        case ioError
        /// Any other failure of the log (a seq conflict that outlasted the retries,
        /// `EventLogError.Code.fileExists`, `EventLogError.Code.readerBusy`,
        /// `EventLogError.Code.serverError`);
        /// ``Code/storage(_:)`` has the details.
        case storage
        /// A server log cannot be reached, lost its connection, or a statement
        /// timed out (`EventLogError.Code.connectionFailed`,
        /// `EventLogError.Code.timedOut`). A write that failed with it was not
        /// applied; whether the server committed it is settled by the backend
        /// (it looks the batch up after the session that sent it ended) before
        /// the error is thrown, so retrying is safe — except for
        /// `EventLogError.Code.outcomeUnknown`: the server stayed out of reach,
        /// the write may have been committed, and the message names the batch
        /// to look for before writing it again.
        case unavailable
        /// The server refused the login or access (`EventLogError.Code.authenticationFailed`,
        /// `EventLogError.Code.accessDenied`): final, not retried.
        case accessDenied
        /// The server reached accepts no writes (`EventLogError.Code.readOnlyServer`:
        /// a standby, a fenced primary, or a read-only session): nothing was
        /// written. Not a passing outage: write through a location that names
        /// the primary (or every host, for a failover to find).
        case readOnly
    }

    /// The error's ``Kind``.
    public var kind: Kind {
        switch code {
        case .labelRemoved: .labelRemoved
        case .labelNeverAdded: .labelNeverAdded
        case .labelAlreadyExists: .labelAlreadyExists
        case .positionOutOfRange: .positionOutOfRange
        case .staleVersion: .staleVersion
        case .nothingToActOn: .nothingToActOn
        case .invalidCommand: .invalidCommand
        case .seqOutOfRange: .seqOutOfRange
        case .inconsistentEvent: .inconsistentEvent
        case .closed: .closed
        case .cancelled: .cancelled
        case .storage(let error): Self.kind(of: error.code)
        }
    }

    /// The ``Kind`` a failure of the log becomes.
    static func kind(of code: EventLogError.Code) -> Kind {
        switch code {
        case .logInUse: .logInUse
        case .fileNotFound, .listNotFound, .schemaMissing, .listReplaced: .logNotFound
        case .notARegularFile, .emptyFile, .notALog, .unsupportedVersion, .invalidLocation: .notALog
        case .corruptHeader, .corruptRecord, .seqGap, .historyDiverged, .archiveMismatch: .logDamaged
        case .archived: .seqOutOfRange
        case .ioError, .poisoned: .ioError
        case .closed: .closed
        case .invalidEvent: .invalidCommand
        case .seqConflict, .fileExists, .readerBusy, .serverError, .invalidProof: .storage
        case .connectionFailed, .timedOut, .outcomeUnknown: .unavailable
        case .authenticationFailed, .accessDenied: .accessDenied
        case .readOnlyServer: .readOnly
        }
    }
}
