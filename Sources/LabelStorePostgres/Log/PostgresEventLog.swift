#if Postgres
import EventLog
import Foundation
import Synchronization

/// A label history in a PostgreSQL database: an `EventStorage` that many
/// processes on many hosts can share, through libpq.
///
/// Each list is its own history with gapless seqs from 1. An append inserts
/// its records in one statement only if the row before holds the chain value
/// it expects; the records' key `(list, seq)` refuses a second append at the
/// same seqs, so appends to one list commit in seq order, no row is updated
/// by every append, and a read of `seq >= n` never sees a gap. The list's
/// head row holds its id, its base and its committed length, moved by the
/// appends that reach a mark (docs/POSTGRES.md has the schema and the protocol).
///
/// - Durability: ``append(_:expectedLastSeq:)`` returns after the server
///   committed the statement (as durable as the server's `synchronous_commit`
///   makes a commit). A lost connection is retried, with the append's batch
///   id: the append lands once, never twice.
/// - Several writers: ``append(_:expectedLastSeq:)`` with an expectation that
///   no longer holds throws `EventLogError.Code.seqConflict`; a `LabelStore`
///   over this log catches up and retries, so several stores on several
///   hosts can write one list.
/// - Following: ``waitForAppends(after:timeout:)`` wakes on the list's
///   `NOTIFY` (a hint) and polls the list's end every
///   ``Options-swift.struct/pollInterval`` whatever happens to notifications.
/// - Errors name the location without its password, the list and, where
///   there is one, the seq.
///
/// Thread safety: the log is `Sendable`. It holds two connections, each behind
/// its own lock: one for appends and reads, one that listens. Calls from
/// several threads take turns on the first.
public final class PostgresEventLog: IdempotentAppendStorage, Sendable {
    /// How the log connects, creates and follows.
    public struct Options: Sendable {
        /// Create the schema and the list when missing. Default: `false`.
        public var createIfMissing: Bool
        /// Send a `NOTIFY` with each append, so followers wake at once.
        /// Turn it off on engines without LISTEN/NOTIFY (CockroachDB) or when
        /// many hosts append (NOTIFY serializes notifying commits): followers
        /// then wake on the poll. Default: `true`.
        public var notify: Bool
        /// How often a follower reads the list's end even without a notification. Default: 500 ms.
        public var pollInterval: Duration
        /// How long an append or read keeps reconnecting after the connection is lost before
        /// it fails with `EventLogError.Code.connectionFailed`. Default: 30 s.
        public var reconnectTimeout: Duration
        /// The server's `statement_timeout` for this log's statements (`nil`: the server's). Default: `nil`.
        public var statementTimeout: Duration?
        /// Pessimistic mode, for hot lists: a `LabelStore` over the log commits
        /// each group of writes holding the list's lock (a transaction
        /// advisory lock; ``appendExclusively(_:)``), so writers queue instead
        /// of losing the race and retrying. Default: `false` (optimistic: expected-seq appends).
        public var pessimistic: Bool
        /// Adaptive locking, when ``pessimistic`` is off: the log turns to the
        /// list's lock by itself when its appends keep losing the race (two in a
        /// row met a seq conflict), and back to optimistic appends once no other
        /// writer appended between four of its locked turns in a row (or after
        /// 256 locked turns, to look again); ``prefersExclusiveAppends`` says
        /// which, so a `LabelStore` over the log follows it
        /// (docs/POSTGRES.md, "Adaptive locking"). Default: `true`.
        public var adaptiveLocking: Bool
        /// How long a pessimistic append waits for the list's lock before it
        /// fails with `EventLogError.Code.timedOut`. Default: 5 s.
        public var lockTimeout: Duration
        /// Records between the list's checkpoints (docs/POSTGRES.md,
        /// "Checkpoints"): a `LabelStore` whose own append crosses a multiple of
        /// it writes the list there, off its write path: a full image or a
        /// delta (``checkpointFullEvery``). 0 writes none (they are still
        /// read). Default: 8,192.
        public var checkpointInterval: UInt64
        /// How many chains of checkpoints (a full image and the deltas written
        /// on it) a list keeps: a writer that starts one past it drops older
        /// chains whole, keeping the newest, the oldest and the rest spread
        /// over the history. Default: 16 (every chain of a list of up to
        /// 2,097,152 records, at the default interval and chain length). A
        /// chain costs about its full image: every slot the list has known,
        /// live or removed (6.1 MB at 100,000 live labels and 50,000 removed;
        /// 25 MB at 100,000 live and 950,000 removed).
        public var checkpointsKept: Int
        /// Of the checkpoints one store writes in turn, one in this many is a
        /// full image; the others are storage deltas on the one it wrote (or
        /// opened from) before, a chain (docs/POSTGRES.md, "Checkpoints"). A
        /// store that writes deltas keeps the list at its last checkpoint: up
        /// to twice the list's memory. 1: full images only. Default: 16.
        public var checkpointFullEvery: Int
        /// The clock that stamps entries without a timestamp.
        public var clock: @Sendable () -> EventTimestamp
        /// Called when the log finds the server out of reach and when it reaches
        /// it again (``ConnectionEvent``), on the thread that found it: so a
        /// follower or a command can say it is waiting. Default: `nil`.
        public var onConnectionEvent: (@Sendable (ConnectionEvent) -> Void)?
        /// The history a list created by this open continues (`nil`: a new
        /// history from seq 1): its id, and its base with the chained checksum
        /// at the base. A copy of a based history creates its destination so.
        package var creationBase: (logID: LabelID, base: LogBase, chainValue: UInt32)?

