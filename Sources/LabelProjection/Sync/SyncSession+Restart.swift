import EventLog
import Foundation

/// Starting a mirror again when a cut of the server list overtook it
/// (docs/SYNC.md, "When the server's history was cut"): the records after
/// its last seq are gone from the server, so it can never catch up.
extension SyncSession {
    /// What to take a push for that a crash left open and whose row a cut
    /// removed without keeping its batch id (a cut made before PostgreSQL
    /// schema 7), so that the server cannot tell whether it committed: what
    /// the user found by comparing the pending edits with the archive's
    /// records after the seq the push was sent after.
    public enum OpenPushResolution: String, Sendable, Hashable {
        /// It committed: its commands are done as the outbox noted them (nothing is sent).
        case committed
        /// It did not: its commands are decided again on the list as it is, and sent.
        case notCommitted = "not-committed"
    }

    /// The history files a log keeps beside it, moved with a mirror set aside.
    package static let mirrorSideFiles = [".synced", ".index", ".index-delta", ".tree", ".checkpoints"]

    /// If a cut of the server list removed records the mirror never pulled,
    /// sets the mirror aside (renamed, with its history files, to
    /// `MIRROR.overtaken-<time>`; nothing is deleted) and opens a new one
    /// from the list's base, keeping the outbox, whose pending commands the
    /// round then pushes; returns where the old mirror went (`nil` when it was
    /// not overtaken) and the commands a resolution marked done.
    ///
    /// A push the outbox noted and a crash left open is settled after the
    /// restart by its group id on the row after its seq, which a cut keeps
    /// (PostgreSQL schema 7). When that row was cut by a cut that kept no
    /// batch id (an earlier schema), whether the push committed cannot be
    /// told: the mirror is left as it is and the round fails with `archived`,
    /// saying so, rather than deciding the push again (which could apply it
    /// twice), unless `resolution` says what to take it for: `committed`
    /// marks its commands done as noted (returned), `notCommitted` lets the
    /// round decide them again.
    ///
    /// The history files move first and the mirror last, so a crash between
    /// leaves no file describing another log beside the mirror's path. If the
    /// new mirror cannot be opened (the file system failed), the session is
    /// left without one (`closed`); the next session starts it.
    func restartIfOvertaken(
        _ s: inout State, resolving resolution: OpenPushResolution?
    ) throws(StoreError) -> (setAside: String?, done: [Done]) {
        guard let serverLog, let mirror = s.mirror else { return (nil, []) }
        let serverBase = serverLog.base?.lastCutSeq ?? 0
        guard mirror.lastSeq < serverBase else { return (nil, []) }
        var done: [Done] = []
        if let attempt = outbox.openAttempt, attempt.afterSeq < serverBase {
            let found: UUID?
            do throws(EventLogError) { found = try serverLog.batchID(atSeq: attempt.afterSeq + 1) } catch { throw .storage(error) }
            switch (found, resolution) {
            case (nil, .committed?): done = try finish(attempt.plan, &s)
            case (nil, .notCommitted?), (_?, _): break  // decided again, or settled by its group id after the restart
            case (nil, nil):
                throw .storage(
                    EventLogError(
                        .archived,
                        "the server list's records after seq \(mirror.lastSeq) through seq \(serverBase) were cut off since this mirror last synced, and with them the row that tells whether the push the outbox noted (group \(attempt.group), sent after seq \(attempt.afterSeq)) committed; the cut kept no batch ids (it was made before schema 7), so it cannot be told, and the push is not decided again (it could apply twice). Its commands stay pending in \(SyncOutbox.path(forLogAt: mirrorPath)); compare them with the archive's records after seq \(attempt.afterSeq), then sync again saying what you found — committed (its edits are there: nothing is sent) or not-committed (they are not: they are decided again and sent): labelreplay sync … --open-push committed|not-committed, or SyncSession.sync(resolvingOpenPush:) (docs/SYNC.md, \"When the server's history was cut\")",
                        path: mirrorPath, lastGoodSeq: mirror.lastSeq))
            }
        }
        mirror.close()
        s.mirror = nil
        let aside = Self.setAsidePath(for: mirrorPath)
        do {
            let files = FileManager.default
            for suffix in Self.mirrorSideFiles where files.fileExists(atPath: mirrorPath + suffix) {
                try files.moveItem(atPath: mirrorPath + suffix, toPath: aside + suffix)
            }
            try files.moveItem(atPath: mirrorPath, toPath: aside)
        } catch {
            throw .storage(EventLogError(.ioError, "the overtaken mirror could not be set aside as \(aside): \(error)", path: mirrorPath))
        }
        let (fresh, server) = try Self.openMirror(at: mirrorPath, server: serverLog)
        s.mirror = fresh
        s.server = server
        s.prover = nil
        return (aside, done)
    }

    /// A name beside `path` no file has: `PATH.overtaken-<UTC time>`, with a number after it if needed.
    static func setAsidePath(for path: String) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        let base = path + ".overtaken-" + formatter.string(from: Date())
        var candidate = base
        var n = 1
        while FileManager.default.fileExists(atPath: candidate) {
            n += 1
            candidate = base + "-\(n)"
        }
        return candidate
    }
}
