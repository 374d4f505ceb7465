/// A storage several writers share that can also order them by a lock
/// (pessimistic concurrency), for lists so hot that optimistic appends keep
/// losing the race.
///
/// A store over such a storage whose ``prefersExclusiveAppends`` is `true`
/// commits each group of writes inside ``appendExclusively(_:)``: it takes the
/// storage's append lock, catches up to the last seq the lock guards,
/// validates the writes against that state and appends them, with no conflict
/// possible; other writers wait for the lock (at most the storage's lock
/// timeout, then they fail with ``EventLogError/Code/timedOut``).
public protocol ExclusiveAppendStorage: EventStorage {
    /// Whether a store should append through ``appendExclusively(_:)``.
    var prefersExclusiveAppends: Bool { get }

    /// Takes the append lock, calls `decide` with the last seq (no other writer
    /// can append past it until this returns), appends the entries `decide`
    /// returns after that seq, all or nothing, and releases the lock.
    ///
    /// `decide` may read the storage (``EventStorage/read(from:maxCount:)``) to
    /// catch up. When it returns no entries, nothing is appended.
    ///
    /// - Returns: The appended records, in seq order.
    /// - Throws: ``EventLogError``: ``EventLogError/Code/timedOut`` when the lock
    ///   was not granted within the storage's lock timeout; the storage's
    ///   failures as ``EventStorage/append(_:expectedLastSeq:)`` has them.
    ///   Nothing is appended then.
    func appendExclusively(_ decide: (_ lastSeq: UInt64) -> [LogEntry]) throws(EventLogError) -> [EventRecord]
}
