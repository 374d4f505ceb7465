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
    /// The file's reader, for a log file (an archive's, while archives are read before the log).
    private(set) var file: LogReader?
    /// The files to read after ``file`` ends, in order (the later archives, then the based log
    /// file; for a server list only archives, the list after them), and each one's path.
    private var following: [(reader: LogReader, path: String)] = []
    /// The path of the archive ``file`` reads (`nil` once the log itself is read), and the bytes of the files done.
    private var archivePath: String?
    private var archiveBytes: Int64 = 0
    /// Whether the last archive is followed by a server list (not by a file in ``following``).
    private var storageFollows = false
    private let storage: (any EventStorage)?
    /// The log's header (for a server list: its id, and the first record's time as its creation).
    private(set) var header: LogHeader
    private var buffer: [EventRecord] = []
    private var index = 0
    private var storageNext: UInt64 = 1
    /// The last seq the caller needs, when it knows (`nil`: read on): a
    /// server list's pages then ask for no record after it, so a replay of
    /// one record reads one row, not a page of 4,096.
    var readsThrough: UInt64?

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
        let created = try ServerStorage.createdAt(of: server)
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
        var total = try file!.fileSize() + archiveBytes
        for next in following { total += try next.reader.fileSize() }
        return total
    }

    /// The next record, or `nil` at the end of the complete records.
    func next() throws -> EventRecord? {
        while let file {
            if let record = try file.next() { return record }
            guard try joinLog() else { return nil }
        }
        if index == buffer.count {
            buffer = try storage!.read(from: storageNext, maxCount: pageSize)
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
        while let file {
            try file.forEachView(from: max(seq, file.nextSeq), body)
            guard try joinLog() else { return }
        }
        guard let payloads = storage as? any PayloadReadingStorage else {
            while let record = try next() {
                guard record.seq >= seq else { continue }
                let payload = try record.storedPayload()
                try payload.withUnsafeBytes { bytes in try body(try EventRecordView.parse(payload: bytes)) }
            }
            return
        }
        // A server list: the records read already, then the rows' payloads parsed where they are (no records made).
        while index < buffer.count {
            let record = buffer[index]
            index += 1
            storageNext = record.seq + 1
            guard record.seq >= seq else { continue }
            try record.storedPayload().withUnsafeBytes { bytes in try body(try EventRecordView.parse(payload: bytes)) }
        }
        while true {
            let read = try payloads.readPayloads(from: storageNext, maxCount: pageSize)
            guard read.payloads.count > 0 else { return }
            try read.payloads.forEachView(first: read.first, source: payloads.payloadSource) { view in
                storageNext = view.seq + 1
                guard view.seq >= seq else { return }
                try body(view)
            }
        }
    }

    /// The records of a server list's next read: a page of 4,096, or up to ``readsThrough``.
    private var pageSize: Int {
        let wanted = readsThrough.map { $0 >= storageNext ? Int(clamping: $0 - storageNext + 1) : 4096 } ?? 4096
        return min(4096, wanted)
    }

    /// Whether archives were set to be read before the log (whether or not the log is reached yet).
    private(set) var chainsArchive = false

    /// Reads `archives` (oldest first: the archives holding the records a
    /// based log cut, checked by ``LogHistory``) before the log: from the
    /// first archive's first record, each one to its end, then the log from
    /// its first. Before anything is read.
    func readArchivesFirst(_ archives: [(reader: LogReader, path: String)]) {
        precondition(!chainsArchive && !archives.isEmpty && (file != nil || storage != nil), "archives are read first only before a log")
        var queue = archives
        if let file { queue.append((file, file.path)) } else { storageFollows = true }
        file = queue[0].reader
        archivePath = queue[0].path
        following = Array(queue.dropFirst())
        chainsArchive = true
    }

    /// Moves from the archive being read, at its end, to the file (or list)
    /// after it, checking that they join: the archive's last record is the
    /// one before the next part's first, and the next part's first record
    /// chains on from its checksum. `false` when there is nothing to move to.
    private func joinLog() throws -> Bool {
        guard let archive = file, let path = archivePath else { return false }
        // The part after the archive: a file, or the server list (whose header is the one made for it).
        let next = following.first
        guard next != nil || storageFollows else { return false }
        let nextHeader = next?.reader.header ?? header
        let last = archive.lastPosition
        guard last?.seq == nextHeader.firstSeq - 1, let checksum = last?.checksum, checksum == nextHeader.previousChecksum else {
            throw Failure(
                "\(path): the archive ends at seq \(last?.seq ?? 0) and does not join the file after it (which starts at seq \(nextHeader.firstSeq)); run 'labelreplay verify' on the log"
            )
        }
        archiveBytes += try archive.fileSize()
        if let next {
            following.removeFirst()
            file = next.reader
            archivePath = following.isEmpty && !storageFollows ? nil : next.path
        } else {
            file = nil
            archivePath = nil
        }
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

    /// Hands a server list's reader `record`, already read and checked (the
    /// label index's read of it), as the next one when it is the seq the
    /// reader is at: it is not read again. Nothing for a file.
    func prefill(_ record: EventRecord) {
        guard file == nil, storage != nil, index == buffer.count, record.seq == storageNext else { return }
        buffer = [record]
        index = 0
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
