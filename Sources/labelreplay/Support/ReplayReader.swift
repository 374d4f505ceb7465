import EventLog
import Foundation

/// What a ``Replay`` reads: a log file through `LogReader`, or a list on a
/// server through its `EventStorage` (``ServerStorage``), with the part of
/// `LogReader`'s interface a replay uses.
///
/// A server list has no bytes of its own to show: its ``offset`` and
/// ``fileSize()`` count records (the unit of its progress line), it has no
/// tail and no positions, and it is never replaced under a reader.
final class ReplayReader {
    /// The file's reader, for a log file (the archive's, while an archive is read before its log).
    private(set) var file: LogReader?
    /// The based log to read once the archive ``file`` ends (``readArchiveFirst(_:path:)``).
    private var live: LogReader?
    /// The archive being read before the log, and the bytes of it done once the log is read.
    private var archivePath: String?
    private var archiveBytes: Int64 = 0
    private let storage: (any EventStorage)?
    /// The log's header (for a server list: its id, and the first record's time as its creation).
    private(set) var header: LogHeader
    private var buffer: [EventRecord] = []
    private var index = 0
    private var storageNext: UInt64 = 1

    /// A reader of a log file.
    init(file: LogReader) {
        self.file = file
        self.storage = nil
        self.header = file.header
    }

    /// A reader of a server list.
    init(server: ServerStorage.Opened) throws {
        self.file = nil
        self.storage = server.storage
        let first = try server.storage.read(from: 1, maxCount: 1).first
        let created = first?.timestamp ?? EventTimestamp.now()
        // A list whose first records were cut off reads as a based log: from the record after its base.
        if let base = server.storage.base {
            self.header = LogHeader(logID: LabelID(server.logID), createdAt: created, base: base, previousChecksum: server.baseChainValue)
            storageNext = base.lastCutSeq + 1
        } else {
            self.header = LogHeader(logID: LabelID(server.logID), createdAt: created)
        }
    }

    /// Whether this reads a server list.
    var isServer: Bool { storage != nil }

    /// The storage read, for a server list.
    var serverStorage: (any EventStorage)? { storage }

    /// The seq of the next record to read.
    var nextSeq: UInt64 { file?.nextSeq ?? storageNext }

    /// Where reading is: a byte offset in a file (past the archive's bytes, once the log
    /// after it is read); the records read of a server list.
    var offset: Int64 {
        if storage != nil { return Int64(nextSeq - 1) }  // a server list's archive counts records as the list does
        return file.map { $0.offset + archiveBytes } ?? Int64(storageNext - 1)
    }

    /// Where the last record read is in the file (never for a server list).
    var lastPosition: LogPosition? { file?.lastPosition }

    /// The file's size in bytes; a server list's last seq.
    func fileSize() throws -> Int64 {
        if storage != nil { return Int64(try storage!.refreshLastSeq()) }
        if let live, let file { return try file.fileSize() + live.fileSize() }
        return try file!.fileSize() + archiveBytes
    }

    /// The next record, or `nil` at the end of the complete records.
    func next() throws -> EventRecord? {
        if let file {
            if let record = try file.next() { return record }
            guard try joinLog() else { return nil }
            if let log = self.file { return try log.next() }
        }
        if index == buffer.count {
            buffer = try storage!.read(from: storageNext, maxCount: 4096)
            index = 0
            guard !buffer.isEmpty else { return nil }
        }
        defer { index += 1 }
        storageNext = buffer[index].seq + 1
        return buffer[index]
    }

    /// Calls `body` with each record from `seq` on, as a view (for a server
    /// list, each record's payload encoded and parsed again: the same checks).
    func forEachView(from seq: UInt64, _ body: (EventRecordView) throws -> Void) throws {
        if let file {
            try file.forEachView(from: seq, body)
            guard try joinLog() else { return }
            if let log = self.file {
                try log.forEachView(from: max(seq, log.nextSeq), body)
                return
            }
        }
        while let record = try next() {
            guard record.seq >= seq else { continue }
            let payload = try record.storedPayload()
            try payload.withUnsafeBytes { bytes in try body(try EventRecordView.parse(payload: bytes)) }
        }
    }

    /// Whether an archive was set to be read before the log (whether or not the log is reached yet).
    private(set) var chainsArchive = false

    /// Reads `archive` (the archive at `path` holding the records a based log
    /// cut) before the log: from the archive's first record, then, once it
    /// ends, the log from its first. Before anything is read.
    func readArchiveFirst(_ archive: LogReader, path: String) {
        precondition(live == nil && (file != nil || storage != nil), "an archive is read first only before a log")
        live = file
        file = archive
        archivePath = path
        chainsArchive = true
    }

    /// Moves from the archive, at its end, to the log after it, checking that
    /// they join: the archive's last record is the one before the log's first,
    /// and the log's first record chains on from its checksum. `false` when
    /// there is no log to move to.
    private func joinLog() throws -> Bool {
        guard let archive = file, let path = archivePath else { return false }
        // The log after the archive: a file, or the server list (whose header is the one made for it).
        let logHeader = live?.header ?? header
        let last = archive.lastPosition
        guard last?.seq == logHeader.firstSeq - 1, let checksum = last?.checksum, checksum == logHeader.previousChecksum else {
            throw Failure(
                "\(path): the archive ends at seq \(last?.seq ?? 0) and does not join the log after it (which starts at seq \(logHeader.firstSeq)); run 'labelreplay verify' on the log"
            )
        }
        archiveBytes = try archive.fileSize()
        file = live
        self.live = nil
        archivePath = nil
        return true
    }

    /// Positions the reader after a checkpoint: a file reader at the frame
    /// after it (checked to chain on from `previousChecksum`); a server list's
    /// at `seq` (the server checks the chain from the record before it).
    func seek(toSeq seq: UInt64, atOffset offset: Int64, previousChecksum: UInt32) throws {
        guard let file else {
            storageNext = seq
            buffer = []
            index = 0
            return
        }
        try file.seek(toSeq: seq, atOffset: offset, previousChecksum: previousChecksum)
    }

    /// Whether the file still holds `position` as it was (always for a server list).
    func holds(_ position: LogPosition) throws -> Bool {
        try file?.holds(position) ?? true
    }

    /// What follows the last record of a file (nothing for a server list).
    func tail() throws -> LogReader.Tail {
        try file?.tail() ?? .none
    }
}
