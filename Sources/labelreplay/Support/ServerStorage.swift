import EventLog
import Foundation
import LabelProjection
import Synchronization

#if Postgres
import LabelStorePostgres
#endif

/// Opening a list on a PostgreSQL server (a ``LogLocation/server(url:display:)``)
/// as an `EventStorage`: a `PostgresEventLog` in a build with the `Postgres`
/// trait; without it, the refusal saying how to build with it.
///
/// Every list opened is closed when the command ends (``closeAll()``, called by ``Tool``).
enum ServerStorage {
    /// A list opened on a server.
    struct Opened {
        /// The list, for reading and appending.
        let storage: any EventStorage
        /// The list's id (set when it was created).
        let logID: UUID
        /// The location, without its password.
        let display: String
        /// The list's name and the schema holding it.
        let list: String
        let schema: String
        /// Whether the list's rows carry chained checksums (schema version 2 and later).
        var hasChecksums = false
        /// The chained checksum of the last record a based list's base cut (0 for a list from seq 1).
        var baseChainValue: UInt32 = 0
    }

    /// What ``create(_:)`` found and made.
    struct Creation {
        let opened: Opened
        /// Whether the schema was missing and was created.
        let createdSchema: Bool
        /// Whether the list was missing and was created.
        let createdList: Bool
    }

    /// Opens the list at `location` (a server location); with `create`, creates
    /// the schema and the list when missing — with `basedOn`, a list of that
    /// based header's history (its id, base and chained checksum at the base).
    ///
    /// - Throws: the backend's `EventLogError`, naming the location without its
    ///   password (a missing schema or list suggests `labelreplay init`);
    ///   without PostgreSQL support, ``LogLocation/notBuilt(_:)``.
    static func open(_ location: LogLocation, create: Bool = false, basedOn header: LogHeader? = nil) throws -> Opened {
        guard case .server(let url, let display) = location else {
            preconditionFailure("ServerStorage.open is for server locations")
        }
        #if Postgres
        var options = PostgresEventLog.Options(createIfMissing: create, onConnectionEvent: { report($0, display: display) })
        options.reconnectTimeout = try reconnectTimeout()
        if let header, let base = header.base { options.creationBase = (header.logID, base, header.previousChecksum) }
        let log = try PostgresEventLog(url: url, options: options)
        opened.withLock { $0.append(log) }
        if log.isReadOnly {
            warn(
                "\(display): the schema '\(log.location.schema)' is at version \(log.schemaVersion), which this build reads\(log.schemaVersion < 2 ? " without checksums" : "") and does not write; 'labelreplay upgrade' migrates it in place"
            )
        }
        return Opened(
            storage: log, logID: log.logID, display: display, list: log.location.list, schema: log.location.schema,
            hasChecksums: log.schemaVersion >= 2, baseChainValue: log.baseChainValue)
        #else
        _ = (create, header)
        throw LogLocation.notBuilt(url)
        #endif
    }

    /// The list at `location` opened for reading, shared by every reader of
    /// this run (``Replay``, ``ServerCheckpoints``): a command that folds from
    /// many checkpoints (`trace --label`, `diff`) holds one connection for
    /// them, not one each. Writers open their own (``open(_:create:)``).
    static func openForReading(_ location: LogLocation) throws -> Opened {
        guard case .server(let url, _) = location else { preconditionFailure("ServerStorage.openForReading is for server locations") }
        if let shared = readers.withLock({ $0[url] }) { return shared }
        let opened = try open(location)
        return readers.withLock { readers in
            if let earlier = readers[url] { return earlier }
            readers[url] = opened
            return opened
        }
    }

    private static let readers = Mutex<[String: Opened]>([:])

    /// The time of the list's first record as a header's creation time (now
    /// for an empty list): read once per list and run (one query), however
    /// many replays of it the command makes.
    static func createdAt(of opened: Opened) throws -> EventTimestamp {
        if let known = creationTimes.withLock({ $0[opened.display] }) { return known }
        let created = try opened.storage.read(from: 1, maxCount: 1).first?.timestamp ?? EventTimestamp.now()
        creationTimes.withLock { $0[opened.display] = created }
        return created
    }

    private static let creationTimes = Mutex<[String: EventTimestamp]>([:])

    /// Opens the list at `location`, creating the schema and the list when
    /// missing, and says which of them it created.
    static func create(_ location: LogLocation, basedOn header: LogHeader? = nil) throws -> Creation {
        var createdSchema = false
        var createdList = false
        do {
            return Creation(opened: try open(location), createdSchema: false, createdList: false)
        } catch let error as EventLogError where error.code == .schemaMissing || error.code == .listNotFound {
            createdSchema = error.code == .schemaMissing
            createdList = true
        }
        return Creation(opened: try open(location, create: true, basedOn: header), createdSchema: createdSchema, createdList: createdList)
    }