        /// Creates options; every parameter has the documented default.
        public init(
            createIfMissing: Bool = false, notify: Bool = true, pollInterval: Duration = .milliseconds(500),
            reconnectTimeout: Duration = .seconds(30), statementTimeout: Duration? = nil,
            pessimistic: Bool = false, adaptiveLocking: Bool = true, lockTimeout: Duration = .seconds(5),
            checkpointInterval: UInt64 = 8_192, checkpointsKept: Int = 16, checkpointFullEvery: Int = 16,
            clock: @escaping @Sendable () -> EventTimestamp = { .now() },
            onConnectionEvent: (@Sendable (ConnectionEvent) -> Void)? = nil
        ) {
            self.onConnectionEvent = onConnectionEvent
            self.pessimistic = pessimistic
            self.adaptiveLocking = adaptiveLocking
            self.lockTimeout = lockTimeout
            self.checkpointInterval = checkpointInterval
            self.checkpointsKept = checkpointsKept
            self.checkpointFullEvery = checkpointFullEvery
            self.createIfMissing = createIfMissing
            self.notify = notify
            self.pollInterval = pollInterval
            self.reconnectTimeout = reconnectTimeout
            self.statementTimeout = statementTimeout
            self.clock = clock
        }
    }

    /// A change in whether the server can be reached (``Options-swift.struct/onConnectionEvent``).
    public enum ConnectionEvent: Sendable {
        /// The server cannot be reached or dropped the connection; the log
        /// keeps trying for ``Options-swift.struct/reconnectTimeout``.
        case lost(EventLogError)
        /// The server is reached again, after this long out of reach.
        case restored(after: Duration)
    }

    /// Where the list lives.
    public let location: PostgresLocation
    /// The options the log was opened with.
    public let options: Options
    /// The list's id, set when it was created (the `lists.log_id` column): two
    /// lists, or a list dropped and created again, never share it.
    public let logID: UUID
    /// The version of the list's schema: ``currentSchemaVersion``, or an older
    /// one this build reads but does not write (``isReadOnly``).
    public let schemaVersion: Int
    /// The schema version this build writes (4: records carry chained checksums, a list may start from a base).
    public static let currentSchemaVersion = Int(PostgresSchema.version)
    /// Whether the list's schema is older than this build writes: every read
    /// works (without the checksums version 1 does not have), every append
    /// throws `EventLogError.Code.unsupportedVersion` until
    /// ``upgrade(_:options:progress:)`` migrates it.
    public var isReadOnly: Bool { schemaVersion < Self.currentSchemaVersion }

    let schema: PostgresSchema
    /// The list's checksums (keyed by ``logID``).
    let checksums: ChainedChecksum
    /// The last record whose chained checksum this object knows (from a read,
    /// an append or the head row): where the next append's chain starts.
    let chainTip: Mutex<ChainTip>
    /// The last record this object appended, or read and checked: a server that
    /// accepts writes must still hold it (``checkNotBehind(head:on:)``).
    let verifiedTip = Mutex(ChainTip(seq: 0, crc: 0))
    /// The chained checksums of the last records this object appended, or read
    /// and checked, seq by seq: the first seq of a changed history is found
    /// against them (``firstDifferingSeq(seen:head:on:)``).
    let seenChain = Mutex(SeenChain())
    let statements: PostgresStatements
    /// The connection for appends and reads (`nil` after a loss, until the next use reconnects).
    let session: Locked<PostgresConnection?>
    /// The connection that holds the list's lock in pessimistic mode.
    let lockSession = Locked<PostgresConnection?>(nil)
    /// The connection that writes checkpoints (opened on first use), so a large image never holds up appends.
    let checkpointSession = Locked<PostgresConnection?>(nil)
    /// The connection that listens for the list's notifications.
    let listener: Locked<PostgresListener>
    let cachedLastSeq: Atomic<UInt64>
    /// Where the list starts (``base``): read at open, raised when a read finds it cut further.
    let listBase: Mutex<ListBase>
    /// What this log went through (for tests, benchmarks and diagnostics).
    package let statistics = PostgresLogStatistics()
    /// Faults to inject (tests only).
    package let faults = PostgresFaultInjection()
    /// The list's notification channel (``PostgresStatements/channel(schema:list:)``).
    let channel: String
    let closed = Atomic<Bool>(false)
    /// Since when the server has been out of reach (`nil`: it is reachable).
    let unreachableSince = Mutex<ContinuousClock.Instant?>(nil)
    /// Whether adaptive locking has turned to the list's lock, and why (``Options-swift.struct/adaptiveLocking``).
    let contention = Mutex(Contention())

