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
    /// The file's reader, for a log file.
    let file: LogReader?
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
        self.header = LogHeader(logID: LabelID(server.logID), createdAt: first?.timestamp ?? EventTimestamp.now())
    }

    /// Whether this reads a server list.
    var isServer: Bool { storage != nil }

    /// The storage read, for a server list.
    var serverStorage: (any EventStorage)? { storage }

    /// The seq of the next record to read.
    var nextSeq: UInt64 { file?.nextSeq ?? storageNext }

    /// Where reading is: a byte offset in a file; the records read of a server list.
    var offset: Int64 { file?.offset ?? Int64(storageNext - 1) }

    /// Where the last record read is in the file (never for a server list).
    var lastPosition: LogPosition? { file?.lastPosition }

    /// The file's size in bytes; a server list's last seq.
    func fileSize() throws -> Int64 {
        if let file { return try file.fileSize() }
        return Int64(try storage!.refreshLastSeq())
    }

    /// The next record, or `nil` at the end of the complete records.
    func next() throws -> EventRecord? {
        if let file { return try file.next() }
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
            return
        }
        while let record = try next() {
            guard record.seq >= seq else { continue }
            let payload = try record.storedPayload()
            try payload.withUnsafeBytes { bytes in try body(try EventRecordView.parse(payload: bytes)) }
        }
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
