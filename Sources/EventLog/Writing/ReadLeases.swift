/// Keeps a writer's file open while reads that took it outside the writer's
/// lock still use it.
///
/// ``LogWriter/read(from:maxCount:)`` takes the file under the writer's lock
/// and reads it after releasing the lock (so reads do not block appends). A
/// ``LogWriter/close()`` in between must not close the file under the read:
/// the read would fail with `EBADF`, or read another file that reused the
/// descriptor. So a read holds a *lease* on its writer's file from the moment
/// it takes the file (under the writer's lock) until it returns; `close()`
/// (under the same lock) closes the file at once when no read holds a lease,
/// and otherwise hands it over, to be closed by the last read as it returns.
/// A read therefore either completes or, if it starts after `close()`,
/// reports ``EventLogError/Code/closed``.
///
/// The leases live in one table keyed by the writer's identity (a writer
/// with a lease is alive: the read holds it), behind its own lock, which is
/// taken inside a writer's lock and never the other way around.
enum ReadLeases {
    private struct Entry {
        var readers = 0
        /// The files `close()` (or a cut of the open log, which replaces the file) left to the last reader.
        var closeWhenDone: [any LogFile] = []
    }

    private static let table = Locked<[ObjectIdentifier: Entry]>([:])

    /// A read of `writer`'s file begins (call under the writer's lock, with the file open).
    static func acquire(_ writer: AnyObject) {
        table.withLock { $0[ObjectIdentifier(writer), default: Entry()].readers += 1 }
    }

    /// A read of `writer`'s file ends; the last one closes a file `close()` left to it.
    static func release(_ writer: AnyObject) {
        let files = table.withLock { entries -> [any LogFile] in
            let key = ObjectIdentifier(writer)
            guard var entry = entries[key] else { return [] }
            entry.readers -= 1
            guard entry.readers == 0 else {
                entries[key] = entry
                return []
            }
            entries[key] = nil
            return entry.closeWhenDone
        }
        for file in files { file.close() }
    }

    /// Closes `file`, `writer`'s file (or the one a cut replaced), now if no
    /// read holds it, else when the last read returns (call under the writer's lock).
    static func close(_ file: any LogFile, of writer: AnyObject) {
        let deferred = table.withLock { entries -> Bool in
            let key = ObjectIdentifier(writer)
            guard entries[key] != nil else { return false }
            entries[key]!.closeWhenDone.append(file)
            return true
        }
        if !deferred { file.close() }
    }
}