    /// Connects, checks the schema (creating it and the list with
    /// ``Options-swift.struct/createIfMissing``) and reads the list's head.
    ///
    /// A list whose schema is at an older version opens read only (``isReadOnly``).
    ///
    /// - Throws: `EventLogError` naming the location: `connectionFailed`
    ///   (unreachable), `authenticationFailed`, `schemaMissing` or
    ///   `listNotFound` (without `createIfMissing`), `notALog` (tables of the
    ///   same names that are not a label store's), `unsupportedVersion` (a
    ///   schema newer than this build), `serverError`.
    public init(location: PostgresLocation, options: Options = Options()) throws(EventLogError) {
        self.location = location
        self.options = options
        self.schema = PostgresSchema(name: location.schema)
        let (connection, head) = try Self.openSession(location, schema: schema, options: options)
        self.statements = PostgresStatements(schema: location.schema, version: head.version)
        self.schemaVersion = Int(head.version)
        self.logID = head.logID
        self.checksums = ChainedChecksum(historyID: head.logID)
        self.chainTip = Mutex(ChainTip(seq: head.lastSeq, crc: head.lastCRC))
        self.cachedLastSeq = Atomic(head.lastSeq)
        self.listBase = Mutex(head.base)
        self.session = Locked(connection)
        self.channel = PostgresStatements.channel(schema: location.schema, list: location.list)
        self.listener = Locked(PostgresListener())
    }

    /// Opens the list at a `postgres://…?list=NAME` URL (``PostgresLocation/init(url:)``).
    ///
    /// - Throws: As ``init(location:options:)``, and `invalidLocation` for a bad URL.
    public convenience init(url: String, options: Options = Options()) throws(EventLogError) {
        try self.init(location: PostgresLocation(url: url), options: options)
    }

    /// Closes the log's connections. Later calls fail with `EventLogError.Code.closed`. Idempotent.
    public func close() {
        closed.store(true, ordering: .releasing)
        session.withLock { connection in
            connection?.close()
            connection = nil
        }
        for slot in [lockSession, checkpointSession] {
            slot.withLock { connection in
                connection?.close()
                connection = nil
            }
        }
        listener.withLock { $0.close() }
    }

    /// The last seq this object appended, read or refreshed (see `EventStorage.lastSeq`).
    public var lastSeq: UInt64 { cachedLastSeq.load(ordering: .acquiring) }

    /// Reads the list's end (its last row; the head row in a schema before
    /// version 5), checked against the head row's committed length.
    ///
    /// - Throws: `connectionFailed` when the server cannot be reached within
    ///   ``Options-swift.struct/reconnectTimeout``, `listNotFound` if the list
    ///   was dropped, `listReplaced` if it was dropped and created again, …
    public func refreshLastSeq() throws(EventLogError) -> UInt64 {
        let last = try withSession(retrying: true) { (connection) throws(PostgresStepFailure) -> UInt64 in
            try self.readHead(connection)
        }
        noteLastSeq(last)
        return last
    }

    /// Raises the cached last seq to `seq` (never lowers it).
    func noteLastSeq(_ seq: UInt64) {
        var current = cachedLastSeq.load(ordering: .relaxed)
        while current < seq {
            let (exchanged, original) = cachedLastSeq.compareExchange(expected: current, desired: seq, ordering: .acquiringAndReleasing)
            if exchanged { return }
            current = original
        }
    }

    /// Notes that the server is out of reach (telling ``Options-swift.struct/onConnectionEvent``
    /// the first time) and returns since when.
    @discardableResult
    func noteUnreachable(_ error: EventLogError) -> ContinuousClock.Instant {
        let (since, isNew) = unreachableSince.withLock { since -> (ContinuousClock.Instant, Bool) in
            if let since { return (since, false) }
            let now = ContinuousClock.now
            since = now
            return (now, true)
        }
        if isNew { options.onConnectionEvent?(.lost(error)) }
        return since
    }

