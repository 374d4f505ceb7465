import EventLog

/// Reads a log's records in order from a seq, a batch at a time.
struct RecordCursor {
    private let storage: any EventStorage
    private var nextSeq: UInt64
    private var batch: [EventRecord] = []
    private var index = 0

    init(storage: any EventStorage, from seq: UInt64) {
        self.storage = storage
        self.nextSeq = seq
    }

    /// The next record, or `nil` after the last.
    mutating func next() throws(EventLogError) -> EventRecord? {
        if index == batch.count {
            batch = try storage.read(from: nextSeq, maxCount: 1024)
            index = 0
            guard !batch.isEmpty else { return nil }
            nextSeq = batch[batch.count - 1].seq + 1
        }
        defer { index += 1 }
        return batch[index]
    }
}
