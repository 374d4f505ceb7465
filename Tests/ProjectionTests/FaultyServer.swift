import EventLog
import Foundation

/// A shared list in memory that fails as a server does, for the sync tests:
/// while `down`, every call fails (`connectionFailed`); with
/// `loseNextReply`, the next append with a batch id commits and then throws,
/// as a reply lost with the connection would.
final class FaultyServer: IdempotentAppendStorage, @unchecked Sendable {
    let log: InMemoryEventLog
    var down = false
    var loseNextReply = false

    init(_ log: InMemoryEventLog = InMemoryEventLog()) { self.log = log }

    private func check() throws(EventLogError) {
        if down { throw EventLogError(.connectionFailed, "the server is unreachable") }
    }

    var lastSeq: UInt64 { log.lastSeq }
    func waitForAppends(after seq: UInt64, timeout: Duration) throws(EventLogError) -> Bool { false }
    func read(from seq: UInt64, maxCount: Int) throws(EventLogError) -> [EventRecord] {
        try check()
        return try log.read(from: seq, maxCount: maxCount)
    }
    func batchID(atSeq seq: UInt64) throws(EventLogError) -> UUID? {
        try check()
        return try log.batchID(atSeq: seq)
    }
    func append(_ entries: [LogEntry], expectedLastSeq: UInt64?) throws(EventLogError) -> [EventRecord] {
        try check()
        return try log.append(entries, expectedLastSeq: expectedLastSeq)
    }
    func append(_ entries: [LogEntry], expectedLastSeq: UInt64?, batchID: UUID) throws(EventLogError) -> [EventRecord] {
        try check()
        let records = try log.append(entries, expectedLastSeq: expectedLastSeq, batchID: batchID)
        if loseNextReply {
            loseNextReply = false
            throw EventLogError(.connectionFailed, "the reply was lost")
        }
        return records
    }
}