    /// Notes that the server is reached (telling ``Options-swift.struct/onConnectionEvent``
    /// if it was out of reach).
    func noteReachable() {
        let since = unreachableSince.withLock { since in
            defer { since = nil }
            return since
        }
        if let since { options.onConnectionEvent?(.restored(after: ContinuousClock.now - since)) }
    }

    /// Records that the record at `seq` has the chained checksum `crc` (the tip moves forward only).
    func noteChain(seq: UInt64, crc: UInt32) {
        chainTip.withLock { tip in
            if seq >= tip.seq { tip = ChainTip(seq: seq, crc: crc) }
        }
    }

    /// The list's last seq, on `connection` (noting its chain value), checked
    /// against the committed length (``checkCommitted(end:endCRC:committed:committedCRC:base:)``).
    func readHead(_ connection: PostgresConnection) throws(PostgresStepFailure) -> UInt64 {
        let result = try run { () throws(PostgresFailure) in
            try connection.execute(prepared: "head", statements.head, [.text(location.list)])
        }
        guard result.rowCount == 1, let id = result.uuid(0, 0), let last = result.integer(0, 1), last >= 0,
            let crc = result.integer(0, 2)
        else {
            throw .log(
                EventLogError(.listNotFound, "\(location): the list '\(location.list)' no longer exists", path: location.description))
        }
        try checkSameList(id)
        let end = UInt64(last)
        let endCRC = UInt32(truncatingIfNeeded: crc)
        try checkCommitted(
            end: end, endCRC: endCRC, committed: UInt64(max(0, result.integer(0, 3) ?? 0)),
            committedCRC: UInt32(truncatingIfNeeded: result.integer(0, 4) ?? 0),
            base: (UInt64(max(0, result.integer(0, 5) ?? 0)), UInt32(truncatingIfNeeded: result.integer(0, 6) ?? 0)))
        try checkNotBehind(head: end, on: connection)
        noteChain(seq: end, crc: endCRC)
        return end
    }

    /// Throws `listReplaced` unless `id` is the list's id at open.
    func checkSameList(_ id: UUID) throws(PostgresStepFailure) {
        guard id != logID else { return }
        throw .log(
            EventLogError(
                .listReplaced,
                "\(location): the list '\(location.list)' was deleted and created again since it was opened: it was history \(logID) and is now history \(id); nothing is read from or appended to the new one through this handle (open it again)",
                path: location.description))
    }
}

/// The last record whose chained checksum a ``PostgresEventLog`` knows.
struct ChainTip: Sendable {
    var seq: UInt64
    var crc: UInt32
}

/// Faults a test can make a ``PostgresEventLog`` suffer.
package final class PostgresFaultInjection: Sendable {
    /// The next this many appends send their statement, then drop the connection
    /// without reading the result (the server commits; the client sees a loss).
    package let dropAfterSendingAppends = Atomic<Int>(0)
    /// How long such an append waits (without reading the reply) before it drops the connection, in milliseconds.
    package let dropAfterMilliseconds = Atomic<Int>(100)
}

/// Counters of what a ``PostgresEventLog`` went through.
package final class PostgresLogStatistics: Sendable {
    /// Connections made again after one was lost.
    package let reconnects = Atomic<Int>(0)
    /// Appends whose expected seq no longer held (nothing written).
    package let conflicts = Atomic<Int>(0)
    /// Appends retried after a lost connection that found their batch already committed.
    package let batchesFound = Atomic<Int>(0)
    /// Writes a read-only server refused (SQLSTATE 25006: a standby, or a
    /// primary turned read-only), each then sent to a server that accepts writes.
    package let readOnlyRefusals = Atomic<Int>(0)
    /// Appends retried after a serialization failure or deadlock.
    package let transactionRetries = Atomic<Int>(0)
    /// Times adaptive locking turned to the list's lock.
    package let switchesToLocking = Atomic<Int>(0)
    /// Times adaptive locking turned back to optimistic appends.
    package let switchesToOptimistic = Atomic<Int>(0)
    /// Reads answered by the page sent ahead of them (``PostgresEventLog/readAheadPages``).
    package let pagesTakenAhead = Atomic<Int>(0)
    /// Pages sent ahead that were asked for but read again: they had reached the list's end when sent.
    package let pagesReadAgain = Atomic<Int>(0)
}

/// Runs one libpq step, as a ``PostgresStepFailure``.
func run<R>(_ body: () throws(PostgresFailure) -> R) throws(PostgresStepFailure) -> R {
    do { return try body() } catch { throw .server(error) }
}
#endif