    /// What a server list takes on its server (``sizes(of:)``), in bytes, as `stats` shows it.
    struct Sizes: Encodable {
        /// The records table of the schema (every list), without indexes.
        let recordsTable: Int64
        /// Its indexes.
        let recordsIndexes: Int64
        /// The checkpoints table of the schema (every list).
        let checkpointsTable: Int64
        /// This list's record payloads.
        let listPayloads: Int64
        /// This list's checkpoints, and their images' bytes.
        let listCheckpoints: Int
        let listCheckpointImages: Int64
    }

    /// The sizes the server reports for the list `storage` reads (`nil` for another storage).
    static func sizes(of storage: any EventStorage) throws -> Sizes? {
        #if Postgres
        guard let log = storage as? PostgresEventLog else { return nil }
        let s = try log.storageSizes()
        return Sizes(
            recordsTable: s.recordsTable, recordsIndexes: s.recordsIndexes, checkpointsTable: s.checkpointsTable,
            listPayloads: s.listPayloads, listCheckpoints: s.listCheckpoints, listCheckpointImages: s.listCheckpointImages)
        #else
        _ = storage
        return nil
        #endif
    }

    /// The title and state each of `ids` had at its last removal at or before
    /// `list`'s last seq, where `list` (a checkpoint's) says that removal is
    /// (``LabelList/removal(of:)``): the records at those seqs, read by seq
    /// and each checked to be that label's removal; the labels whose record
    /// is not there (cut off to an archive) or is not their removal are
    /// read from their removal records through the label index instead.
    /// `nil`: the storage cannot read records by seq.
    static func removals(of ids: Set<LabelID>, removedIn list: LabelList, in storage: any EventStorage) throws -> [LabelID: RemovedLabel]? {
        #if Postgres
        guard let log = storage as? PostgresEventLog else { return nil }
        var removed: [LabelID: RemovedLabel] = [:]
        var expected: [UInt64: LabelID] = [:]
        for id in ids { if let seq = list.removal(of: id), seq <= list.lastSeq { expected[seq] = id } }
        for record in try log.records(atSeqs: Array(expected.keys)) {
            if case .removed(let id, _, let title, let isEnabled) = record.event, expected[record.seq] == id {
                removed[id] = RemovedLabel(title: title, isEnabled: isEnabled)
            }
        }
        let unread = ids.subtracting(removed.keys)
        guard !unread.isEmpty else { return removed }
        for record in try log.records(ofLabels: unread, after: 0, through: list.lastSeq, kinds: [.removed]) {
            if case .removed(let id, _, let title, let isEnabled) = record.event {
                removed[id] = RemovedLabel(title: title, isEnabled: isEnabled)
            }
        }
        return removed
        #else
        _ = (ids, list, storage)
        return nil
        #endif
    }

    /// The seqs of the records that can concern `ids` (their own, and the
    /// list's reorders) through `seq`, ascending, read through the server's
    /// indexes; `nil` when the storage cannot read records by label.
    static func candidates(concerning ids: Set<LabelID>, through seq: UInt64, in storage: any EventStorage) throws -> [UInt64]? {
        try candidateRecords(concerning: ids, through: seq, in: storage)?.seqs
    }

    /// ``candidates(concerning:through:in:)``, with the labels' own records
    /// as the label index read them (checked row by row), by seq: a replay
    /// of one of them need not read it again. Reorders are named by seq only.
    static func candidateRecords(concerning ids: Set<LabelID>, through seq: UInt64, in storage: any EventStorage) throws -> (
        seqs: [UInt64], records: [UInt64: EventRecord]
    )? {
        #if Postgres
        guard let log = storage as? PostgresEventLog else { return nil }
        let own = try log.records(ofLabels: ids, after: 0, through: seq)
        let records = Dictionary(own.map { ($0.seq, $0) }, uniquingKeysWith: { first, _ in first })
        return (Array(Set(records.keys).union(try log.reorderSeqs(after: 0, through: seq))).sorted(), records)
        #else
        _ = (ids, seq, storage)
        return nil
        #endif
    }

    /// A server list's records that name one of `ids` (of `kinds`, when
    /// given) with seqs in `after + 1 … through`, read through its label
    /// index and checked row by row (`nil` for another storage).
    static func records(
        ofLabels ids: Set<LabelID>, after: UInt64, through: UInt64, kinds: Set<LabelEvent.Kind>? = nil, in storage: any EventStorage
    ) throws -> [EventRecord]? {
        #if Postgres
        guard let log = storage as? PostgresEventLog else { return nil }
        return try log.records(ofLabels: ids, after: after, through: through, kinds: kinds)
        #else
        _ = (ids, after, through, kinds, storage)
        return nil
        #endif
    }

    /// A server list's reorders with seqs in `after + 1 … through`, checked
    /// row by row (`nil` for another storage).
    static func reorderRecords(after: UInt64, through: UInt64, in storage: any EventStorage) throws -> [EventRecord]? {
        #if Postgres
        guard let log = storage as? PostgresEventLog else { return nil }
        return try log.reorderRecords(after: after, through: through)
        #else
        _ = (after, through, storage)
        return nil
        #endif
    }

