#if Postgres
import EventLog

/// Adaptive locking (``PostgresEventLog/Options-swift.struct/adaptiveLocking``):
/// optimistic appends while they win, the list's lock while they keep
/// losing the race, and back (docs/POSTGRES.md, "Adaptive locking").
///
/// Optimistic appends cost one round trip, but on a hot list every loser
/// waits for the winner's commit and then sends its append again, and on a
/// busy server those retries are the work that limits throughput. Locked
/// turns cost a second round trip (the lock, then the append and its
/// `COMMIT`), but writers queue instead of colliding. Which is cheaper depends
/// on whether other writers are appending now, which only the conflicts tell.
extension PostgresEventLog {
    /// Appends in a row that met a seq conflict before the log turns to locking.
    static let conflictsToLock = 2
    /// Locked turns in a row that found the head where this log's previous turn
    /// left it (nobody else appended between them) before it turns back.
    static let quietTurnsToUnlock = 4
    /// Locked turns after which the log tries optimistic appends again anyway.
    static let lockedTurnsBeforeProbe = 256

    /// ``Options-swift.struct/pessimistic``, or adaptive locking turned to the
    /// lock because appends keep conflicting: a `LabelStore` over the log then
    /// commits through ``appendExclusively(_:)``.
    public var prefersExclusiveAppends: Bool {
        if options.pessimistic { return true }
        return options.adaptiveLocking && contention.withLock { $0.locking }
    }

    /// Notes an optimistic append that met a conflict (once per call of `append`).
    func noteConflictedAppend() {
        guard options.adaptiveLocking, !options.pessimistic else { return }
        let switched = contention.withLock { state -> Bool in
            state.conflictStreak += 1
            guard !state.locking, state.conflictStreak >= Self.conflictsToLock else { return false }
            state = Contention(locking: true)
            return true
        }
        if switched { statistics.switchesToLocking.add(1, ordering: .relaxed) }
    }

    /// Notes an optimistic append that landed without a conflict.
    func noteCleanAppend() {
        guard options.adaptiveLocking else { return }
        contention.withLock { $0.conflictStreak = 0 }
    }

    /// Notes a locked turn that found the head at `head` and left it at `newHead`.
    func noteLockedTurn(head: UInt64, newHead: UInt64) {
        guard options.adaptiveLocking, !options.pessimistic else { return }
        let switched = contention.withLock { state -> Bool in
            guard state.locking else { return false }
            state.lockedTurns += 1
            state.quietTurns = state.ownHead == head ? state.quietTurns + 1 : 0
            state.ownHead = newHead
            guard state.quietTurns >= Self.quietTurnsToUnlock || state.lockedTurns >= Self.lockedTurnsBeforeProbe else { return false }
            state = Contention(locking: false)
            return true
        }
        if switched { statistics.switchesToOptimistic.add(1, ordering: .relaxed) }
    }
}

/// What adaptive locking knows of the contention on a list.
struct Contention: Sendable {
    /// Whether the log prefers the list's lock now.
    var locking = false
    /// Optimistic appends in a row that met a conflict.
    var conflictStreak = 0
    /// Locked turns since the log turned to locking.
    var lockedTurns = 0
    /// Locked turns in a row that found the head where this log left it.
    var quietTurns = 0
    /// Where this log's last locked turn left the head.
    var ownHead: UInt64?
}
#endif
