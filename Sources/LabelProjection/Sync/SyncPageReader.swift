import EventLog
import Foundation

/// The pages of a pull, read ahead on a thread of their own: a page is
/// asked for as soon as the one before is in (up to ``depth`` pages waiting),
/// whatever the puller is doing, so the server never waits for the puller
/// to ask. From a ``PayloadReadingStorage`` a page is its payloads (the
/// rows checked, not decoded: the puller decodes them).
///
/// - Thread safety: ``next()`` and ``stop()`` are called by the one thread
///   that pulls; the pages handed over are behind a lock.
final class SyncPageReader: Sendable {
    /// A page: its records, or its payloads to decode, from a first seq.
    enum Page: Sendable {
        case records([EventRecord])
        case payloads(first: UInt64, StoredPayloads)

        /// The seq of its last record (`nil`: an empty page, the end).
        var lastSeq: UInt64? {
            switch self {
            case .records(let records): records.last?.seq
            case .payloads(let first, let payloads): payloads.count == 0 ? nil : first + UInt64(payloads.count) - 1
            }
        }
    }

    /// Pages read and not yet taken, at most.
    static let depth = 2

    private struct State {
        var pages: [Result<Page, EventLogError>] = []
        var stopped = false
    }

    private let state = Locked(State())
    /// Signalled per page handed over.
    private let available = DispatchSemaphore(value: 0)
    /// Signalled per page taken (room for another), and by ``stop()``.
    private let room = DispatchSemaphore(value: SyncPageReader.depth)
    /// Signalled once, when the reading thread ends.
    private let finished = DispatchSemaphore(value: 0)

    /// Starts reading `storage`'s records from `seq` on, `pageSize` at a time,
    /// until an empty page or a failure (both handed over as pages are).
    init(_ storage: any EventStorage, from seq: UInt64, pageSize: Int) {
        Thread.detachNewThread { [self] in
            defer { finished.signal() }
            var next = seq
            while true {
                room.wait()
                if state.withLock({ $0.stopped }) { return }
                let read = Result { () throws(EventLogError) -> Page in try Self.read(storage, from: next, maxCount: pageSize) }
                state.withLock { $0.pages.append(read) }
                available.signal()
                guard case .success(let page) = read, let last = page.lastSeq else { return }
                next = last + 1
            }
        }
    }

    /// The next page (an empty one at the end), once read.
    ///
    /// - Throws: What reading it threw.
    func next() throws(EventLogError) -> Page {
        available.wait()
        let page = state.withLock { $0.pages.removeFirst() }
        room.signal()
        return try page.get()
    }

    /// Stops reading and waits for the reading thread to end (a read under
    /// way is finished first), so the storage is no longer used by it.
    func stop() {
        state.withLock { $0.stopped = true }
        room.signal()
        finished.wait()
    }

    /// One page read on this thread: its payloads, if the storage hands them out.
    static func read(_ storage: any EventStorage, from seq: UInt64, maxCount: Int) throws(EventLogError) -> Page {
        if let stored = storage as? any PayloadReadingStorage {
            let (first, payloads) = try stored.readPayloads(from: seq, maxCount: maxCount)
            return .payloads(first: first, payloads)
        }
        return .records(try storage.read(from: seq, maxCount: maxCount))
    }
}

extension SyncPageReader.Page {
    /// The page's records, decoded here if they came as payloads from
    /// `storage`, and (`hashing`) their leaf hashes when they came as
    /// payloads (`nil`: hash their payloads encoded again).
    ///
    /// - Throws: `corruptRecord` for a payload that does not decode, named as the storage's own read names it.
    func records(of storage: any EventStorage, hashing: Bool) throws(EventLogError) -> (
        records: [EventRecord], leaves: [HistoryHash]?
    ) {
        switch self {
        case .records(let records): return (records, nil)
        case .payloads(let first, let payloads):
            let source = (storage as? any PayloadReadingStorage)?.payloadSource ?? ("the server list", "")
            return (try payloads.records(first: first, source: source), hashing ? payloads.leafHashes() : nil)
        }
    }
}