    /// The ids the records of a server list name that start with `nibbles`
    /// (an id prefix's hex digits), through the server (`nil` for another
    /// storage). Records cut off to an archive are not among them. With a
    /// usable checkpoint (and no records cut off), the ids up to it are its
    /// list's — every label ever added, live or removed — and only the
    /// records after it are scanned for the rest, instead of every row.
    static func labelIDs(startingWith nibbles: [UInt8], in storage: any EventStorage) throws -> [LabelID]? {
        #if Postgres
        guard let log = storage as? PostgresEventLog else { return nil }
        // The prefix's digits, then every other bit zero (the lowest id with it) or one (the highest).
        func bound(rest: UInt8) -> UUID {
            var bytes = [UInt8](repeating: rest, count: 16)
            for (k, nibble) in nibbles.prefix(32).enumerated() {
                let shift: UInt8 = k % 2 == 0 ? 4 : 0
                bytes[k / 2] = (bytes[k / 2] & ~(0x0f << shift)) | (nibble << shift)
            }
            return bytes.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
        }
        let (lowest, highest) = (bound(rest: 0x00), bound(rest: 0xff))
        var ids: Set<LabelID> = []
        var after: UInt64 = 0
        if log.base == nil, let known = try? LabelStore.storageCheckpointIDs(of: log, atOrBefore: log.refreshLastSeq()) {
            for id in known.ids where LabelIDArgument.hasPrefix(id, nibbles) { ids.insert(id) }
            after = known.seq
        }
        for id in try log.labelIDs(from: lowest, through: highest, after: after) { ids.insert(LabelID(id)) }
        return ids.sorted()
        #else
        _ = (nibbles, storage)
        return nil
        #endif
    }

    /// The last title a server list's records state for `id` (`nil` for
    /// another storage, or when none does): for naming the candidates of an
    /// ambiguous id prefix.
    static func lastStatedTitle(of id: LabelID, in storage: any EventStorage) -> String? {
        #if Postgres
        guard let log = storage as? PostgresEventLog,
            let records = try? log.records(ofLabels: [id], after: 0, through: .max, kinds: [.added, .renamed, .removed])
        else { return nil }
        return records.last.flatMap { Replay.statedTitle($0.event)?.1 }
        #else
        _ = (id, storage)
        return nil
        #endif
    }

    /// The seqs of the list's checkpoints as stored (for planning a read; empty for another storage).
    static func checkpointSeqs(in storage: any EventStorage) throws -> [UInt64] {
        #if Postgres
        guard let log = storage as? PostgresEventLog else { return [] }
        return try log.checkpointSeqs()
        #else
        _ = storage
        return []
        #endif
    }

    /// Closes every list this run opened.
    static func closeAll() {
        readers.withLock { $0.removeAll() }
        #if Postgres
        let logs = opened.withLock { list in
            defer { list.removeAll() }
            return list
        }
        for log in logs { log.close() }
        #endif
    }

    #if Postgres
    private static let opened = Mutex<[PostgresEventLog]>([])

    /// The reconnect window: `LABELREPLAY_RECONNECT_TIMEOUT` seconds (a
    /// number ≥ 0, decimals allowed), else the backend's default (30 s).
    ///
    /// - Throws: ``UsageError`` naming the variable and its value when it is not such a number.
    static func reconnectTimeout() throws -> Duration {
        guard let text = ProcessInfo.processInfo.environment[reconnectVariable] else {
            return PostgresEventLog.Options().reconnectTimeout
        }
        guard let seconds = Double(text), seconds.isFinite, seconds >= 0, seconds <= 86_400 else {
            throw UsageError(
                "\(reconnectVariable)='\(Escape.text(text))' is not a number of seconds from 0 to 86400 (the reconnect window; default 30)")
        }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    /// The environment variable that sets the reconnect window.
    static let reconnectVariable = "LABELREPLAY_RECONNECT_TIMEOUT"

    /// Says on standard error that the server went out of reach (the command
    /// waits for it, up to the reconnect window) and that it is back.
    private static func report(_ event: PostgresEventLog.ConnectionEvent, display: String) {
        switch event {
        case .lost(let error):
            let window = (try? reconnectTimeout()).map { String(format: "%g", $0.timeInterval) } ?? "30"
            let awaited = error.code == .readOnlyServer ? "a server that accepts writes" : "the server"
            warn("\(error.message); waiting for \(awaited) (up to \(window) s)")
        case .restored(let after):
            warn("\(display): the server is back after \(String(format: "%.1f", after.timeInterval)) s; continuing")
        }
    }

    /// Writes `warning: TEXT` on standard error, escaped and with any password scrubbed
    /// (from the log's own threads too, so not through a command's ``Console``).
    private static func warn(_ text: String) {
        FileHandle.standardError.write(Data((Secrets.scrub(Escape.text("warning: " + text)) + "\n").utf8))
    }
    #endif
}
